package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
)

// bearerTransport adds a bearer token to every request.
type bearerTransport struct {
	token string
	base  http.RoundTripper
}

func (b bearerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return b.base.RoundTrip(r)
}

// guardedServer serves s behind access control with a token file holding a standard and an
// admin token, and returns a client factory for a token.
func guardedServer(t *testing.T, s *Server) (client func(token string) *mcpHTTP, standard, admin string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	standard, err := access.AddToken(p, "alice", hootv1.Tier_TIER_STANDARD)
	if err != nil {
		t.Fatal(err)
	}
	admin, err = access.AddToken(p, "root", hootv1.Tier_TIER_ADMIN)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := access.LoadTokens(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := access.NewGuard(access.Config{Tokens: toks})
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(g.Middleware(s.WriteAccessFailure, nil)(s))
	t.Cleanup(ts.Close)
	return func(token string) *mcpHTTP {
		return &mcpHTTP{t: t, url: ts.URL, client: &http.Client{Transport: bearerTransport{token, ts.Client().Transport}}}
	}, standard, admin
}

func TestAccessWithoutAToken(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	client, _, _ := guardedServer(t, s)
	for _, token := range []string{"", "hoot_wrong"} {
		a := client(token).post(initializeRequest(era.Latest), nil)
		if a.status != http.StatusUnauthorized || !strings.HasPrefix(a.header.Get("WWW-Authenticate"), `Bearer realm="holler"`) {
			t.Fatalf("token %q: status %d, WWW-Authenticate %q", token, a.status, a.header.Get("WWW-Authenticate"))
		}
		r := a.last(t)
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest {
			t.Fatalf("token %q: body %s is not a JSON-RPC error", token, a.body)
		}
		data := r.Error.Data
		if hint, _ := data["hint"].(string); !strings.Contains(hint, "holler token add") && !strings.Contains(hint, "operator") {
			t.Fatalf("token %q: the error does not say what to do: %s", token, a.body)
		}
	}
}

// TestAccessTierCap checks that a token's tier caps what its caller may list and call on top
// of MaxTier: a standard token neither sees nor calls an admin tool that the server serves,
// and an admin token calls it, after a person confirms it as before.
func TestAccessTierCap(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) {
		c.Tools = confirmTools()
		c.MaxTier = hootv1.Tier_TIER_ADMIN
	})
	client, standard, admin := guardedServer(t, s)
	adminCall := map[string]any{"name": "admin_echo", "arguments": map[string]any{"message": "hi"}}

	c := client(standard)
	c.initializeWith(era.Latest, elicitCaps)
	list := string(c.call(1, "tools/list", nil).Result)
	if strings.Contains(list, `"admin_echo"`) || !strings.Contains(list, `"echo"`) {
		t.Fatalf("tools/list for a standard token = %s", list)
	}
	a := c.post(request(2, "tools/call", adminCall), nil)
	if a.status != http.StatusForbidden {
		t.Fatalf("admin_echo with a standard token: status %d: %s", a.status, a.body)
	}
	if ch := a.header.Get("WWW-Authenticate"); !strings.Contains(ch, `error="insufficient_scope"`) {
		t.Fatalf("WWW-Authenticate = %q", ch)
	}
	r := a.last(t)
	if r.Error == nil || string(r.ID) != "2" || !strings.Contains(r.Error.Message, "needs tier admin") {
		t.Fatalf("403 body = %s", a.body)
	}
	var data struct {
		Hint   string           `json:"hint"`
		Tool   string           `json:"tool"`
		Policy consent.Decision `json:"policy"`
	}
	raw, _ := json.Marshal(r.Error.Data)
	if err := json.Unmarshal(raw, &data); err != nil {
		t.Fatal(err)
	}
	if data.Tool != "admin_echo" || data.Policy.Outcome != consent.OutcomeTokenTierTooLow || data.Policy.TokenTier != "standard" ||
		data.Policy.MaxTier != "admin" || !strings.Contains(data.Hint, "--tier admin") {
		t.Fatalf("403 data = %s", raw)
	}
	// A standard tool still works with a standard token.
	if tr := toolResultOf(t, c.call(3, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}})); tr.IsError {
		t.Fatalf("echo with a standard token: %s", tr.text())
	}
	if n := b.calls.Load(); n != 1 {
		t.Fatalf("%d backend calls, want 1 (echo only)", n)
	}

	c = client(admin)
	c.initializeWith(era.Latest, elicitCaps)
	if list := string(c.call(1, "tools/list", nil).Result); !strings.Contains(list, `"admin_echo"`) {
		t.Fatalf("tools/list for an admin token lacks admin_echo: %s", list)
	}
	res, asked := c.callAnswering(2, adminCall, answerWith(`{"action":"accept","content":{"confirm":true}}`))
	if tr := toolResultOf(t, res); tr.IsError || len(asked) != 1 {
		t.Fatalf("admin_echo with an admin token: %s, asked %d times", tr.text(), len(asked))
	}
	if n := b.calls.Load(); n != 2 {
		t.Fatalf("%d backend calls, want 2", n)
	}
}

// TestAccessMaxTierStillCaps checks that an admin token does not lift MaxTier.
func TestAccessMaxTierStillCaps(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) { c.Tools = confirmTools() })
	client, _, admin := guardedServer(t, s)
	c := client(admin)
	c.initializeWith(era.Latest, elicitCaps)
	if list := string(c.call(1, "tools/list", nil).Result); strings.Contains(list, `"admin_echo"`) {
		t.Fatal("an admin token listed a tool above MaxTier")
	}
	tr := toolResultOf(t, c.call(2, "tools/call", map[string]any{"name": "admin_echo", "arguments": map[string]any{"message": "hi"}}))
	if !tr.IsError || !strings.Contains(tr.text(), "--max-tier admin") || b.calls.Load() != 0 {
		t.Fatalf("admin_echo above MaxTier with an admin token: %s", tr.text())
	}
}

