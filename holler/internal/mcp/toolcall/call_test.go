package toolcall

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/config"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/hooteproto"
)

// backend answers every call with answer and keeps the calls it was given.
type backend struct {
	mu     sync.Mutex
	calls  []hooteproto.Call
	answer func(c hooteproto.Call) *hootv1.Result
}

func (b *backend) Call(_ context.Context, c hooteproto.Call) (*hootv1.Result, error) {
	b.mu.Lock()
	b.calls = append(b.calls, c)
	b.mu.Unlock()
	return b.answer(c), nil
}

// host records the 2025-11-25 tasks that calls started.
type host struct{ started []*hootv1.JobStarted }

func (h *host) LegacyTaskCreated(id json.RawMessage, _ *sessions.Session, _ *hootv1hoot.Tool, js *hootv1.JobStarted) *jsonrpc.Response {
	h.started = append(h.started, js)
	return jsonrpc.NewResult(id, map[string]string{"task": js.GetJobId()})
}

// notes keeps the notifications of a call.
type notes struct {
	mu   sync.Mutex
	sent []*jsonrpc.Notification
}

func (n *notes) Notify(x *jsonrpc.Notification) {
	n.mu.Lock()
	n.sent = append(n.sent, x)
	n.mu.Unlock()
}

// newServer returns a Server over the product's tools whose backend is b.
func newServer(t *testing.T, b *backend, h Host) *Server {
	t.Helper()
	c, err := (&config.Config{Backend: b}).WithDefaults(hootv1hoot.Tools)
	if err != nil {
		t.Fatal(err)
	}
	states, err := reqstate.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	o := Options{Config: c, Tools: map[string]*hootv1hoot.Tool{}, Policy: consent.Policy{MaxTier: c.MaxTier}, States: states,
		ClientCalls: &sessions.Calls{}}
	for i := range c.Tools {
		tool := &c.Tools[i]
		if tool.Surface == hootv1.Surface_SURFACE_UNSPECIFIED {
			o.Tools[tool.Name] = tool
			if tool.Tier <= c.MaxTier {
				o.Allowed = append(o.Allowed, tool)
			}
		}
	}
	return New(h, o)
}

// session returns a 2025-11-25 session that is ready for calls, with 2025-11-25 tasks if
// withTasks.
func session(withTasks bool) *sessions.Session {
	sess := sessions.NewSession("s")
	var list *tasks.List
	if withTasks {
		list = &tasks.List{}
	}
	sess.Initialize(era.V20251125, sessions.Capabilities{}, list)
	sess.MarkReady()
	return sess
}

func call(id, params string) *jsonrpc.Message {
	return &jsonrpc.Message{ID: json.RawMessage(id), Method: "tools/call", Params: json.RawMessage(params)}
}

func echoResult(c hooteproto.Call) *hootv1.Result {
	return &hootv1.Result{Result: &hootv1.Result_Echo{Echo: &hootv1.EchoResult{Message: c.Payload.GetEcho().GetMessage(), Worker: "w"}}}
}

