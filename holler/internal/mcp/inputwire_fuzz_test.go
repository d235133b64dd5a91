package mcp

import (
	"encoding/json"
	"strings"
	"testing"
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
		if len(in.state) > maxRequestStateBytes {
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
				if res, err := decodeInputResponse(m, v); err == nil && (res == nil || kindOf(v) != "object") {
					t.Fatalf("%s answer %s decoded to %v", m, v, res)
				}
			}
		}
	})
}

// FuzzOpenState feeds arbitrary requestStates to the signer: none but the one it minted opens,
// and none panics.
func FuzzOpenState(f *testing.F) {
	g, err := newStateSigner([]byte("a fixed key for the fuzzer, 32 bytes"))
	if err != nil {
		f.Fatal(err)
	}
	minted, err := g.seal(roundState{Method: methodToolsCall, Name: "t", Args: "a",
		Asked: map[string]string{"k": "d"}, Answers: map[string]gatheredAnswer{"j": {Question: "q", Answer: json.RawMessage(`{"action":"accept"}`)}}})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{minted, minted + "-TAMPERED", "s2..", "s2.e30.", "c1.abc.def", "", strings.Repeat(".", 10)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, state string) {
		st, err := g.open(state, methodToolsCall, "t", "a")
		if err == nil && state != minted {
			// HMAC-SHA256 is not forged by a fuzzer: a state other than the minted one can only
			// open if it differs in base64 padding bits, and then it says the same.
			if st.Name != "t" || st.Asked["k"] != "d" || string(st.Answers["j"].Answer) != `{"action":"accept"}` {
				t.Fatalf("opened a state it did not mint: %q = %+v", state, st)
			}
		}
		if err != nil {
			if _, ok := err.(*stateError); !ok {
				t.Fatalf("error of type %T", err)
			}
		}
	})
}
