package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/toollist"
)

// confirmTools is the generated table plus tools built on echo (so that the fake backend
// answers them) that exercise the policy: one destructive tool whose schema asks for
// confirmation, and one admin tool that does not ask but needs it all the same.
func confirmTools() []hootv1hoot.Tool {
	tools := append([]hootv1hoot.Tool(nil), testTools...)
	var echo hootv1hoot.Tool
	for _, t := range tools {
		if t.Name == "echo" {
			echo = t
		}
	}
	wipe := echo
	wipe.Name, wipe.Title, wipe.Confirm = "wipe", "Wipe the slate", true
	wipe.Annotations = hootv1hoot.Annotations{Destructive: true}
	admin := echo
	admin.Name, admin.Title, admin.Tier = "admin_echo", "Admin echo", hootv1.Tier_TIER_ADMIN
	return append(tools, wipe, admin)
}

// elicitCaps declares form elicitation, as a 2025-11-25 client does.
const elicitCaps = `{"elicitation":{"form":{}}}`

// answerWith returns an answer to a request of the server whose result is result.
func answerWith(result string) func(rpcResponse) string {
	return func(m rpcResponse) string {
		return `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":` + result + `}`
	}
}

// callAnswering posts a tools/call and reads its answer as it streams, answering every
// elicitation/create on it with the message answer returns, posted as a message of its own
// (none when it returns ""). It returns the call's response and the elicitation requests
// seen; c.stream keeps every other message of the stream.
func (c *mcpHTTP) callAnswering(id int, params any, answer func(req rpcResponse) string) (rpcResponse, []rpcResponse) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(request(id, "tools/call", params)))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	accept := c.accept
	if accept == "" {
		accept = "application/json, text/event-stream"
	}
	req.Header.Set("Accept", accept)
	req.Header.Set(headerSessionID, c.session)
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		c.t.Fatalf("tools/call: status %d", resp.StatusCode)
	}
	var asked []rpcResponse
	c.stream = nil
	handle := func(m rpcResponse) (rpcResponse, bool) {
		switch m.Method {
		case "":
			return m, true
		case questions.MethodElicit:
			asked = append(asked, m)
			if msg := answer(m); msg != "" {
				if a := c.post(msg, nil); a.status != http.StatusAccepted {
					c.t.Fatalf("answering elicitation/create: status %d: %s", a.status, a.body)
				}
			}
		default:
			c.stream = append(c.stream, m)
		}
		return m, false
	}
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		var m rpcResponse
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil {
			c.t.Fatalf("tools/call answer: %v", err)
		}
		return m, asked
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "" {
			continue
		}
		var m rpcResponse
		if err := json.Unmarshal([]byte(data), &m); err != nil {
			c.t.Fatalf("event is not JSON-RPC: %v: %q", err, data)
		}
		if r, done := handle(m); done {
			return r, asked
		}
	}
	c.t.Fatalf("the tools/call stream ended without a response: %v", sc.Err())
	return rpcResponse{}, nil
}

// refusedResult is a tool result that the policy refused, as a test reads it.
type refusedResult struct {
	toolResult
	Meta struct {
		Guidance struct {
			Hint   string           `json:"hint"`
			Tool   string           `json:"tool"`
			Policy consent.Decision `json:"policy"`
		} `json:"hootenanny/guidance"`
	} `json:"_meta"`
}

func refusedOf(t *testing.T, r rpcResponse) refusedResult {
	t.Helper()
	return resultOf[refusedResult](t, r)
}