// TestPolicyCapsByGrant checks the policy's own cap, which holds for every way a call comes
// in, HTTP or not: a grant of a lower tier refuses the call with a tool error that says how to
// get a higher tier.
func TestPolicyCapsByGrant(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) {
		c.Tools = confirmTools()
		c.MaxTier = hootv1.Tier_TIER_ADMIN
	})
	p := filepath.Join(t.TempDir(), "tokens")
	tok, err := access.AddToken(p, "basic-bot", hootv1.Tier_TIER_BASIC)
	if err != nil {
		t.Fatal(err)
	}
	toks, _ := access.LoadTokens(p, nil)
	g, _ := access.NewGuard(access.Config{Tokens: toks})
	req := httptest.NewRequest(http.MethodPost, "/", nil)
	req.Header.Set("Authorization", "Bearer "+tok)
	grant, f := g.Check(req)
	if f != nil {
		t.Fatal(f.Message)
	}
	ctx := access.WithGrant(context.Background(), grant)
	sess := newHTTPSession("test", 8, 1<<20)
	msg := &message{Message: jsonrpc.Message{ID: json.RawMessage("7"), Method: methodToolsCall, Params: json.RawMessage(`{"name":"cas_get","arguments":{"hash":"x"}}`)}}
	resp := s.calls.CallTool(ctx, sess, &msg.Message, nil)
	b2, _ := json.Marshal(resp.Result)
	if !strings.Contains(string(b2), `"isError":true`) || !strings.Contains(string(b2), consent.OutcomeTokenTierTooLow) ||
		!strings.Contains(string(b2), "--tier standard") || b.calls.Load() != 0 {
		t.Fatalf("cas_get with a basic grant: %s", b2)
	}
	if got := s.capListing(ctx, s.listedNow()); len(got) == 0 || len(got) >= len(s.listedNow()) {
		t.Fatalf("a basic grant lists %d of %d tools", len(got), len(s.listedNow()))
	}
	// A resource of tier standard is refused to the same grant, before it reaches a worker.
	read := &message{Message: jsonrpc.Message{ID: json.RawMessage("8"), Method: methodResourcesRead, Params: json.RawMessage(`{"uri":"hoot://cas/` + strings.Repeat("0", 64) + `"}`)}}
	r := s.readResource(ctx, methodRequest{sess: sess, msg: read})
	if r.Error == nil || !strings.Contains(r.Error.Message, "needs tier standard") || b.calls.Load() != 0 {
		t.Fatalf("resources/read with a basic grant: %+v (backend calls %d)", r.Error, b.calls.Load())
	}
	if g, _ := r.Error.Data.(*guidance.Data); g == nil || g.Policy == nil || g.Policy.TokenTier != "basic" || !strings.Contains(g.Hint, "--tier standard") {
		t.Fatalf("resources/read refusal data: %+v", r.Error.Data)
	}
}

// TestAccessTierCapModern checks the same cap for a 2026-07-28 request, which has no session.
func TestAccessTierCapModern(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) {
		c.Tools = confirmTools()
		c.MaxTier = hootv1.Tier_TIER_ADMIN
	})
	client, standard, _ := guardedServer(t, s)
	c := client(standard)
	list := c.modernCall(1, "tools/list", nil, nil)
	if list.status != http.StatusOK || strings.Contains(string(list.body), `"admin_echo"`) || !strings.Contains(string(list.body), `"echo"`) {
		t.Fatalf("modern tools/list for a standard token: %d %s", list.status, list.body)
	}
	a := c.modernCall(2, "tools/call", map[string]any{"name": "admin_echo", "arguments": map[string]any{"message": "hi"}}, nil)
	if a.status != http.StatusForbidden || !strings.Contains(a.header.Get("WWW-Authenticate"), "insufficient_scope") ||
		!strings.Contains(string(a.body), consent.OutcomeTokenTierTooLow) || b.calls.Load() != 0 {
		t.Fatalf("modern admin_echo for a standard token: %d %q %s", a.status, a.header.Get("WWW-Authenticate"), a.body)
	}
}

// TestSessionsBelongToTheirCaller checks that a session started with one token cannot be used,
// streamed or ended with another.
func TestSessionsBelongToTheirCaller(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	client, standard, admin := guardedServer(t, s)
	alice := client(standard)
	alice.initialize(era.Latest)
	root := client(admin)
	root.session = alice.session
	if a := root.post(request(1, "tools/list", nil), nil); a.status != http.StatusNotFound {
		t.Fatalf("another caller's tools/list on the session: %d %s", a.status, a.body)
	}
	req, _ := http.NewRequest(http.MethodGet, root.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(headerSessionID, alice.session)
	if a := root.do(req); a.status != http.StatusNotFound {
		t.Fatalf("another caller's GET on the session: %d", a.status)
	}
	req, _ = http.NewRequest(http.MethodDelete, root.url, nil)
	req.Header.Set(headerSessionID, alice.session)
	if a := root.do(req); a.status != http.StatusNotFound {
		t.Fatalf("another caller's DELETE of the session: %d", a.status)
	}
	// The owner still has it.
	if r := alice.call(2, "tools/list", nil); r.Error != nil {
		t.Fatalf("the owner's tools/list: %+v", r.Error)
	}
}
