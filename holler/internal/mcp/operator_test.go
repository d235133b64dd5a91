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
)

// shellBackend answers every call as a shell_exec that exited 0.
func shellBackend(context.Context, string, *hootv1.Payload) (*hootv1.Result, error) {
	return &hootv1.Result{Result: &hootv1.Result_ShellExec{ShellExec: &hootv1.ShellExecResult{
		Stopped: hootv1.ShellStop_SHELL_STOP_EXITED, Stdout: &hootv1.ShellOutput{Head: "hi\n", Bytes: 3},
	}}}, nil
}

// TestAttackConfirmNeverOnOperatorTool serves shell_exec with --confirm never: a
// destructive tool runs without a question, and shell_exec is still put to a person, who
// reads the whole command line and every limit, those left out named as the worker's default.
// A client that cannot ask is refused without being told of --confirm never.
func TestAttackConfirmNeverOnOperatorTool(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) {
		c.Tools = confirmTools()
		c.MaxTier = hootv1.Tier_TIER_OPERATOR
		c.NoConfirm = true
	})
	b.override = shellBackend
	c := newMCPHTTP(t, s)
	c.initializeWith(era.Latest, elicitCaps)

	_, asked := c.callAnswering(1, map[string]any{"name": "wipe", "arguments": map[string]any{"message": "x"}}, answerWith(`{"action":"decline"}`))
	if len(asked) != 0 {
		t.Fatalf("with --confirm never, a destructive tool was put to a person: %s", asked[0].Params)
	}

	long := "echo " + strings.Repeat("abcdefghij", 30) + " && ls -l /usr/share"
	call := map[string]any{"name": "shell_exec", "arguments": map[string]any{"command": long, "timeout_seconds": 5}}
	r, asked := c.callAnswering(2, call, answerWith(`{"action":"accept","content":{"confirm":true}}`))
	if tr := toolResultOf(t, r); tr.IsError || len(asked) != 1 {
		t.Fatalf("confirmed shell_exec = %q after %d questions, want it run after one", tr.text(), len(asked))
	}
	var q struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal(asked[0].Params, &q); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"operator tool", `command: "` + long + `"`, "timeout_seconds: 5", "working_dir: the worker's default",
		"max_processes: the worker's default", "memory_mib: the worker's default", "max_output_bytes: the worker's default"} {
		if !strings.Contains(q.Message, want) {
			t.Errorf("the question lacks %q:\n%s", want, q.Message)
		}
	}

	r, asked = c.callAnswering(3, call, answerWith(`{"action":"decline"}`))
	if len(asked) != 1 {
		t.Fatalf("%d questions for the second call, want one: each call is confirmed", len(asked))
	}
	checkRefusal(t, r, consent.OutcomeDeclined, consent.ConfirmationRequired, []string{"declined", "did not run"})
	if n := b.calls.Load(); n != 2 {
		t.Fatalf("%d backend calls, want 2 (wipe, and the confirmed shell_exec)", n)
	}

	plain := newMCPHTTP(t, s)
	plain.initializeWith(era.Latest, `{}`)
	r, _ = plain.callAnswering(1, call, nil)
	checkRefusal(t, r, consent.OutcomeCannotElicit, consent.ConfirmationRequired, []string{"whatever the server's --confirm says"})
	if rr := refusedOf(t, r); strings.Contains(rr.text(), "--confirm never") {
		text := rr.text()
		t.Errorf("the refusal of an operator tool offers --confirm never:\n%s", text)
	}
	if n := b.calls.Load(); n != 2 {
		t.Fatalf("%d backend calls after the refusals, want 2", n)
	}
}

// TestOperatorToolAboveMaxTier serves the gateway at --max-tier admin: shell_exec is neither
// listed nor called, and the refusal names the flag that allows it.
func TestOperatorToolAboveMaxTier(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) {
		c.Tools = confirmTools()
		c.MaxTier = hootv1.Tier_TIER_ADMIN
	})
	c := newMCPHTTP(t, s)
	c.initializeWith(era.Latest, elicitCaps)
	if list := string(c.call(1, "tools/list", nil).Result); strings.Contains(list, `"shell_exec`) || !strings.Contains(list, `"admin_echo"`) {
		t.Fatalf("tools/list at --max-tier admin = %s", list)
	}
	r, asked := c.callAnswering(2, map[string]any{"name": "shell_exec", "arguments": map[string]any{"command": "true"}}, nil)
	if len(asked) != 0 || b.calls.Load() != 0 {
		t.Fatalf("a call above the max tier was asked (%d) or sent (%d)", len(asked), b.calls.Load())
	}
	checkRefusal(t, r, consent.OutcomeTierTooHigh, consent.ConfirmationRequired, []string{"needs tier OPERATOR", "--max-tier operator"})
}

// TestAttackOperatorToolWithAdminToken serves the operator tier behind tokens: an admin token
// neither sees nor calls shell_exec (403, with how to get an operator token); an operator
// token sees it and calls it once a person confirms.
func TestAttackOperatorToolWithAdminToken(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) {
		c.Tools = confirmTools()
		c.MaxTier = hootv1.Tier_TIER_OPERATOR
	})
	b.override = shellBackend
	client, tokens := guardedServerWith(t, s, map[string]hootv1.Tier{"root": hootv1.Tier_TIER_ADMIN, "op": hootv1.Tier_TIER_OPERATOR})
	call := map[string]any{"name": "shell_exec", "arguments": map[string]any{"command": "true"}}

	c := client(tokens["root"])
	c.initializeWith(era.Latest, elicitCaps)
	if list := string(c.call(1, "tools/list", nil).Result); strings.Contains(list, `"shell_exec`) || !strings.Contains(list, `"admin_echo"`) {
		t.Fatalf("tools/list for an admin token = %s", list)
	}
	a := c.post(request(2, "tools/call", call), nil)
	if a.status != http.StatusForbidden || !strings.Contains(string(a.body), "--tier operator") {
		t.Fatalf("shell_exec with an admin token: status %d: %s", a.status, a.body)
	}

	c = client(tokens["op"])
	c.initializeWith(era.Latest, elicitCaps)
	if list := string(c.call(1, "tools/list", nil).Result); !strings.Contains(list, `"shell_exec"`) || !strings.Contains(list, `"shell_exec_job"`) {
		t.Fatalf("tools/list for an operator token = %s", list)
	}
	r, asked := c.callAnswering(2, call, answerWith(`{"action":"accept","content":{"confirm":true}}`))
	if tr := toolResultOf(t, r); tr.IsError || len(asked) != 1 || b.calls.Load() != 1 {
		t.Fatalf("shell_exec with an operator token = %q after %d questions and %d calls", tr.text(), len(asked), b.calls.Load())
	}
}

// guardedServerWith serves s behind access control with a token file holding a token of each
// tier named, and returns a client factory for a token and the tokens by name.
func guardedServerWith(t *testing.T, s *Server, tiers map[string]hootv1.Tier) (func(token string) *mcpHTTP, map[string]string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	tokens := map[string]string{}
	for name, tier := range tiers {
		tok, err := access.AddToken(p, name, tier)
		if err != nil {
			t.Fatal(err)
		}
		tokens[name] = tok
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
	}, tokens
}