// TestConfirmation calls tools through the policy over HTTP, with clients that answer the
// question in each way and clients that cannot be asked, and counts the calls that reach the
// backend: a refused call must reach none.
func TestConfirmation(t *testing.T) {
	t.Parallel()
	answer := answerWith
	accept := answer(`{"action":"accept","content":{"confirm":true}}`)
	wipeArgs := map[string]any{"name": "wipe", "arguments": map[string]any{"message": "hello"}}
	tests := []struct {
		name    string
		version string
		caps    string
		accept  string // the Accept header of the call; empty means JSON and event streams
		maxTier hootv1.Tier
		params  map[string]any
		answer  func(rpcResponse) string // nil: the test fails if the client is asked

		wantAsked   bool
		wantCalls   int64
		wantOutcome string // empty: the call is not refused
		wantConfirm string
		wantText    []string // in the refusal's text, hint included
	}{
		{name: "accepted", version: era.Latest, caps: elicitCaps, params: wipeArgs, answer: accept,
			wantAsked: true, wantCalls: 1},
		{name: "accepted, 2025-06-18", version: era.V20250618, caps: `{"elicitation":{}}`, params: wipeArgs, answer: accept,
			wantAsked: true, wantCalls: 1},
		{name: "empty elicitation object means form", version: era.Latest, caps: `{"elicitation":{}}`, params: wipeArgs, answer: accept,
			wantAsked: true, wantCalls: 1},
		{name: "declined", version: era.Latest, caps: elicitCaps, params: wipeArgs, answer: answer(`{"action":"decline"}`),
			wantAsked: true, wantOutcome: consent.OutcomeDeclined, wantConfirm: consent.ConfirmationRequired, wantText: []string{"declined", "did not run"}},
		{name: "declined, 2025-06-18", version: era.V20250618, caps: `{"elicitation":{}}`, params: wipeArgs, answer: answer(`{"action":"decline"}`),
			wantAsked: true, wantOutcome: consent.OutcomeDeclined, wantConfirm: consent.ConfirmationRequired},
		{name: "cancelled", version: era.Latest, caps: elicitCaps, params: wipeArgs, answer: answer(`{"action":"cancel"}`),
			wantAsked: true, wantOutcome: consent.OutcomeCancelled, wantConfirm: consent.ConfirmationRequired, wantText: []string{"dismissed"}},
		{name: "accepted without ticking confirm", version: era.Latest, caps: elicitCaps, params: wipeArgs,
			answer:    answer(`{"action":"accept","content":{"confirm":false}}`),
			wantAsked: true, wantOutcome: consent.OutcomeNotConfirmed, wantConfirm: consent.ConfirmationRequired, wantText: []string{"without ticking confirm"}},
		{name: "the client fails the question", version: era.Latest, caps: elicitCaps, params: wipeArgs,
			answer: func(m rpcResponse) string {
				return `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-1,"message":"the user closed the window"}}`
			},
			wantAsked: true, wantOutcome: consent.OutcomeUnanswered, wantConfirm: consent.ConfirmationRequired, wantText: []string{"retryable: yes"}},
		{name: "no elicitation capability", version: era.Latest, caps: `{"sampling":{}}`, params: wipeArgs,
			wantOutcome: consent.OutcomeCannotElicit, wantConfirm: consent.ConfirmationRequired,
			wantText: []string{"did not declare the elicitation capability", "--confirm never", "supports elicitation"}},
		{name: "url mode only", version: era.Latest, caps: `{"elicitation":{"url":{}}}`, params: wipeArgs,
			wantOutcome: consent.OutcomeCannotElicit, wantConfirm: consent.ConfirmationRequired},
		{name: "2025-03-26 has no elicitation", version: era.V20250326, caps: elicitCaps, params: wipeArgs,
			wantOutcome: consent.OutcomeCannotElicit, wantConfirm: consent.ConfirmationRequired, wantText: []string{"protocol 2025-03-26"}},
		{name: "an answer that cannot stream", version: era.Latest, caps: elicitCaps, accept: "application/json", params: wipeArgs,
			wantOutcome: consent.OutcomeCannotElicit, wantConfirm: consent.ConfirmationRequired, wantText: []string{"text/event-stream"}},
		{name: "admin tool confirmed though its schema does not ask", version: era.Latest, caps: elicitCaps, maxTier: hootv1.Tier_TIER_ADMIN,
			params: map[string]any{"name": "admin_echo", "arguments": map[string]any{"message": "hi"}}, answer: accept,
			wantAsked: true, wantCalls: 1},
		{name: "admin tool declined", version: era.Latest, caps: elicitCaps, maxTier: hootv1.Tier_TIER_ADMIN,
			params: map[string]any{"name": "admin_echo", "arguments": map[string]any{"message": "hi"}}, answer: answer(`{"action":"decline"}`),
			wantAsked: true, wantOutcome: consent.OutcomeDeclined, wantConfirm: consent.ConfirmationRequired},
		{name: "tier too high", version: era.Latest, caps: elicitCaps,
			params:      map[string]any{"name": "admin_echo", "arguments": map[string]any{"message": "hi"}},
			wantOutcome: consent.OutcomeTierTooHigh, wantConfirm: consent.ConfirmationRequired, wantText: []string{"--max-tier admin", "ADMIN"}},
		{name: "a standard tool is not confirmed", version: era.Latest, caps: elicitCaps,
			params: map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}}, wantCalls: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s, b := newTestServer(t, func(c *Config) {
				c.Tools = confirmTools()
				if tc.maxTier != 0 {
					c.MaxTier = tc.maxTier
				}
			})
			c := newMCPHTTP(t, s)
			c.initializeWith(tc.version, tc.caps)
			c.accept = tc.accept
			ans := tc.answer
			if ans == nil {
				ans = func(m rpcResponse) string {
					t.Errorf("the client was asked: %s", m.Params)
					return answerWith(`{"action":"decline"}`)(m)
				}
			}
			r, asked := c.callAnswering(7, tc.params, ans)
			if got := len(asked) > 0; got != tc.wantAsked {
				t.Errorf("asked = %v (%d questions), want %v", got, len(asked), tc.wantAsked)
			}
			if n := b.calls.Load(); n != tc.wantCalls {
				t.Errorf("the backend was called %d times, want %d", n, tc.wantCalls)
			}
			if tc.wantOutcome == "" {
				tr := toolResultOf(t, r)
				if tr.IsError {
					t.Errorf("allowed call = %q", tr.text())
				}
				return
			}
			checkRefusal(t, r, tc.wantOutcome, tc.wantConfirm, tc.wantText)
		})
	}
}

