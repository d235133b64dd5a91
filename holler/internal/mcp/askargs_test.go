package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"

	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
	"github.com/hootenanny/hoot/holler/internal/mcp/toollist"
	"github.com/hootenanny/hoot/hooteproto"
)

// askTools returns the schema's tools with two more made of test_tool_with_task, whose name a
// person supplies when the caller leaves it out: ask_plain, which need not run as a task, and
// ask_confirm, which a person also confirms.
func askTools(t *testing.T) []hootv1hoot.Tool {
	t.Helper()
	tools := append([]hootv1hoot.Tool(nil), testTools...)
	var base hootv1hoot.Tool
	for _, x := range tools {
		if x.Name == "test_tool_with_task" {
			base = x
		}
	}
	if len(base.Elicit) != 1 || base.Elicit[0].Name != "name" || !base.TaskRequired {
		t.Fatalf("test_tool_with_task = %+v, want a task-required tool whose name is elicited", base)
	}
	plain := base
	plain.Name, plain.TaskRequired = "ask_plain", false
	confirm := plain
	confirm.Name, confirm.Confirm = "ask_confirm", true
	confirm.Annotations = hootv1hoot.Annotations{Destructive: true}
	return append(tools, plain, confirm)
}

// askBackend serves the calls of test_tool_with_task and its copies as jobs in a jobTable, and
// records the name each call reached it with. ask, when set, is asked of the client first.
type askBackend struct {
	*fakeBackend
	jt *jobTable

	mu    sync.Mutex
	names []string
	ask   *hootv1.ClientRequest
}

func newAskBackend() *askBackend {
	jt := newJobTable()
	b := &askBackend{fakeBackend: jt.backend(), jt: jt}
	tasks := b.override
	b.override = func(ctx context.Context, service string, p *hootv1.Payload) (*hootv1.Result, error) {
		x, ok := requestOf(p).(*conformancev1.Payload_TestToolWithTask)
		if !ok {
			return tasks(ctx, service, p)
		}
		name := x.TestToolWithTask.GetName()
		b.mu.Lock()
		b.names = append(b.names, name)
		ask := b.ask
		b.mu.Unlock()
		if ask != nil {
			// As a worker's handler asks, through the call's ClientAsker.
			if _, err := callOf(ctx).Ask(ctx, ask); err != nil {
				return &hootv1.Result{Result: &hootv1.Result_Error{Error: hooteproto.ToolErrorOf(err)}}, nil
			}
		}
		return jt.start("test_tool_with_task", func(j *hootv1.Job) {
			j.Status, j.Result, j.ToolAnswered = hootv1.JobStatus_JOB_STATUS_SUCCEEDED, contentResult("Hello, "+name+"!"), true
		}), nil
	}
	return b
}

func (b *askBackend) seen() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.names...)
}

func newAskServer(t *testing.T) (*askBackend, *mcpHTTP) {
	t.Helper()
	b := newAskBackend()
	s, err := NewServer(&Config{Backend: b, Tools: askTools(t), MaxTier: hootv1.Tier_TIER_STANDARD})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return b, newMCPHTTP(t, s)
}

