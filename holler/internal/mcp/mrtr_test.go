package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/types/known/structpb"
)

// A handler's questions asked in 2026-07-28 input_required rounds: the fake backend's override
// plays a worker's handler that asks through the call's ClientAsker, as AskClient does.

// nameForm is a question under key for a form with one string field.
func nameForm(key, field string) *hootv1.ClientRequest {
	schema, _ := structpb.NewStruct(map[string]any{"type": "object", "properties": map[string]any{field: map[string]any{"type": "string"}}})
	return &hootv1.ClientRequest{Key: key, Request: &hootv1.ClientRequest_Elicitation{Elicitation: &hootv1.ElicitationRequest{
		Message: "What is your " + field + "?", RequestedSchema: schema,
	}}}
}

func sampleQ(key, prompt string) *hootv1.ClientRequest {
	return &hootv1.ClientRequest{Key: key, Request: &hootv1.ClientRequest_Sampling{Sampling: &hootv1.SamplingRequest{
		Messages: []*hootv1.SamplingMessage{{Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: prompt}}}}, MaxTokens: 9,
	}}}
}

func rootsQ(key string) *hootv1.ClientRequest {
	return &hootv1.ClientRequest{Key: key, Request: &hootv1.ClientRequest_Roots{Roots: &hootv1.RootsRequest{}}}
}

// textResult is a fixture's result with one text block.
func textResult(s string) *hootv1.Result {
	return fixtureResult(&conformancev1.Result{Result: &conformancev1.Result_ConformanceContent{ConformanceContent: &conformancev1.ConformanceContentResult{
		Content: []*hootv1.Content{{Block: &hootv1.Content_Text{Text: s}}},
	}}})
}

// answerText writes an answer for a test to compare: the form's fields, the sampled text, the
// roots' URIs, or the refusal.
func answerText(r *hootv1.ClientResponse) string {
	switch {
	case r.GetError() != nil:
		return "refused: " + r.GetError().GetMessage()
	case r.GetElicitation() != nil:
		var parts []string
		for k, v := range r.GetElicitation().GetContent() {
			parts = append(parts, k+"="+v.GetText())
		}
		sort.Strings(parts)
		return strings.Join(parts, ",")
	case r.GetSampling() != nil:
		return r.GetSampling().GetContent().GetText()
	case r.GetRoots() != nil:
		var uris []string
		for _, root := range r.GetRoots().GetRoots() {
			uris = append(uris, root.GetUri())
		}
		return strings.Join(uris, ",")
	}
	return "?"
}

// asking returns a backend override that asks each group of questions in turn (the questions
// of a group at once), ends at the first group with an unanswered question, and otherwise
// answers with every answer joined by "|".
func asking(groups ...[]*hootv1.ClientRequest) func(context.Context, string, *hootv1.Payload) (*hootv1.Result, error) {
	return func(ctx context.Context, _ string, _ *hootv1.Payload) (*hootv1.Result, error) {
		ask := callOf(ctx).Ask
		if ask == nil {
			return nil, hooteproto.NewError(hooteproto.CodeInternal, "no asker")
		}
		var out []string
		for _, g := range groups {
			res := make([]*hootv1.ClientResponse, len(g))
			var wg sync.WaitGroup
			for i, q := range g {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r, err := ask(ctx, q)
					if err != nil {
						r = &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Error{Error: hooteproto.ToolErrorOf(err)}}
					}
					res[i] = r
				}()
			}
			wg.Wait()
			for _, r := range res {
				if r.GetError() != nil && strings.Contains(r.GetError().GetMessage(), "awaited") {
					return nil, hooteproto.ErrorFromTool(r.GetError())
				}
				out = append(out, answerText(r))
			}
		}
		return textResult(strings.Join(out, "|")), nil
	}
}

// capsMeta is the _meta of a 2026-07-28 request whose client declares caps.
func capsMeta(caps map[string]any) map[string]any {
	return map[string]any{era.MetaProtocolVersion: era.V20260728, era.MetaClientCapabilities: caps}
}

// allCaps declares everything a question can need.
func allCaps() map[string]any {
	return map[string]any{"elicitation": map[string]any{}, "sampling": map[string]any{}, "roots": map[string]any{}}
}