// checkRefusal checks that r refuses the call with outcome and confirmation in its data, and
// the texts want in its text.
func checkRefusal(t *testing.T, r rpcResponse, outcome, confirmation string, want []string) {
	t.Helper()
	rr := refusedOf(t, r)
	text := rr.text()
	g := rr.Meta.Guidance
	if !rr.IsError || !strings.Contains(text, "permission_denied") || !strings.Contains(text, "policy: ") {
		t.Errorf("refusal = %q", text)
	}
	if g.Policy.Outcome != outcome || g.Policy.Confirmation != confirmation || g.Hint == "" || g.Tool == "" ||
		g.Policy.Tier == "" || g.Policy.MaxTier == "" {
		t.Errorf("refusal data = %+v, want outcome %s and confirmation %s", g, outcome, confirmation)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("refusal text lacks %q:\n%s", w, text)
		}
	}
}

// TestConfirmationQuestion checks what the person is shown: the tool, its title, that it is
// destructive and the arguments, with a form of one boolean; that the tools/list description
// says a person is asked; and that a call whose arguments do not decode is never put to anyone.
func TestConfirmationQuestion(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) { c.Tools = confirmTools() })
	c := newMCPHTTP(t, s)
	c.initializeWith(era.Latest, elicitCaps)

	list := string(c.call(1, "tools/list", nil).Result)
	var listed toollist.Result
	if err := json.Unmarshal([]byte(list), &listed); err != nil {
		t.Fatal(err)
	}
	for _, d := range listed.Tools {
		if got, want := strings.Contains(d.Description, toollist.ConfirmNote), d.Name == "wipe"; got != want {
			t.Errorf("tools/list description of %s mentions confirmation: %v, want %v", d.Name, got, want)
		}
	}

	r, asked := c.callAnswering(2, map[string]any{"name": "wipe", "arguments": map[string]any{"message": "hello"}},
		answerWith(`{"action":"accept","content":{"confirm":true}}`))
	if tr := toolResultOf(t, r); tr.IsError || len(asked) != 1 {
		t.Fatalf("confirmed call = %q after %d questions", tr.text(), len(asked))
	}
	var q struct {
		Message         string `json:"message"`
		RequestedSchema struct {
			Type       string                    `json:"type"`
			Properties map[string]map[string]any `json:"properties"`
			Required   []string                  `json:"required"`
		} `json:"requestedSchema"`
	}
	if err := json.Unmarshal(asked[0].Params, &q); err != nil {
		t.Fatalf("elicitation/create params %s: %v", asked[0].Params, err)
	}
	for _, want := range []string{"wipe", "(Wipe the slate)", "destructive", `message: "hello"`} {
		if !strings.Contains(q.Message, want) {
			t.Errorf("the question lacks %q:\n%s", want, q.Message)
		}
	}
	box := q.RequestedSchema.Properties[consent.ConfirmField]
	if q.RequestedSchema.Type != "object" || len(q.RequestedSchema.Properties) != 1 || box["type"] != "boolean" ||
		box["default"] != false || len(q.RequestedSchema.Required) != 1 || q.RequestedSchema.Required[0] != consent.ConfirmField {
		t.Errorf("requestedSchema = %s", asked[0].Params)
	}

	// Arguments that do not decode are answered as such, and nobody is asked.
	r, asked = c.callAnswering(3, map[string]any{"name": "wipe", "arguments": map[string]any{"mesage": "hello"}},
		func(m rpcResponse) string {
			t.Errorf("a malformed call was put to the person: %s", m.Params)
			return answerWith(`{"action":"decline"}`)(m)
		})
	if tr := toolResultOf(t, r); !tr.IsError || !strings.Contains(tr.text(), "mesage") || len(asked) != 0 {
		t.Errorf("malformed call = %q", tr.text())
	}
	if n := b.calls.Load(); n != 1 {
		t.Errorf("the backend was called %d times, want once", n)
	}
}