// askCall returns the params of a modern call of tool with args, whose client declares caps,
// plus extra members.
func askCall(tool string, args map[string]any, caps map[string]any, extra map[string]any) map[string]any {
	meta := modernMetaOf(era.V20260728)
	meta[era.MetaClientCapabilities] = caps
	p := map[string]any{"name": tool, "arguments": args, "_meta": meta}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// elicitAndTasks are the capabilities of a client that puts forms to its user and runs tasks.
func elicitAndTasks() map[string]any {
	return map[string]any{"elicitation": map[string]any{}, "extensions": map[string]any{tasks.Extension: map[string]any{}}}
}

// argumentsRefusedOf checks that r refuses the call for want of the arguments asked, with the
// outcome in its data and a hint to pass them.
func argumentsRefusedOf(t *testing.T, r rpcResponse, outcome string) refusedResult {
	t.Helper()
	rr := refusedOf(t, r)
	g := rr.Meta.Guidance
	if !rr.IsError || g.Policy.Outcome != outcome || len(g.Policy.Asked) != 1 || g.Policy.Asked[0] != "name" ||
		g.Policy.Confirmation != consent.ConfirmationNotRequired || !strings.Contains(g.Hint, "Pass name in the arguments") {
		t.Errorf("refusal = %q, data %+v; want outcome %s, asked [name] and a hint to pass name", rr.text(), g, outcome)
	}
	return rr
}

// TestAskArgumentsModern drives the MRTR-then-task composition: a call of a task-required tool
// that leaves out an elicited argument is asked for it in an input_required round, before
// anything reaches a worker, and the retry with the answer creates the task.
func TestAskArgumentsModern(t *testing.T) {
	t.Parallel()
	b, c := newAskServer(t)

	ir, key := inputRequiredOf(t, c.modernCall(1, "tools/call", askCall("test_tool_with_task", map[string]any{}, elicitAndTasks(), nil), nil))
	if n := b.calls.Load(); n != 0 {
		t.Fatalf("the backend was called %d times before the person answered", n)
	}
	q := ir.InputRequests[key]
	if !strings.HasPrefix(key, consent.ArgumentsKeyPrefix) || q.Method != questions.MethodElicit || q.Params.Mode != "form" ||
		!strings.Contains(q.Params.Message, "test_tool_with_task") || !strings.Contains(q.Params.Message, "name") {
		t.Errorf("question %q = %+v", key, q)
	}
	props, _ := q.Params.RequestedSchema["properties"].(map[string]any)
	name, _ := props["name"].(map[string]any)
	if len(props) != 1 || name["type"] != "string" || name["title"] != "Name" || name["maxLength"] != float64(200) || name["minLength"] != float64(1) {
		t.Errorf("form = %v", q.Params.RequestedSchema)
	}
	if req, _ := q.Params.RequestedSchema["required"].([]any); len(req) != 1 || req[0] != "name" {
		t.Errorf("form's required = %v", q.Params.RequestedSchema["required"])
	}
	var round1 map[string]any
	_ = json.Unmarshal(c.modernCall(9, "tools/call", askCall("test_tool_with_task", map[string]any{}, elicitAndTasks(), nil), nil).last(t).Result, &round1)
	if _, ok := round1["taskId"]; ok {
		t.Errorf("round 1 carries a taskId: %v", round1)
	}

	a := c.modernCall(2, "tools/call", askCall("test_tool_with_task", map[string]any{}, elicitAndTasks(),
		retryWith(key, ir.RequestState, `{"action":"accept","content":{"name":"Alice"}}`)), nil)
	got := taskAnswer(t, "round 2", a)
	if got["resultType"] != tasks.ResultTypeTask || got["taskId"] == nil || got["requestState"] != nil || got["inputRequests"] != nil {
		t.Fatalf("round 2 = %v, want a CreateTaskResult without requestState and inputRequests", got)
	}
	if names := b.seen(); len(names) != 1 || names[0] != "Alice" {
		t.Fatalf("the worker saw names %q, want [Alice]", names)
	}
	done := taskAnswer(t, "tasks/get", c.taskCall(3, methodTasksGet, got["taskId"].(string), nil))
	if done["status"] != tasks.Completed || !strings.Contains(string(mustJSON(t, done["result"])), "Hello, Alice!") {
		t.Errorf("tasks/get = %v", done)
	}

	// A caller that passes the argument is not asked.
	direct := createTask(t, c, 4, "test_tool_with_task", map[string]any{"name": "Bob"})
	if names := b.seen(); len(names) != 2 || names[1] != "Bob" || direct["taskId"] == nil {
		t.Errorf("a call with the argument: names %q, answer %v", names, direct)
	}
}

// TestAskArgumentsModernRefusals covers the answers that do not run the call, none of which
// reaches a worker: a declined or dismissed form, a client that cannot be asked, a tampered
// state, and answers that break the field's rules.
func TestAskArgumentsModernRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		answer    string
		tamper    bool
		caps      map[string]any
		wantCode  int    // a JSON-RPC error, when not zero
		outcome   string // a refusal by the policy, when not empty
		wantField string // a bad answer, when not empty
		wantText  []string
	}{
		{name: "declined", answer: `{"action":"decline"}`, outcome: consent.OutcomeDeclined, wantText: []string{"declined", "did not run"}},
		{name: "cancelled", answer: `{"action":"cancel"}`, outcome: consent.OutcomeCancelled, wantText: []string{"dismissed"}},
		{name: "client without elicitation", caps: map[string]any{"extensions": map[string]any{tasks.Extension: map[string]any{}}},
			outcome: consent.OutcomeCannotElicit, wantText: []string{"declare no elicitation", "supports elicitation"}},
		{name: "tampered state", answer: `{"action":"accept","content":{"name":"Alice"}}`, tamper: true, wantCode: jsonrpc.CodeInvalidParams},
		{name: "too long", answer: `{"action":"accept","content":{"name":"` + strings.Repeat("a", 201) + `"}}`,
			wantField: "name", wantText: []string{"at most 200", "pass name in the arguments yourself"}},
		{name: "empty", answer: `{"action":"accept","content":{"name":""}}`, wantField: "name", wantText: []string{"without filling name"}},
		{name: "left out", answer: `{"action":"accept","content":{}}`, wantField: "name", wantText: []string{"without filling name"}},
		{name: "wrong type", answer: `{"action":"accept","content":{"name":42}}`, wantField: "name", wantText: []string{"string"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, c := newAskServer(t)
			caps := tc.caps
			if caps == nil {
				caps = elicitAndTasks()
			}
			a := c.modernCall(1, "tools/call", askCall("test_tool_with_task", map[string]any{}, caps, nil), nil)
			if tc.answer != "" {
				ir, key := inputRequiredOf(t, a)
				state := ir.RequestState
				if tc.tamper {
					state = state[:len(state)-2] + "AA"
				}
				a = c.modernCall(2, "tools/call", askCall("test_tool_with_task", map[string]any{}, caps, retryWith(key, state, tc.answer)), nil)
			}
			if n := b.calls.Load(); n != 0 {
				t.Errorf("the backend was called %d times", n)
			}
			r := a.last(t)
			var text string
			switch {
			case tc.wantCode != 0:
				if r.Error == nil || r.Error.Code != tc.wantCode {
					t.Fatalf("answer = %s %+v, want error %d", r.Result, r.Error, tc.wantCode)
				}
				text = r.Error.Message
			case tc.outcome != "":
				rr := argumentsRefusedOf(t, r, tc.outcome)
				text = rr.text()
			default:
				bad := resultOf[struct {
					toolResult
					Meta struct {
						Guidance guidance.Data `json:"hootenanny/guidance"`
					} `json:"_meta"`
				}](t, r)
				text = bad.text()
				g := bad.Meta.Guidance
				if !bad.IsError || g.Field != tc.wantField || g.Tool != "test_tool_with_task" || !strings.Contains(g.Hint, "without requestState") ||
					len(g.Example) == 0 || !strings.Contains(text, "the person's answer for") {
					t.Errorf("bad answer = %q, guidance %+v", text, g)
				}
			}
			for _, w := range tc.wantText {
				if !strings.Contains(text, w) {
					t.Errorf("answer lacks %q: %s", w, text)
				}
			}
		})
	}
}