// sampleCall returns the params of a modern call of test_sampling with prompt, plus extra.
func sampleCall(prompt string, extra map[string]any) map[string]any {
	p := map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": prompt}, "_meta": capsMeta(allCaps())}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// askedRound is an input_required result as these tests read it.
type askedRound struct {
	ResultType    string `json:"resultType"`
	InputRequests map[string]struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	} `json:"inputRequests"`
	RequestState string `json:"requestState"`
}

// askedOf decodes an input_required answer and checks that it asks exactly keys.
func askedOf(t *testing.T, a *httpAnswer, keys ...string) askedRound {
	t.Helper()
	r := a.last(t)
	if r.Error != nil {
		t.Fatalf("want input_required asking %v, got error %d %s %v", keys, r.Error.Code, r.Error.Message, r.Error.Data)
	}
	var ir askedRound
	if err := json.Unmarshal(r.Result, &ir); err != nil || ir.ResultType != questions.ResultTypeInputRequired || ir.RequestState == "" {
		t.Fatalf("want input_required with a state, got %s", r.Result)
	}
	var got []string
	for k := range ir.InputRequests {
		got = append(got, k)
	}
	sort.Strings(got)
	sort.Strings(keys)
	if strings.Join(got, ",") != strings.Join(keys, ",") {
		t.Fatalf("asked %v, want %v: %s", got, keys, r.Result)
	}
	return ir
}

// completeText returns the text of a complete tool result.
func completeText(t *testing.T, a *httpAnswer) string {
	t.Helper()
	r := a.last(t)
	if strings.Contains(string(r.Result), questions.ResultTypeInputRequired) {
		t.Fatalf("want a complete result, got %s", r.Result)
	}
	tr := toolResultOf(t, r)
	if tr.IsError {
		t.Fatalf("want a result without isError, got %s", r.Result)
	}
	return tr.text()
}

func answers(state string, kv ...string) map[string]any {
	m := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = json.RawMessage(kv[i+1])
	}
	out := map[string]any{questions.ParamInputResponses: m}
	if state != "" {
		out[questions.ParamRequestState] = state
	}
	return out
}

const (
	annForm    = `{"action":"accept","content":{"name":"Ann"}}`
	sampledHi  = `{"role":"assistant","content":{"type":"text","text":"hi there"},"model":"m"}`
	rootsReply = `{"roots":[{"uri":"file:///srv/music","name":"Music"}]}`
)

func newRoundServer(t *testing.T, key []byte, groups ...[]*hootv1.ClientRequest) (*Server, *fakeBackend, *mcpHTTP) {
	t.Helper()
	s, b := newTestServer(t, func(c *Config) { c.StateKey = key })
	b.override = asking(groups...)
	return s, b, newMCPHTTP(t, s)
}

func TestRoundTrip(t *testing.T) {
	t.Parallel()
	_, b, c := newRoundServer(t, nil, []*hootv1.ClientRequest{nameForm("user_name", "name")})
	ir := askedOf(t, c.modernCall(1, "tools/call", sampleCall("x", nil), nil), "user_name")
	q := ir.InputRequests["user_name"]
	if q.Method != questions.MethodElicit || !strings.Contains(string(q.Params), `"mode":"form"`) || !strings.Contains(string(q.Params), `"message":"What is your name?"`) {
		t.Errorf("question = %s %s", q.Method, q.Params)
	}
	if got := completeText(t, c.modernCall(2, "tools/call", sampleCall("x", answers(ir.RequestState, "user_name", annForm)), nil)); got != "name=Ann" {
		t.Errorf("result = %q", got)
	}
	if n := b.calls.Load(); n != 2 {
		t.Errorf("the handler ran %d times, want 2 (once per round)", n)
	}
	// The client may answer at once, without a state (and extra keys are ignored).
	if got := completeText(t, c.modernCall(3, "tools/call", sampleCall("x", answers("", "user_name", annForm, "other", `{"x":1}`)), nil)); got != "name=Ann" {
		t.Errorf("answer without a state: %q", got)
	}
}