func TestCallToolAnswersWithTheTypedResultAndRelaysProgress(t *testing.T) {
	b := &backend{answer: func(c hooteproto.Call) *hootv1.Result {
		c.Progress(&hootv1.Progress{Progress: 1, Total: 2})
		c.Progress(&hootv1.Progress{Progress: 1, Total: 2}) // not more than before: dropped
		c.Progress(&hootv1.Progress{Log: &hootv1.LogEntry{Level: hootv1.LogLevel_LOG_LEVEL_ERROR, Message: "careful"}})
		c.Progress(&hootv1.Progress{Progress: 2, Total: 2})
		return echoResult(c)
	}}
	s := newServer(t, b, &host{})
	out := &notes{}
	resp := s.CallTool(context.Background(), session(false), call("1", `{"name":"echo","arguments":{"message":"hi"},"_meta":{"progressToken":"p"}}`), out)
	r, ok := resp.Result.(toolresult.Result)
	if resp.Error != nil || !ok || r.IsError {
		t.Fatalf("echo answered %+v", resp)
	}
	if got, _ := json.Marshal(r.StructuredContent); string(got) != `{"message":"hi","worker":"w"}` {
		t.Fatalf("structuredContent = %s", got)
	}
	if len(b.calls) != 1 || b.calls[0].Service != "system" || b.calls[0].AsJob || b.calls[0].Ask == nil {
		t.Fatalf("the backend was called with %+v", b.calls)
	}
	var progress []float64
	logs := 0
	for _, n := range out.sent {
		switch n.Method {
		case NotifyProgress:
			p := n.Params.(ProgressParams)
			if string(p.ProgressToken) != `"p"` {
				t.Fatalf("progress for token %s", p.ProgressToken)
			}
			progress = append(progress, p.Progress)
		case "notifications/message":
			logs++
		}
	}
	if len(progress) != 2 || progress[0] != 1 || progress[1] != 2 || logs != 1 {
		t.Fatalf("progress %v and %d log messages, want [1 2] and 1", progress, logs)
	}
}

func TestCallToolRefusesWhatNamesNoTool(t *testing.T) {
	b := &backend{answer: echoResult}
	s := newServer(t, b, &host{})
	sess := session(false)
	for _, tc := range []struct {
		params, field string
	}{
		{`{"arguments":{}}`, ""},
		{`{"name":"ecko","arguments":{"message":"hi"}}`, "echo"},
	} {
		resp := s.CallTool(context.Background(), sess, call("2", tc.params), nil)
		if resp.Error == nil || resp.Error.Code != jsonrpc.CodeInvalidParams {
			t.Fatalf("%s: want -32602, got %+v", tc.params, resp)
		}
		g, _ := resp.Error.Data.(*guidance.Data)
		if g == nil || g.Hint == "" || (tc.field != "" && (len(g.DidYouMean) == 0 || g.DidYouMean[0] != tc.field)) {
			t.Fatalf("%s: guidance %+v", tc.params, g)
		}
	}
	if len(b.calls) != 0 {
		t.Fatalf("a call that names no tool reached the backend: %+v", b.calls)
	}
	if s.Known([]byte(`{"name":"ecko"}`)) != "" || s.Known([]byte(`{"name":"echo"}`)) != "echo" {
		t.Fatal("Known does not tell the table's tools from others")
	}
}

func TestCallToolBadArgumentsNeverReachTheBackend(t *testing.T) {
	b := &backend{answer: echoResult}
	s := newServer(t, b, &host{})
	resp := s.CallTool(context.Background(), session(false), call("3", `{"name":"echo","arguments":{"message":""}}`), nil)
	r, ok := resp.Result.(toolresult.Result)
	if !ok || !r.IsError || len(b.calls) != 0 {
		t.Fatalf("an empty message answered %+v after %d backend calls", resp, len(b.calls))
	}
}

func TestCallToolHandsALegacyTaskToTheHost(t *testing.T) {
	b := &backend{answer: func(c hooteproto.Call) *hootv1.Result {
		return &hootv1.Result{Result: &hootv1.Result_JobStarted{JobStarted: &hootv1.JobStarted{JobId: "job_1", Tool: "echo"}}}
	}}
	h := &host{}
	s := newServer(t, b, h)
	resp := s.CallTool(context.Background(), session(true), call("4", `{"name":"echo","arguments":{"message":"hi"},"task":{}}`), nil)
	if len(b.calls) != 1 || !b.calls[0].AsJob {
		t.Fatalf("a call that asks for a task of an inline tool must run as a job: %+v", b.calls)
	}
	if len(h.started) != 1 || h.started[0].GetJobId() != "job_1" {
		t.Fatalf("the host was told of %v", h.started)
	}
	if got, _ := json.Marshal(resp.Result); string(got) != `{"task":"job_1"}` {
		t.Fatalf("the call answered %s, not the host's answer", got)
	}
}