// TestAskArgumentsWithConfirmation asks one form for both the confirmation and the argument.
func TestAskArgumentsWithConfirmation(t *testing.T) {
	t.Parallel()
	b, c := newAskServer(t)
	caps := map[string]any{"elicitation": map[string]any{}}
	ir, key := inputRequiredOf(t, c.modernCall(1, "tools/call", askCall("ask_confirm", map[string]any{}, caps, nil), nil))
	q := ir.InputRequests[key]
	props, _ := q.Params.RequestedSchema["properties"].(map[string]any)
	req, _ := q.Params.RequestedSchema["required"].([]any)
	if !strings.HasPrefix(key, consent.ConfirmKeyPrefix) || props["name"] == nil || props[consent.ConfirmField] == nil || len(req) != 2 ||
		!strings.Contains(q.Params.Message, "destructive") || !strings.Contains(q.Params.Message, "only you can give: name") {
		t.Fatalf("question %q = %+v", key, q)
	}
	// Unticked: refused as the confirmation's refusal, whatever the name.
	r := c.modernCall(2, "tools/call", askCall("ask_confirm", map[string]any{}, caps,
		retryWith(key, ir.RequestState, `{"action":"accept","content":{"name":"Carol","confirm":false}}`)), nil).last(t)
	checkRefusal(t, r, consent.OutcomeNotConfirmed, consent.ConfirmationRequired, nil)
	if n := b.calls.Load(); n != 0 {
		t.Fatalf("the backend was called %d times", n)
	}

	ir, key = inputRequiredOf(t, c.modernCall(3, "tools/call", askCall("ask_confirm", map[string]any{}, caps, nil), nil))
	r = c.modernCall(4, "tools/call", askCall("ask_confirm", map[string]any{}, caps,
		retryWith(key, ir.RequestState, `{"action":"accept","content":{"name":"Carol","confirm":true}}`)), nil).last(t)
	if tr := toolResultOf(t, r); tr.IsError {
		t.Fatalf("confirmed call = %s", tr.text())
	}
	if names := b.seen(); len(names) != 1 || names[0] != "Carol" {
		t.Errorf("the worker saw names %q, want [Carol]", names)
	}
	// The accepted state runs the call once.
	r = c.modernCall(5, "tools/call", askCall("ask_confirm", map[string]any{}, caps,
		retryWith(key, ir.RequestState, `{"action":"accept","content":{"name":"Carol","confirm":true}}`)), nil).last(t)
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || b.calls.Load() != 1 {
		t.Errorf("replayed answer = %s %+v, %d calls", r.Result, r.Error, b.calls.Load())
	}
}

