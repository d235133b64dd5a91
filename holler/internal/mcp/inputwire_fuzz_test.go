package mcp

import (
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
)

// FuzzReadInputParams feeds arbitrary params to the reader of requestState and inputResponses:
// it never panics, and what it accepts is within its bounds.
func FuzzReadInputParams(f *testing.F) {
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
		in, err := readInputParams(params)
		if err != nil {
			if _, ok := err.(*malformedAnswer); !ok {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		if len(in.state) > reqstate.MaxBytes {
			t.Fatalf("took a state of %d bytes", len(in.state))
		}
		if len(in.responses) > maxInputResponses {
			t.Fatalf("took %d answers", len(in.responses))
		}
		for k, v := range in.responses {
			if len(v) > maxInputResponseBytes {
				t.Fatalf("took an answer %q of %d bytes", k, len(v))
			}
			// Every answer decodes against every method without panicking, and an answer that
			// decodes is an object.
			for _, m := range []string{methodElicit, methodCreateMessage, methodRootsList, "other"} {
				if res, err := decodeInputResponse(m, v); err == nil && (res == nil || rawjson.Kind(v) != "object") {
					t.Fatalf("%s answer %s decoded to %v", m, v, res)
				}
			}
		}
	})
}
