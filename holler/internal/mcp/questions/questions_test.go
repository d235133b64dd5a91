package questions

import (
	"encoding/json"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/types/known/structpb"
)

func sampling(role hootv1.Role, text string) *hootv1.ClientRequest {
	return &hootv1.ClientRequest{Request: &hootv1.ClientRequest_Sampling{Sampling: &hootv1.SamplingRequest{
		Messages: []*hootv1.SamplingMessage{
			{Role: role, Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: text}}},
			{Role: role}, // no content: left out
		},
		MaxTokens:    9,
		SystemPrompt: "be brief",
	}}}
}

func form(msg string, schema *structpb.Struct) *hootv1.ClientRequest {
	return &hootv1.ClientRequest{Request: &hootv1.ClientRequest_Elicitation{Elicitation: &hootv1.ElicitationRequest{
		Message: msg, RequestedSchema: schema,
	}}}
}

var roots = &hootv1.ClientRequest{Request: &hootv1.ClientRequest_Roots{Roots: &hootv1.RootsRequest{}}}

func encoded(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestParams writes each kind of question as the older eras send it, and Of as 2026-07-28
// carries it: the same, with a form's mode named.
func TestParams(t *testing.T) {
	schema, err := structpb.NewStruct(map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name         string
		req          *hootv1.ClientRequest
		method       string
		params, form string
	}{
		{"sampling", sampling(hootv1.Role_ROLE_USER, "hi"), MethodCreateMessage,
			`{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":9,"systemPrompt":"be brief"}`, ""},
		{"assistant", sampling(hootv1.Role_ROLE_ASSISTANT, "so"), MethodCreateMessage,
			`{"messages":[{"role":"assistant","content":{"type":"text","text":"so"}}],"maxTokens":9,"systemPrompt":"be brief"}`, ""},
		{"form", form("who?", schema), MethodElicit,
			`{"message":"who?","requestedSchema":{"properties":{"name":{"type":"string"}},"type":"object"}}`,
			`{"mode":"form","message":"who?","requestedSchema":{"properties":{"name":{"type":"string"}},"type":"object"}}`},
		{"form without schema", form("ok?", nil), MethodElicit,
			`{"message":"ok?","requestedSchema":{"properties":{},"type":"object"}}`,
			`{"mode":"form","message":"ok?","requestedSchema":{"properties":{},"type":"object"}}`},
		{"roots", roots, MethodRootsList, `{}`, ""},
	} {
		method, params := Params(c.req)
		if method != c.method || encoded(t, params) != c.params {
			t.Errorf("%s: Params = %s %s, want %s %s", c.name, method, encoded(t, params), c.method, c.params)
		}
		q, ok := Of(c.req)
		want := c.form
		if want == "" {
			want = c.params
		}
		if !ok || q.Method != c.method || encoded(t, q.Params) != want {
			t.Errorf("%s: Of = %v %s %s, want %s %s", c.name, ok, q.Method, encoded(t, q.Params), c.method, want)
		}
		if name, _ := Capability(method); name == "" {
			t.Errorf("%s: no capability for %s", c.name, method)
		}
	}
	if method, _ := Params(&hootv1.ClientRequest{}); method != "" {
		t.Errorf("an empty request has the method %q", method)
	}
	if _, ok := Of(&hootv1.ClientRequest{}); ok {
		t.Error("an empty request is a question")
	}
}

// TestDigest tells questions apart by method and params, and only by them.
func TestDigest(t *testing.T) {
	a, _ := Of(sampling(hootv1.Role_ROLE_USER, "hi"))
	b, _ := Of(sampling(hootv1.Role_ROLE_USER, "hi"))
	c, _ := Of(sampling(hootv1.Role_ROLE_USER, "ho"))
	d, _ := Of(roots)
	if Digest(a) != Digest(b) {
		t.Error("the same question has two digests")
	}
	if Digest(a) == Digest(c) || Digest(a) == Digest(d) {
		t.Error("two questions share a digest")
	}
}

// TestCapability names what a client must declare for each question.
func TestCapability(t *testing.T) {
	for method, want := range map[string]string{
		MethodCreateMessage: `sampling {}`, MethodRootsList: `roots {}`, MethodElicit: `elicitation {"form":{}}`, "ping": ` null`,
	} {
		name, value := Capability(method)
		if got := name + " " + encoded(t, value); got != want {
			t.Errorf("Capability(%s) = %s, want %s", method, got, want)
		}
	}
}

// TestDecode reads each kind of answer, and refuses answers of the wrong shape with the shape.
func TestDecode(t *testing.T) {
	res, err := Decode(MethodElicit, json.RawMessage(`{"action":"accept","content":{"name":"Ann","n":3,"ok":true,"tags":["a",1,"b"],"odd":{}}}`))
	if err != nil {
		t.Fatal(err)
	}
	e := res.GetElicitation()
	if e.GetAction() != hootv1.ElicitationAction_ELICITATION_ACTION_ACCEPT || e.GetContent()["name"].GetText() != "Ann" ||
		e.GetContent()["n"].GetNumber() != 3 || !e.GetContent()["ok"].GetFlag() ||
		strings.Join(e.GetContent()["tags"].GetChoices().GetValues(), ",") != "a,b" || e.GetContent()["odd"] != nil {
		t.Errorf("elicitation = %v", e)
	}
	for action, want := range map[string]hootv1.ElicitationAction{
		"decline": hootv1.ElicitationAction_ELICITATION_ACTION_DECLINE, "cancel": hootv1.ElicitationAction_ELICITATION_ACTION_CANCEL,
	} {
		res, err := Decode(MethodElicit, json.RawMessage(`{"action":"`+action+`"}`))
		if err != nil || res.GetElicitation().GetAction() != want {
			t.Errorf("%s: %v %v", action, res, err)
		}
	}

	res, err = Decode(MethodCreateMessage, json.RawMessage(`{"role":"assistant","content":{"type":"image","data":"AAE=","mimeType":"image/png"},"model":"m","stopReason":"endTurn"}`))
	if err != nil {
		t.Fatal(err)
	}
	s := res.GetSampling()
	if s.GetRole() != hootv1.Role_ROLE_ASSISTANT || s.GetModel() != "m" || s.GetStopReason() != "endTurn" ||
		s.GetContent().GetImage().GetMimeType() != "image/png" || len(s.GetContent().GetImage().GetData()) != 2 {
		t.Errorf("sampling = %v", s)
	}

	res, err = Decode(MethodRootsList, json.RawMessage(`{"roots":[{"uri":"file:///a","name":"A"},{"uri":"file:///b"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r := res.GetRoots().GetRoots(); len(r) != 2 || r[0].GetUri() != "file:///a" || r[0].GetName() != "A" || r[1].GetUri() != "file:///b" {
		t.Errorf("roots = %v", r)
	}

	for _, c := range []struct{ method, answer, want string }{
		{MethodElicit, `[]`, `"action":"accept"`},
		{MethodElicit, `{"action":"maybe"}`, `"action":"accept"`},
		{MethodElicit, `{"action":"accept","content":[1]}`, `"action":"accept"`},
		{MethodCreateMessage, `{"role":"assistant","content":"hi"}`, `a sampling result`},
		{MethodCreateMessage, `null`, `a sampling result`},
		{MethodRootsList, `{}`, `a roots/list result`},
		{MethodRootsList, `{"roots":[{"name":"no uri"}]}`, `a roots/list result`},
		{"ping", `{}`, `the result of ping`},
	} {
		if res, err := Decode(c.method, json.RawMessage(c.answer)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Decode(%s, %s) = %v, %v; want an error with %s", c.method, c.answer, res, err, c.want)
		}
	}
}

// TestResponse turns the client's response into a ClientResponse, a refusal and a malformed
// answer into its error.
func TestResponse(t *testing.T) {
	r := Response(roots, json.RawMessage(`{"roots":[]}`), nil)
	if r.GetRoots() == nil {
		t.Errorf("roots answer = %v", r)
	}
	for _, c := range []struct {
		name          string
		req           *hootv1.ClientRequest
		result, error string
		want          string
	}{
		{"refused", roots, ``, `{"code":-32601,"message":"no roots here"}`, "the client refused the request: no roots here"},
		{"malformed", roots, `{"roots":7}`, ``, "the client's answer to roots/list is malformed: invalid_argument: must be a roots/list result"},
		{"empty request", &hootv1.ClientRequest{}, `{}`, ``, "the request for the client is empty"},
	} {
		var result, errMember json.RawMessage
		if c.result != "" {
			result = json.RawMessage(c.result)
		}
		if c.error != "" {
			errMember = json.RawMessage(c.error)
		}
		r := Response(c.req, result, errMember)
		if !strings.Contains(r.GetError().GetMessage(), c.want) {
			t.Errorf("%s: %v, want an error with %q", c.name, r, c.want)
		}
	}
}

// TestReadRetry reads the answers of a retry and refuses, naming the member, what is not
// within its shape or bounds.
func TestReadRetry(t *testing.T) {
	in, err := ReadRetry(json.RawMessage(`{"name":"x","arguments":{}}`))
	if err != nil || in.HasState || in.Responses != nil {
		t.Errorf("a first call: %+v %v", in, err)
	}
	in, err = ReadRetry(json.RawMessage(`{"requestState":"s","inputResponses":{"a":{"action":"cancel"},"b":null}}`))
	if err != nil || !in.HasState || in.State != "s" || len(in.Responses) != 2 || string(in.Responses["a"]) != `{"action":"cancel"}` {
		t.Errorf("a retry: %+v %v", in, err)
	}
	in, err = ReadRetry(json.RawMessage(`{"requestState":null,"inputResponses":null}`))
	if err != nil || in.HasState || in.Responses != nil {
		t.Errorf("nulls: %+v %v", in, err)
	}

	many := map[string]int{}
	for i := range MaxResponses + 1 {
		many["k"+strings.Repeat("x", i)] = i
	}
	for _, c := range []struct{ params, field, why string }{
		{`["requestState"]`, "params", "not an object"},
		{`{"requestState":7}`, "params.requestState", "must be a string"},
		{`{"requestState":"` + strings.Repeat("s", 70000) + `"}`, "params.requestState", "longer than any requestState"},
		{`{"inputResponses":[]}`, "params.inputResponses", "must be an object"},
		{`{"inputResponses":` + encoded(t, many) + `}`, "params.inputResponses", "over the limit of 32"},
		{`{"inputResponses":{"big":"` + strings.Repeat("b", MaxResponseBytes) + `"}}`, "params.inputResponses.big", "over the limit of 32768 bytes"},
	} {
		_, err := ReadRetry(json.RawMessage(c.params))
		m, ok := err.(*Malformed)
		if !ok || m.Field != c.field || !strings.Contains(m.Why, c.why) {
			t.Errorf("ReadRetry(%.40s...) = %v, want %s: %s", c.params, err, c.field, c.why)
		}
	}
}