// TestConfirmationUnanswered leaves the question unanswered: the wait ends with the call
// timeout, the client is told that the question is withdrawn, and the call is refused as
// retryable without reaching the backend.
func TestConfirmationUnanswered(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) {
		c.Tools = confirmTools()
		c.CallTimeout = 300 * time.Millisecond
	})
	c := newMCPHTTP(t, s)
	c.initializeWith(era.Latest, elicitCaps)
	r, asked := c.callAnswering(1, map[string]any{"name": "wipe", "arguments": map[string]any{"message": "hello"}},
		func(rpcResponse) string { return "" })
	checkRefusal(t, r, consent.OutcomeUnanswered, consent.ConfirmationRequired, []string{"did not answer in time", "retryable: yes"})
	if len(asked) != 1 {
		t.Fatalf("%d questions, want 1", len(asked))
	}
	withdrawn := false
	for _, m := range c.stream {
		if m.Method == notifyCancelled && strings.Contains(string(m.Params), `"requestId":`+string(asked[0].ID)) {
			withdrawn = true
		}
	}
	if !withdrawn {
		t.Errorf("no notifications/cancelled for the question %s on the stream: %+v", asked[0].ID, c.stream)
	}
	if n := b.calls.Load(); n != 0 {
		t.Errorf("the backend was called %d times", n)
	}
}

// TestNoConfirm turns confirmation off, as --confirm never does: a tool that needs it runs
// without asking, even for a client that cannot be asked, and tools/list does not promise a
// question.
func TestNoConfirm(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) {
		c.Tools = confirmTools()
		c.NoConfirm = true
	})
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)
	if list := c.call(1, "tools/list", nil); strings.Contains(string(list.Result), toollist.ConfirmNote) {
		t.Errorf("tools/list promises a question that will not be asked: %s", list.Result)
	}
	r, asked := c.callAnswering(2, map[string]any{"name": "wipe", "arguments": map[string]any{"message": "hello"}},
		func(m rpcResponse) string {
			t.Errorf("asked with confirmation off: %s", m.Params)
			return answerWith(`{"action":"decline"}`)(m)
		})
	if tr := toolResultOf(t, r); tr.IsError || len(asked) != 0 || b.calls.Load() != 1 {
		t.Errorf("call with confirmation off = %q, %d questions, %d backend calls", tr.text(), len(asked), b.calls.Load())
	}
}

// TestConfirmationOverStdio confirms a call over stdio, where the question and its answer
// share the connection with everything else.
func TestConfirmationOverStdio(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) { c.Tools = confirmTools() })
	c := newMCPStdio(t, s)
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{"elicitation":{}},"clientInfo":{"name":"test","version":"0"}}}`)
	if r := c.recv(); r.Error != nil {
		t.Fatalf("initialize: %+v", r.Error)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for i, action := range []string{"decline", "accept"} {
		c.send(request(i+1, "tools/call", map[string]any{"name": "wipe", "arguments": map[string]any{"message": "x"}}))
		q := c.recv()
		if q.Method != questions.MethodElicit {
			t.Fatalf("got %+v, want elicitation/create", q)
		}
		c.send(answerWith(`{"action":"` + action + `","content":{"confirm":true}}`)(q))
		tr := toolResultOf(t, c.recv())
		if tr.IsError != (action == "decline") {
			t.Errorf("%s: result = %q", action, tr.text())
		}
	}
	if n := b.calls.Load(); n != 1 {
		t.Errorf("the backend was called %d times, want once (the accepted call)", n)
	}
}

// TestConformanceFixturesNeedNoConfirmation keeps the conformance suite's tools callable: its
// client is not a person, and a fixture that needed confirmation would be refused.
func TestConformanceFixturesNeedNoConfirmation(t *testing.T) {
	t.Parallel()
	n := 0
	for i := range conformancev1hoot.Fixtures {
		tool := &conformancev1hoot.Fixtures[i]
		if tool.Service != conformancev1hoot.ConformanceServiceName {
			continue
		}
		n++
		if consent.NeedsConfirmation(tool) || tool.Tier > hootv1.Tier_TIER_STANDARD {
			t.Errorf("conformance fixture %s needs confirmation or a tier above standard (tier %v, confirm %v)", tool.Name, tool.Tier, tool.Confirm)
		}
	}
	if n == 0 {
		t.Error("no tool of the conformance service in the table")
	}
}