func TestRoundMultiRound(t *testing.T) {
	t.Parallel()
	_, _, c := newRoundServer(t, nil, []*hootv1.ClientRequest{nameForm("step1", "name")}, []*hootv1.ClientRequest{nameForm("step2", "color")})
	r1 := askedOf(t, c.modernCall(1, "tools/call", sampleCall("x", nil), nil), "step1")
	r2 := askedOf(t, c.modernCall(2, "tools/call", sampleCall("x", answers(r1.RequestState, "step1", annForm)), nil), "step2")
	if r2.RequestState == r1.RequestState {
		t.Error("round 2 has the state of round 1")
	}
	// Round 3 carries only step2's answer: step1's comes from the state.
	got := completeText(t, c.modernCall(3, "tools/call", sampleCall("x", answers(r2.RequestState, "step2", `{"action":"accept","content":{"color":"blue"}}`)), nil))
	if got != "name=Ann|color=blue" {
		t.Errorf("result = %q", got)
	}
	// An old state with a changed answer to step1 is just an earlier round: asked step2 again.
	askedOf(t, c.modernCall(4, "tools/call", sampleCall("x", answers(r1.RequestState, "step1", `{"action":"accept","content":{"name":"Bo"}}`)), nil), "step2")
}

func TestRoundSeveralQuestions(t *testing.T) {
	t.Parallel()
	_, _, c := newRoundServer(t, nil, []*hootv1.ClientRequest{nameForm("user_name", "name"), sampleQ("greeting", "greet"), rootsQ("client_roots")})
	ir := askedOf(t, c.modernCall(1, "tools/call", sampleCall("x", nil), nil), "user_name", "greeting", "client_roots")
	if q := ir.InputRequests["client_roots"]; q.Method != questions.MethodRootsList || string(q.Params) != `{}` {
		t.Errorf("roots question = %s %s", q.Method, q.Params)
	}
	if q := ir.InputRequests["greeting"]; q.Method != questions.MethodCreateMessage || !strings.Contains(string(q.Params), `"maxTokens":9`) {
		t.Errorf("sampling question = %s %s", q.Method, q.Params)
	}
	// Two of three answered: asked the third only, and the two are kept.
	r2 := askedOf(t, c.modernCall(2, "tools/call", sampleCall("x", answers(ir.RequestState, "user_name", annForm, "greeting", sampledHi)), nil), "client_roots")
	got := completeText(t, c.modernCall(3, "tools/call", sampleCall("x", answers(r2.RequestState, "client_roots", rootsReply)), nil))
	if got != "name=Ann|hi there|file:///srv/music" {
		t.Errorf("result = %q", got)
	}
}

func TestRoundUnnamedQuestions(t *testing.T) {
	t.Parallel()
	q1, q2 := nameForm("", "name"), sampleQ("", "p")
	_, _, c := newRoundServer(t, nil, []*hootv1.ClientRequest{q1}, []*hootv1.ClientRequest{q2})
	r1 := askedOf(t, c.modernCall(1, "tools/call", sampleCall("x", nil), nil), "ask-1")
	r2 := askedOf(t, c.modernCall(2, "tools/call", sampleCall("x", answers(r1.RequestState, "ask-1", annForm)), nil), "ask-2")
	if got := completeText(t, c.modernCall(3, "tools/call", sampleCall("x", answers(r2.RequestState, "ask-2", sampledHi)), nil)); got != "name=Ann|hi there" {
		t.Errorf("result = %q", got)
	}
}

func TestRoundCapabilities(t *testing.T) {
	t.Parallel()
	_, _, c0 := newRoundServer(t, nil, []*hootv1.ClientRequest{nameForm("user_name", "name"), sampleQ("capital", "France?")})
	c := c0
	p := sampleCall("x", nil)
	p["_meta"] = capsMeta(map[string]any{"sampling": map[string]any{}})
	ir := askedOf(t, c.modernCall(1, "tools/call", p, nil), "capital")
	p = sampleCall("x", answers(ir.RequestState, "capital", sampledHi))
	p["_meta"] = capsMeta(map[string]any{"sampling": map[string]any{}})
	got := completeText(t, c.modernCall(2, "tools/call", p, nil))
	if !strings.HasPrefix(got, "refused: the client cannot be asked elicitation/create") || !strings.HasSuffix(got, "|hi there") {
		t.Errorf("result = %q", got)
	}

	// A handler that needs what the client cannot answer fails the request with -32021.
	_, b, c := newRoundServer(t, nil)
	b.override = needing(sampleQ("capital", "France?"))
	for i, caps := range []map[string]any{{}, {"elicitation": map[string]any{}, "roots": map[string]any{}}} {
		p := sampleCall("x", nil)
		p["_meta"] = capsMeta(caps)
		a := c.modernCall(10+i, "tools/call", p, nil)
		r := a.last(t)
		if r.Error == nil || r.Error.Code != era.CodeMissingCapability || a.status != http.StatusBadRequest {
			t.Fatalf("caps %v: want -32021 and 400, got %d %s", caps, a.status, a.body)
		}
		req, _ := r.Error.Data["requiredCapabilities"].(map[string]any)
		if _, ok := req["sampling"].(map[string]any); !ok || len(req) != 1 {
			t.Errorf("requiredCapabilities = %v", r.Error.Data["requiredCapabilities"])
		}
		if hint, _ := r.Error.Data["hint"].(string); !strings.Contains(hint, "Declare sampling") {
			t.Errorf("hint = %q", hint)
		}
	}
	// elicitation declared with url only cannot take a form.
	_, b, c = newRoundServer(t, nil)
	b.override = needing(nameForm("n", "name"))
	p = sampleCall("x", nil)
	p["_meta"] = capsMeta(map[string]any{"elicitation": map[string]any{"url": map[string]any{}}})
	r := c.modernCall(20, "tools/call", p, nil).last(t)
	if req, _ := r.Error.Data["requiredCapabilities"].(map[string]any); r.Error.Code != era.CodeMissingCapability || req["elicitation"] == nil {
		t.Errorf("url-only elicitation: %+v", r.Error)
	}
}