// TestAskArgumentsLaterRound checks that the arguments a person supplied travel in the state
// of the call's later rounds: a handler that asks its own question runs again with the same
// name, and the person is not asked for it again.
func TestAskArgumentsLaterRound(t *testing.T) {
	t.Parallel()
	b, c := newAskServer(t)
	b.ask = &hootv1.ClientRequest{Key: "mood", Request: &hootv1.ClientRequest_Elicitation{Elicitation: &hootv1.ElicitationRequest{Message: "How are you?"}}}
	caps := map[string]any{"elicitation": map[string]any{}}
	ir, key := inputRequiredOf(t, c.modernCall(1, "tools/call", askCall("ask_plain", map[string]any{}, caps, nil), nil))
	ir2, key2 := inputRequiredOf(t, c.modernCall(2, "tools/call", askCall("ask_plain", map[string]any{}, caps,
		retryWith(key, ir.RequestState, `{"action":"accept","content":{"name":"Dora"}}`)), nil))
	if key2 != "mood" {
		t.Fatalf("round 2 asked %q, want the handler's question mood", key2)
	}
	r := c.modernCall(3, "tools/call", askCall("ask_plain", map[string]any{}, caps,
		retryWith(key2, ir2.RequestState, `{"action":"accept","content":{}}`)), nil).last(t)
	if tr := toolResultOf(t, r); tr.IsError {
		t.Fatalf("round 3 = %s", tr.text())
	}
	if names := b.seen(); len(names) != 2 || names[0] != "Dora" || names[1] != "Dora" {
		t.Errorf("the worker saw names %q, want Dora twice", names)
	}
}

