package mcp

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
)

// inputRequiredAnswer is an input_required result as a test reads it.
type inputRequiredAnswer struct {
	ResultType    string `json:"resultType"`
	InputRequests map[string]struct {
		Method string `json:"method"`
		Params struct {
			Mode            string         `json:"mode"`
			Message         string         `json:"message"`
			RequestedSchema map[string]any `json:"requestedSchema"`
		} `json:"params"`
	} `json:"inputRequests"`
	RequestState string `json:"requestState"`
}

// inputRequiredOf decodes an input_required result with one question, failing the test for
// any other answer, and returns it with the question's key.
func inputRequiredOf(t *testing.T, a *httpAnswer) (inputRequiredAnswer, string) {
	t.Helper()
	r := a.last(t)
	if r.Error != nil {
		t.Fatalf("want an input_required result, got error %d %s %v", r.Error.Code, r.Error.Message, r.Error.Data)
	}
	var ir inputRequiredAnswer
	if err := json.Unmarshal(r.Result, &ir); err != nil {
		t.Fatalf("decoding %s: %v", r.Result, err)
	}
	if ir.ResultType != questions.ResultTypeInputRequired || len(ir.InputRequests) != 1 || ir.RequestState == "" {
		t.Fatalf("want an input_required result with one question and a state, got %s", r.Result)
	}
	var key string
	for k := range ir.InputRequests {
		key = k
	}
	return ir, key
}

// elicitMeta is the _meta of a 2026-07-28 request whose client puts forms to its user.
func elicitMeta() map[string]any {
	return map[string]any{
		era.MetaProtocolVersion:    era.V20260728,
		era.MetaClientCapabilities: map[string]any{"elicitation": map[string]any{}},
	}
}

// wipeCall returns the params of a modern call of the confirmed tool wipe with message, plus
// extra members.
func wipeCall(message string, extra map[string]any) map[string]any {
	p := map[string]any{"name": "wipe", "arguments": map[string]any{"message": message}, "_meta": elicitMeta()}
	for k, v := range extra {
		p[k] = v
	}
	return p
}

// retryWith returns the members of a retry that answers question key of state with answer.
func retryWith(key, state, answer string) map[string]any {
	return map[string]any{
		questions.ParamRequestState:   state,
		questions.ParamInputResponses: map[string]any{key: json.RawMessage(answer)},
	}
}

const acceptTicked = `{"action":"accept","content":{"confirm":true}}`

func newInputServer(t *testing.T, key []byte) (*Server, *fakeBackend, *mcpHTTP) {
	t.Helper()
	s, b := newTestServer(t, func(c *Config) {
		c.Tools = confirmTools()
		c.StateKey = key
		c.MaxTier = hootv1.Tier_TIER_ADMIN // so that admin_echo can be called, and its state checked
	})
	return s, b, newMCPHTTP(t, s)
}

func TestInputRequiredConfirmation(t *testing.T) {
	t.Parallel()
	_, b, c := newInputServer(t, nil)

	a := c.modernCall(1, "tools/call", wipeCall("hello", nil), nil)
	ir, key := inputRequiredOf(t, a)
	if n := b.calls.Load(); n != 0 {
		t.Fatalf("the backend was called %d times before the person answered", n)
	}
	q := ir.InputRequests[key]
	if q.Method != questions.MethodElicit || q.Params.Mode != "form" || !strings.HasPrefix(key, consent.ConfirmKeyPrefix) {
		t.Errorf("question %q = %+v", key, q)
	}
	for _, w := range []string{"wipe", "Wipe the slate", "destructive", "message: \"hello\""} {
		if !strings.Contains(q.Params.Message, w) {
			t.Errorf("the question lacks %q: %s", w, q.Params.Message)
		}
	}
	props, _ := q.Params.RequestedSchema["properties"].(map[string]any)
	field, _ := props[consent.ConfirmField].(map[string]any)
	if field["type"] != "boolean" || field["default"] != false {
		t.Errorf("form = %v", q.Params.RequestedSchema)
	}
	if req, _ := q.Params.RequestedSchema["required"].([]any); len(req) != 1 || req[0] != consent.ConfirmField {
		t.Errorf("form's required = %v", q.Params.RequestedSchema["required"])
	}

	r := c.modernCall(2, "tools/call", wipeCall("hello", retryWith(key, ir.RequestState, acceptTicked)), nil).last(t)
	tr := toolResultOf(t, r)
	if tr.IsError || !strings.Contains(tr.text(), "hello") {
		t.Errorf("confirmed call = %s", r.Result)
	}
	var rt struct {
		ResultType string `json:"resultType"`
	}
	_ = json.Unmarshal(r.Result, &rt)
	if rt.ResultType != "complete" {
		t.Errorf("resultType of the confirmed call = %q", rt.ResultType)
	}
	if n := b.calls.Load(); n != 1 {
		t.Errorf("the backend was called %d times, want 1", n)
	}

	// The same answer again is a replay.
	a = c.modernCall(3, "tools/call", wipeCall("hello", retryWith(key, ir.RequestState, acceptTicked)), nil)
	checkStateRefused(t, "replayed", a, "already used")
	if n := b.calls.Load(); n != 1 {
		t.Errorf("after the replay the backend was called %d times, want 1", n)
	}
}