// needing returns a backend override that asks q and fails with the refusal if it is refused.
func needing(q *hootv1.ClientRequest) func(context.Context, string, *hootv1.Payload) (*hootv1.Result, error) {
	return func(ctx context.Context, _ string, _ *hootv1.Payload) (*hootv1.Result, error) {
		r, err := callOf(ctx).Ask(ctx, q)
		if err != nil {
			return nil, err
		}
		return textResult(answerText(r)), nil
	}
}

func TestRoundBadStates(t *testing.T) {
	t.Parallel()
	_, b, c := newRoundServer(t, nil, []*hootv1.ClientRequest{nameForm("user_name", "name")})
	ir := askedOf(t, c.modernCall(1, "tools/call", sampleCall("x", nil), nil), "user_name")
	before := b.calls.Load()
	tests := []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"tampered", sampleCall("x", answers(ir.RequestState+"-TAMPERED", "user_name", annForm)), "not signed by this server's key"},
		{"other arguments", sampleCall("y", answers(ir.RequestState, "user_name", annForm)), "other arguments"},
		{"other tool", map[string]any{"name": "test_elicitation", "arguments": map[string]any{"message": "x"}, "_meta": capsMeta(allCaps()),
			questions.ParamRequestState: ir.RequestState, questions.ParamInputResponses: map[string]any{"user_name": json.RawMessage(annForm)}}, "another tool"},
		{"not a string", sampleCall("x", map[string]any{questions.ParamRequestState: 7}), "must be a string"},
		{"too long", sampleCall("x", map[string]any{questions.ParamRequestState: strings.Repeat("a", reqstate.MaxBytes+1)}), "longer than"},
	}
	for i, tc := range tests {
		r := c.modernCall(10+i, "tools/call", tc.params, nil).last(t)
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, tc.want) {
			t.Errorf("%s: want -32602 saying %q, got %+v %s", tc.name, tc.want, r.Error, r.Result)
			continue
		}
		if hint, _ := r.Error.Data["hint"].(string); !strings.Contains(hint, "without requestState") && !strings.Contains(hint, "afresh") {
			t.Errorf("%s: hint %q", tc.name, hint)
		}
	}
	if n := b.calls.Load(); n != before {
		t.Errorf("the handler ran %d times on refused states", n-before)
	}
}

func TestRoundExpiredState(t *testing.T) {
	t.Parallel()
	s, _, c := newRoundServer(t, nil, []*hootv1.ClientRequest{nameForm("user_name", "name")})
	var mu sync.Mutex
	now := time.Now()
	s.states.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	ir := askedOf(t, c.modernCall(1, "tools/call", sampleCall("x", nil), nil), "user_name")
	mu.Lock()
	now = now.Add(reqstate.TTL + time.Second)
	mu.Unlock()
	checkStateRefused(t, "expired", c.modernCall(2, "tools/call", sampleCall("x", answers(ir.RequestState, "user_name", annForm)), nil), "expired")
}

