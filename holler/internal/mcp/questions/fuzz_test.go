package questions

import (
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
)

// FuzzReadRetry feeds arbitrary params to the reader of requestState and inputResponses: it
// never panics, and what it accepts is within its bounds.
func FuzzReadRetry(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"requestState":"s2.abc.def","inputResponses":{"user_name":{"action":"accept","content":{"name":"Ann"}}}}`,
		`{"inputResponses":null}`,
		`{"inputResponses":{"a":12345}}`,
		`{"inputResponses":[1,2]}`,
		`{"requestState":7}`,
		`{"requestState":null,"inputResponses":{"x":null,"y":"z"}}`,
		`not json`,
		`{"inputResponses":{"a":{"b":{"c":[1,2,{"d":"e"}]}}}}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, params []byte) {
		in, err := ReadRetry(params)
		if err != nil {
			if _, ok := err.(*Malformed); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(in.State) > reqstate.MaxBytes {
			t.Fatalf("took a state of %d bytes", len(in.State))
		}
		if len(in.Responses) > MaxResponses {
			t.Fatalf("took %d answers", len(in.Responses))
		}
		for k, v := range in.Responses {
			if len(v) > MaxResponseBytes {
				t.Fatalf("took an answer %q of %d bytes", k, len(v))
			}
			// Every answer decodes against every method without panicking, and an answer that
			// decodes is an object.
			for _, m := range []string{MethodElicit, MethodCreateMessage, MethodRootsList, "other"} {
				if res, err := Decode(m, v); err == nil && (res == nil || rawjson.Kind(v) != "object") {
					t.Fatalf("%s answer %s decoded to %v", m, v, res)
				}
			}
		}
	})
}