// checkStateRefused checks that a is the refusal of a requestState, that it says why (want)
// and that its hint says to call again without the state.
func checkStateRefused(t *testing.T, name string, a *httpAnswer, want string) {
	t.Helper()
	r := a.last(t)
	if r.Error == nil {
		t.Errorf("%s: want an error, got %s", name, r.Result)
		return
	}
	hint, _ := r.Error.Data["hint"].(string)
	if r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, want) || !strings.Contains(hint, "without requestState") {
		t.Errorf("%s: error %d %q, hint %q; want -32602 saying %q and a hint to call again without the state", name, r.Error.Code, r.Error.Message, hint, want)
	}
}

func TestInputRequiredRefusals(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		answer      string
		wantOutcome string
		wantText    string
	}{
		{"declined", `{"action":"decline"}`, consent.OutcomeDeclined, "declined"},
		{"cancelled", `{"action":"cancel"}`, consent.OutcomeCancelled, "dismissed"},
		{"accepted unticked", `{"action":"accept","content":{"confirm":false}}`, consent.OutcomeNotConfirmed, "without ticking"},
		{"accepted without content", `{"action":"accept"}`, consent.OutcomeNotConfirmed, "without ticking"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, b, c := newInputServer(t, nil)
			ir, key := inputRequiredOf(t, c.modernCall(1, "tools/call", wipeCall("hello", nil), nil))
			r := c.modernCall(2, "tools/call", wipeCall("hello", retryWith(key, ir.RequestState, tc.answer)), nil).last(t)
			checkRefusal(t, r, tc.wantOutcome, consent.ConfirmationRequired, []string{tc.wantText, "did not run"})
			if n := b.calls.Load(); n != 0 {
				t.Errorf("the backend was called %d times", n)
			}
		})
	}
}

func TestInputRequiredBadStates(t *testing.T) {
	t.Parallel()
	_, b, c := newInputServer(t, nil)
	ir, key := inputRequiredOf(t, c.modernCall(1, "tools/call", wipeCall("hello", nil), nil))
	state := ir.RequestState

	// Flip one character of the payload, keeping it base64url.
	parts := strings.Split(state, ".")
	p := []byte(parts[1])
	if p[5] == 'A' {
		p[5] = 'B'
	} else {
		p[5] = 'A'
	}
	altered := parts[0] + "." + string(p) + "." + parts[2]

	tests := []struct {
		name   string
		params map[string]any
		want   string
	}{
		{"tampered", wipeCall("hello", retryWith(key, altered, acceptTicked)), "not signed by this server's key"},
		{"suffixed", wipeCall("hello", retryWith(key, state+"-TAMPERED", acceptTicked)), "not signed by this server's key"},
		{"garbage", wipeCall("hello", retryWith(key, "hello", acceptTicked)), "not signed by this server's key"},
		{"other arguments", wipeCall("goodbye", retryWith(key, state, acceptTicked)), "other arguments"},
		{"other tool", map[string]any{"name": "admin_echo", "arguments": map[string]any{"message": "hello"}, "_meta": elicitMeta(),
			questions.ParamRequestState: state, questions.ParamInputResponses: map[string]any{key: json.RawMessage(acceptTicked)}}, "another tool"},
	}
	for i, tc := range tests {
		checkStateRefused(t, tc.name, c.modernCall(10+i, "tools/call", tc.params, nil), tc.want)
	}
	if n := b.calls.Load(); n != 0 {
		t.Errorf("the backend was called %d times", n)
	}
	// None of those used the state up: the right retry still runs the call.
	tr := toolResultOf(t, c.modernCall(20, "tools/call", wipeCall("hello", retryWith(key, state, acceptTicked)), nil).last(t))
	if tr.IsError || b.calls.Load() != 1 {
		t.Errorf("the right retry after the refused ones: %q, %d backend calls", tr.text(), b.calls.Load())
	}
}

func TestInputRequiredExpiry(t *testing.T) {
	t.Parallel()
	s, b, c := newInputServer(t, nil)
	var mu sync.Mutex
	now := time.Now()
	s.states.SetClock(func() time.Time { mu.Lock(); defer mu.Unlock(); return now })
	ir, key := inputRequiredOf(t, c.modernCall(1, "tools/call", wipeCall("hello", nil), nil))
	mu.Lock()
	now = now.Add(reqstate.TTL + time.Second)
	mu.Unlock()
	checkStateRefused(t, "expired", c.modernCall(2, "tools/call", wipeCall("hello", retryWith(key, ir.RequestState, acceptTicked)), nil), "expired")
	if n := b.calls.Load(); n != 0 {
		t.Errorf("the backend was called %d times", n)
	}
}