func TestRoundMalformedAnswers(t *testing.T) {
	t.Parallel()
	_, _, c := newRoundServer(t, nil, []*hootv1.ClientRequest{nameForm("user_name", "name"), sampleQ("s", "p"), rootsQ("r")})
	ir := askedOf(t, c.modernCall(1, "tools/call", sampleCall("x", nil), nil), "user_name", "s", "r")
	good := []string{"user_name", annForm, "s", sampledHi, "r", rootsReply}
	with := func(key, answer string) map[string]any {
		kv := append([]string(nil), good...)
		for i := 0; i < len(kv); i += 2 {
			if kv[i] == key {
				kv[i+1] = answer
			}
		}
		return sampleCall("x", answers(ir.RequestState, kv...))
	}
	for i, tc := range []struct{ key, answer string }{
		{"user_name", `12345`},
		{"user_name", `{"action":"maybe"}`},
		{"user_name", `"accept"`},
		{"s", `{"role":"assistant"}`},
		{"r", `{"roots":"file:///"}`},
		{"r", `{"roots":[{"name":"no uri"}]}`},
		{"r", `{}`},
	} {
		r := c.modernCall(10+i, "tools/call", with(tc.key, tc.answer), nil).last(t)
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "inputResponses."+tc.key) {
			t.Errorf("%s = %s: want -32602 naming it, got %+v %s", tc.key, tc.answer, r.Error, r.Result)
		}
	}
	// A null answer, or none, is asked again.
	askedOf(t, c.modernCall(20, "tools/call", with("user_name", `null`), nil), "user_name")
	askedOf(t, c.modernCall(21, "tools/call", sampleCall("x", map[string]any{questions.ParamRequestState: ir.RequestState, questions.ParamInputResponses: nil}), nil), "user_name", "s", "r")
	// inputResponses that is not an object is refused.
	r := c.modernCall(22, "tools/call", sampleCall("x", map[string]any{questions.ParamInputResponses: []int{1}}), nil).last(t)
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("inputResponses array: %s", r.Result)
	}
	// Too many answers are refused.
	many := map[string]any{}
	for i := range questions.MaxResponses + 1 {
		many["k"+string(rune('a'+i%26))+string(rune('a'+i/26))] = json.RawMessage(annForm)
	}
	r = c.modernCall(23, "tools/call", sampleCall("x", map[string]any{questions.ParamInputResponses: many}), nil).last(t)
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "over the limit") {
		t.Errorf("too many answers: %+v %s", r.Error, r.Result)
	}
	if got := completeText(t, c.modernCall(30, "tools/call", sampleCall("x", answers(ir.RequestState, good...)), nil)); got != "name=Ann|hi there|file:///srv/music" {
		t.Errorf("good answers: %q", got)
	}
}

// TestRoundAtAnotherGateway retries at a second server with the same state key: it needs
// nothing of the first. A server with another key refuses the state.
func TestRoundAtAnotherGateway(t *testing.T) {
	t.Parallel()
	shared := []byte("a key shared by the fleet, 32 bytes or so")
	groups := []*hootv1.ClientRequest{nameForm("user_name", "name")}
	_, b1, c1 := newRoundServer(t, shared, groups)
	_, b2, c2 := newRoundServer(t, shared, groups)
	_, _, c3 := newRoundServer(t, []byte("another key of at least sixteen bytes"), groups)
	ir := askedOf(t, c1.modernCall(1, "tools/call", sampleCall("x", nil), nil), "user_name")
	checkStateRefused(t, "another key", c3.modernCall(2, "tools/call", sampleCall("x", answers(ir.RequestState, "user_name", annForm)), nil), "--state-key")
	if got := completeText(t, c2.modernCall(3, "tools/call", sampleCall("x", answers(ir.RequestState, "user_name", annForm)), nil)); got != "name=Ann" {
		t.Errorf("retry at the second server: %q", got)
	}
	if b1.calls.Load() != 1 || b2.calls.Load() != 1 {
		t.Errorf("handler runs %d, %d; want 1, 1", b1.calls.Load(), b2.calls.Load())
	}
}

