package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/hootenanny/cas"
)

// TestRouterAccess checks that access control covers every route but the health check and
// the metadata: the MCP endpoint (answered in its own words), the content routes (which need
// the standard tier) and any other path.
func TestRouterAccess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	store, err := cas.OpenDir(filepath.Join(dir, "cas"), nil)
	if err != nil {
		t.Fatal(err)
	}
	tokens := filepath.Join(dir, "tokens")
	basic, err := access.AddToken(tokens, "viewer", hootv1.Tier_TIER_BASIC)
	if err != nil {
		t.Fatal(err)
	}
	standard, err := access.AddToken(tokens, "alice", hootv1.Tier_TIER_STANDARD)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := access.LoadTokens(tokens, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := access.NewGuard(access.Config{Tokens: toks})
	if err != nil {
		t.Fatal(err)
	}
	mcpSeen := 0
	h := NewRouter(Deps{
		MCP:      http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { mcpSeen++; w.WriteHeader(http.StatusAccepted) }),
		Services: func() []string { return []string{"cas"} },
		Content:  &Content{Backend: &metadata{store: store}, Store: store},
		Access:   g,
		MCPDeny: func(w http.ResponseWriter, _ *http.Request, f *access.Failure) {
			f.SetHeaders(w.Header())
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(f.Status)
			_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"mcp"}}`)
		},
	})
	testCases := []struct {
		name, method, path, token string
		body                      string
		status                    int
		wantBody                  string
	}{
		{name: "health is public", method: "GET", path: "/healthz", status: 200},
		{name: "metadata without OAuth", method: "GET", path: access.WellKnownPath + "/mcp", status: 404, wantBody: "OAuth"},
		{name: "mcp without a token", method: "POST", path: "/mcp", status: 401, wantBody: `"mcp"`},
		{name: "mcp with a wrong token", method: "POST", path: "/mcp", token: "hoot_nope", status: 401, wantBody: `"mcp"`},
		{name: "mcp with a token", method: "POST", path: "/mcp", token: basic, status: 202},
		{name: "cas get without a token", method: "GET", path: "/cas/" + strings.Repeat("0", 64), status: 401, wantBody: "Authorization: Bearer TOKEN"},
		{name: "cas put without a token", method: "PUT", path: "/cas", body: "x", status: 401, wantBody: "holler token add"},
		{name: "artifact content without a token", method: "GET", path: "/artifacts/a1/content", status: 401},
		{name: "cas get with a basic token", method: "GET", path: "/cas/" + strings.Repeat("0", 64), token: basic, status: 403, wantBody: "--tier standard"},
		{name: "cas put with a basic token", method: "PUT", path: "/cas", token: basic, body: "x", status: 403, wantBody: "tier standard"},
		{name: "cas put with a standard token", method: "PUT", path: "/cas", token: standard, body: "hello", status: 201},
		{name: "cas get with a standard token", method: "GET", path: "/cas/" + strings.Repeat("0", 64), token: standard, status: 404},
		{name: "unknown path without a token", method: "GET", path: "/nothing/here", status: 401},
		{name: "a post to a public path without a token", method: "POST", path: "/healthz", status: 401},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			r := newRequest(tc.method, tc.path, strings.NewReader(tc.body))
			if tc.token != "" {
				r.Header.Set("Authorization", "Bearer "+tc.token)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.status && !(tc.status == 201 && w.Code == 200) {
				t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
			}
			if (w.Code == 401 || w.Code == 403) && !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer ") {
				t.Fatalf("a %d without a challenge", w.Code)
			}
			if !strings.Contains(w.Body.String(), tc.wantBody) {
				t.Fatalf("body %q, want one with %q", w.Body, tc.wantBody)
			}
		})
	}
	if mcpSeen != 1 {
		t.Fatalf("the MCP handler saw %d requests, want 1", mcpSeen)
	}
}