func TestInputRequiredAsksAgain(t *testing.T) {
	t.Parallel()
	_, b, c := newInputServer(t, nil)
	ir, key := inputRequiredOf(t, c.modernCall(1, "tools/call", wipeCall("hello", nil), nil))
	// The state without the answer, or with the answer under another key: asked again, with a
	// question of its own.
	for i, extra := range []map[string]any{
		{questions.ParamRequestState: ir.RequestState},
		retryWith("something-else", ir.RequestState, acceptTicked),
		{questions.ParamRequestState: ir.RequestState, questions.ParamInputResponses: nil},
		{questions.ParamInputResponses: map[string]any{key: json.RawMessage(acceptTicked)}}, // no state: a first call
	} {
		again, key2 := inputRequiredOf(t, c.modernCall(2+i, "tools/call", wipeCall("hello", extra), nil))
		if key2 == key || again.RequestState == ir.RequestState {
			t.Errorf("retry %d was asked the same question again", i)
		}
	}
	// A malformed answer is a protocol error.
	for i, ans := range []string{`12345`, `{"action":"maybe"}`} {
		r := c.modernCall(10+i, "tools/call", wipeCall("hello", retryWith(key, ir.RequestState, ans)), nil).last(t)
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("answer %s: want -32602, got %s", ans, r.Result)
		}
	}
	if n := b.calls.Load(); n != 0 {
		t.Errorf("the backend was called %d times", n)
	}
}

func TestInputRequiredNeedsElicitation(t *testing.T) {
	t.Parallel()
	_, b, c := newInputServer(t, nil)
	p := wipeCall("hello", nil)
	p["_meta"] = modernMetaOf(era.V20260728) // declares no capabilities
	r := c.modernCall(1, "tools/call", p, nil).last(t)
	checkRefusal(t, r, consent.OutcomeCannotElicit, consent.ConfirmationRequired, []string{"clientCapabilities", "--confirm never"})
	if n := b.calls.Load(); n != 0 {
		t.Errorf("the backend was called %d times", n)
	}
}

func TestInputRequiredAcrossServers(t *testing.T) {
	t.Parallel()
	shared := []byte("a key shared by the fleet, 32 bytes or so")
	_, b1, c1 := newInputServer(t, shared)
	_, b2, c2 := newInputServer(t, shared)
	_, b3, c3 := newInputServer(t, []byte("another key of at least sixteen bytes"))

	ir, key := inputRequiredOf(t, c1.modernCall(1, "tools/call", wipeCall("hello", nil), nil))
	checkStateRefused(t, "another key", c3.modernCall(2, "tools/call", wipeCall("hello", retryWith(key, ir.RequestState, acceptTicked)), nil), "--state-key")
	tr := toolResultOf(t, c2.modernCall(3, "tools/call", wipeCall("hello", retryWith(key, ir.RequestState, acceptTicked)), nil).last(t))
	if tr.IsError {
		t.Errorf("the retry at a server with the same key: %s", tr.text())
	}
	if b1.calls.Load() != 0 || b2.calls.Load() != 1 || b3.calls.Load() != 0 {
		t.Errorf("backend calls %d, %d, %d; want 0, 1, 0", b1.calls.Load(), b2.calls.Load(), b3.calls.Load())
	}
}

func TestStateKeyTooShort(t *testing.T) {
	t.Parallel()
	if _, err := NewServer(&Config{Backend: newFakeBackend(), StateKey: []byte("short")}); err == nil {
		t.Error("NewServer took a 5-byte state key")
	}
}

// Refusals are not remembered: clients that decline cannot fill the set of used states and
// lock out the accepted answers of others.
func TestDeclinesDoNotFillUsedStates(t *testing.T) {
	t.Parallel()
	s, b, c := newInputServer(t, nil)
	s.states.SetMaxUsed(3)
	for i := range 3 {
		ir, key := inputRequiredOf(t, c.modernCall(10*i, "tools/call", wipeCall("x", nil), nil))
		c.modernCall(10*i+1, "tools/call", wipeCall("x", retryWith(key, ir.RequestState, `{"action":"decline"}`)), nil)
	}
	ir, key := inputRequiredOf(t, c.modernCall(100, "tools/call", wipeCall("hello", nil), nil))
	r := c.modernCall(101, "tools/call", wipeCall("hello", retryWith(key, ir.RequestState, acceptTicked)), nil).last(t)
	if r.Error != nil || b.calls.Load() != 1 {
		t.Errorf("an accepted call after 3 declines (room for 3 answers): error %+v, backend calls %d", r.Error, b.calls.Load())
	}
}