func TestRoundPrompt(t *testing.T) {
	t.Parallel()
	_, b, c := newRoundServer(t, nil)
	b.override = func(ctx context.Context, _ string, _ *hootv1.Payload) (*hootv1.Result, error) {
		res, err := callOf(ctx).Ask(ctx, nameForm("user_context", "context"))
		if err != nil {
			return nil, err
		}
		return fixtureResult(&conformancev1.Result{Result: &conformancev1.Result_ConformancePrompt{ConformancePrompt: &conformancev1.ConformancePromptResult{
			Messages: []*hootv1.PromptMessage{{Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: "ctx " + answerText(res)}}}},
		}}}), nil
	}
	p := map[string]any{"name": "test_simple_prompt", "_meta": capsMeta(allCaps())}
	ir := askedOf(t, c.modernCall(1, "prompts/get", p, nil), "user_context")
	p = map[string]any{"name": "test_simple_prompt", "_meta": capsMeta(allCaps())}
	for k, v := range answers(ir.RequestState, "user_context", `{"action":"accept","content":{"context":"jigs"}}`) {
		p[k] = v
	}
	r := c.modernCall(2, "prompts/get", p, nil).last(t)
	if r.Error != nil || !strings.Contains(string(r.Result), `"text":"ctx context=jigs"`) || !strings.Contains(string(r.Result), `"resultType":"complete"`) {
		t.Errorf("prompt after the answer: %+v %s", r.Error, r.Result)
	}
	// The state of a prompt is not a tool's.
	tp := sampleCall("x", answers(ir.RequestState, "user_context", annForm))
	if r := c.modernCall(3, "tools/call", tp, nil).last(t); r.Error == nil || !strings.Contains(r.Error.Message, "prompts/get") {
		t.Errorf("a prompt's state at tools/call: %+v %s", r.Error, r.Result)
	}
}

// TestRoundAfterConfirmation runs a tool that a person confirms and whose handler then asks:
// the confirmation is asked once, and the state of the handler's round remembers it.
func TestRoundAfterConfirmation(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) { c.Tools = confirmTools() })
	ask := asking([]*hootv1.ClientRequest{nameForm("user_name", "name")})
	b.override = func(ctx context.Context, svc string, p *hootv1.Payload) (*hootv1.Result, error) {
		res, err := ask(ctx, svc, p)
		if err != nil {
			return nil, err
		}
		text := carriedResult(res).GetConformanceContent().GetContent()[0].GetText()
		return &hootv1.Result{Result: &hootv1.Result_Echo{Echo: &hootv1.EchoResult{Message: text}}}, nil
	}
	c := newMCPHTTP(t, s)
	call := func(extra map[string]any) map[string]any {
		p := map[string]any{"name": "wipe", "arguments": map[string]any{"message": "m"}, "_meta": capsMeta(allCaps())}
		for k, v := range extra {
			p[k] = v
		}
		return p
	}
	ir, key := inputRequiredOf(t, c.modernCall(1, "tools/call", call(nil), nil))
	if !strings.HasPrefix(key, consent.ConfirmKeyPrefix) || b.calls.Load() != 0 {
		t.Fatalf("round 1 asked %q after %d runs", key, b.calls.Load())
	}
	r2 := askedOf(t, c.modernCall(2, "tools/call", call(retryWith(key, ir.RequestState, acceptTicked)), nil), "user_name")
	got := completeText(t, c.modernCall(3, "tools/call", call(answers(r2.RequestState, "user_name", annForm)), nil))
	if !strings.Contains(got, "name=Ann") || b.calls.Load() != 2 {
		t.Errorf("result %q after %d runs", got, b.calls.Load())
	}
	// The confirmed call runs once per state at this server: the same retry again is refused.
	checkStateRefused(t, "replayed", c.modernCall(4, "tools/call", call(answers(r2.RequestState, "user_name", annForm)), nil), "already used")
	if b.calls.Load() != 2 {
		t.Errorf("the replay ran the handler: %d runs", b.calls.Load())
	}
}

// TestRootsOldEra asks for roots in 2025-11-25: a roots/list request to a client that declared
// roots, a refusal for one that did not.
func TestRootsOldEra(t *testing.T) {
	t.Parallel()
	for _, declared := range []bool{true, false} {
		s, b := newTestServer(t, nil)
		b.override = asking([]*hootv1.ClientRequest{rootsQ("r"), sampleQ("s", "p")})
		c := newMCPStdio(t, s)
		caps := `{}`
		if declared {
			caps = `{"roots":{}}`
		}
		c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":` + caps + `,"clientInfo":{"name":"t","version":"0"}}}`)
		c.recv()
		c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		c.send(request(1, "tools/call", map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "x"}}))
		want := 1
		if declared {
			want = 2
		}
		var text string
		for range want + 1 {
			r := c.recv()
			switch r.Method {
			case questions.MethodRootsList:
				c.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":` + rootsReply + `}`)
				want--
			case questions.MethodCreateMessage:
				c.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":` + sampledHi + `}`)
				want--
			default:
				tr := toolResultOf(t, r)
				text = tr.text()
			}
			if text != "" {
				break
			}
		}
		switch {
		case declared && text != "file:///srv/music|hi there":
			t.Errorf("declared roots: %q", text)
		case !declared && !strings.HasPrefix(text, "refused: this client did not declare the roots capability"):
			t.Errorf("undeclared roots: %q", text)
		}
	}
}