// TestAskArgumentsLegacy asks for the argument with elicitation/create on the call's stream
// (2025-11-25), and checks that nothing reached the worker before the answer.
func TestAskArgumentsLegacy(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		caps     string
		answer   string // empty: the client must not be asked
		wantName string // the call runs with it, when not empty
		outcome  string
		wantText []string
	}{
		{name: "answered", caps: elicitCaps, answer: `{"action":"accept","content":{"name":"Erin"}}`, wantName: "Erin"},
		{name: "declined", caps: elicitCaps, answer: `{"action":"decline"}`, outcome: consent.OutcomeDeclined},
		{name: "client without elicitation", caps: `{}`, outcome: consent.OutcomeCannotElicit, wantText: []string{"did not declare the elicitation capability"}},
		{name: "out of bounds", caps: elicitCaps, answer: `{"action":"accept","content":{"name":"` + strings.Repeat("b", 300) + `"}}`,
			wantText: []string{"the person's answer for name", "at most 200"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			b, c := newAskServer(t)
			c.initializeWith(era.Latest, tc.caps)
			var callsWhenAsked int64 = -1
			r, asked := c.callAnswering(7, map[string]any{"name": "ask_plain", "arguments": map[string]any{}}, func(m rpcResponse) string {
				callsWhenAsked = b.calls.Load()
				if tc.answer == "" {
					t.Errorf("the client was asked: %s", m.Params)
					return answerWith(`{"action":"decline"}`)(m)
				}
				var p struct {
					RequestedSchema struct {
						Properties map[string]map[string]any `json:"properties"`
					} `json:"requestedSchema"`
				}
				_ = json.Unmarshal(m.Params, &p)
				if p.RequestedSchema.Properties["name"]["type"] != "string" || p.RequestedSchema.Properties[consent.ConfirmField] != nil {
					t.Errorf("form = %s", m.Params)
				}
				return answerWith(tc.answer)(m)
			})
			if tc.answer != "" && (len(asked) != 1 || callsWhenAsked != 0) {
				t.Errorf("asked %d times, with %d backend calls made before the answer", len(asked), callsWhenAsked)
			}
			switch {
			case tc.wantName != "":
				if tr := toolResultOf(t, r); tr.IsError {
					t.Fatalf("answered call = %s", tr.text())
				}
				if names := b.seen(); len(names) != 1 || names[0] != tc.wantName {
					t.Errorf("the worker saw names %q, want [%s]", names, tc.wantName)
				}
				return
			case tc.outcome != "":
				rr := argumentsRefusedOf(t, r, tc.outcome)
				for _, w := range tc.wantText {
					if !strings.Contains(rr.text(), w) {
						t.Errorf("refusal lacks %q: %s", w, rr.text())
					}
				}
			default:
				tr := toolResultOf(t, r)
				for _, w := range tc.wantText {
					if !tr.IsError || !strings.Contains(tr.text(), w) {
						t.Errorf("answer lacks %q: %s", w, tr.text())
					}
				}
			}
			if n := b.calls.Load(); n != 0 {
				t.Errorf("the backend was called %d times", n)
			}
		})
	}
}

// TestAskArgumentsListed checks that the input schema says the argument may be left out.
func TestAskArgumentsListed(t *testing.T) {
	t.Parallel()
	_, c := newAskServer(t)
	a := c.modernCall(1, "tools/list", map[string]any{}, nil)
	if a.status != http.StatusOK {
		t.Fatalf("tools/list: %d %s", a.status, a.body)
	}
	var list toollist.Result
	if err := json.Unmarshal(a.last(t).Result, &list); err != nil {
		t.Fatal(err)
	}
	for _, tool := range list.Tools {
		if tool.Name == "ask_plain" {
			s := string(tool.InputSchema)
			if strings.Contains(s, `"required"`) || !strings.Contains(s, "the person is asked for it") {
				t.Errorf("ask_plain's input schema = %s", s)
			}
			return
		}
	}
	t.Errorf("tools/list lacks ask_plain")
}

// TestAskArgumentsAcrossGateways answers at one gateway the question another asked, as a
// fleet behind one address does: the state is all they share.
func TestAskArgumentsAcrossGateways(t *testing.T) {
	t.Parallel()
	key := []byte("0123456789abcdef0123456789abcdef")
	b := newAskBackend()
	clients := make([]*mcpHTTP, 2)
	for i := range clients {
		s, err := NewServer(&Config{Backend: b, Tools: askTools(t), MaxTier: hootv1.Tier_TIER_STANDARD, StateKey: key})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		clients[i] = newMCPHTTP(t, s)
	}
	ir, qkey := inputRequiredOf(t, clients[0].modernCall(1, "tools/call", askCall("test_tool_with_task", map[string]any{}, elicitAndTasks(), nil), nil))
	got := taskAnswer(t, "round 2 at the other gateway", clients[1].modernCall(2, "tools/call", askCall("test_tool_with_task", map[string]any{}, elicitAndTasks(),
		retryWith(qkey, ir.RequestState, `{"action":"accept","content":{"name":"Fay"}}`)), nil))
	if got["resultType"] != tasks.ResultTypeTask {
		t.Fatalf("round 2 = %v", got)
	}
	done := taskAnswer(t, "tasks/get at the first gateway", clients[0].taskCall(3, methodTasksGet, got["taskId"].(string), nil))
	if done["status"] != tasks.Completed || !strings.Contains(string(mustJSON(t, done["result"])), "Hello, Fay!") {
		t.Errorf("tasks/get = %v", done)
	}
}