// TestPromptAsksOldEra runs a prompt whose worker asks the user in 2025-11-25: the question is
// an elicitation/create request on the prompts/get's stream, as for a tool.
func TestPromptAsksOldEra(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, nil)
	b.override = func(ctx context.Context, _ string, _ *hootv1.Payload) (*hootv1.Result, error) {
		ask := callOf(ctx).Ask
		if ask == nil {
			return nil, hooteproto.NewError(hooteproto.CodeInternal, "no asker")
		}
		res, err := ask(ctx, nameForm("user_context", "context"))
		if err != nil {
			return nil, err
		}
		return fixtureResult(&conformancev1.Result{Result: &conformancev1.Result_ConformancePrompt{ConformancePrompt: &conformancev1.ConformancePromptResult{
			Messages: []*hootv1.PromptMessage{{Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: "ctx " + answerText(res)}}}},
		}}}), nil
	}
	c := newMCPStdio(t, s)
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{"elicitation":{}},"clientInfo":{"name":"t","version":"0"}}}`)
	c.recv()
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(request(1, "prompts/get", map[string]any{"name": "test_simple_prompt"}))
	r := c.recv()
	if r.Method != questions.MethodElicit || !strings.Contains(string(r.Params), "What is your context?") {
		t.Fatalf("first message = %+v, want elicitation/create", r)
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":{"action":"accept","content":{"context":"jigs"}}}`)
	r = c.recv()
	if r.Error != nil || !strings.Contains(string(r.Result), `"text":"ctx context=jigs"`) {
		t.Fatalf("prompt = %+v %s", r.Error, r.Result)
	}
}

// TestRoundResource asks from a resource's worker: resources/read answers input_required, and
// the retry reads the resource.
func TestRoundResource(t *testing.T) {
	t.Parallel()
	_, b, c := newRoundServer(t, nil)
	b.override = func(ctx context.Context, _ string, _ *hootv1.Payload) (*hootv1.Result, error) {
		res, err := callOf(ctx).Ask(ctx, rootsQ("where"))
		if err != nil {
			return nil, err
		}
		return fixtureResult(&conformancev1.Result{Result: &conformancev1.Result_ConformanceResource{ConformanceResource: &conformancev1.ConformanceResourceResult{
			Contents: []*hootv1.EmbeddedResource{{Uri: "test://static-text", MimeType: "text/plain",
				Contents: &hootv1.EmbeddedResource_Text{Text: "roots " + answerText(res)}}},
		}}}), nil
	}
	p := map[string]any{"uri": "test://static-text", "_meta": capsMeta(allCaps())}
	ir := askedOf(t, c.modernCall(1, "resources/read", p, nil), "where")
	if q := ir.InputRequests["where"]; q.Method != questions.MethodRootsList {
		t.Errorf("question = %s", q.Method)
	}
	p = map[string]any{"uri": "test://static-text", "_meta": capsMeta(allCaps())}
	for k, v := range answers(ir.RequestState, "where", rootsReply) {
		p[k] = v
	}
	r := c.modernCall(2, "resources/read", p, nil).last(t)
	if r.Error != nil || !strings.Contains(string(r.Result), `"text":"roots file:///srv/music"`) || !strings.Contains(string(r.Result), `"resultType":"complete"`) {
		t.Errorf("resource after the answer: %+v %s", r.Error, r.Result)
	}
	// Without roots declared, the failing read is -32021.
	p = map[string]any{"uri": "test://static-text", "_meta": capsMeta(map[string]any{})}
	a := c.modernCall(3, "resources/read", p, nil)
	if r := a.last(t); r.Error == nil || r.Error.Code != era.CodeMissingCapability || a.status != http.StatusBadRequest {
		t.Errorf("resource without roots: %d %s", a.status, a.body)
	}
}
