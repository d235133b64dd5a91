package access

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

// tokenGuard returns a Guard over a token file with a standard and an admin token.
func tokenGuard(t *testing.T) (g *Guard, standard, admin string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tokens")
	standard, err := AddToken(p, "alice", hootv1.Tier_TIER_STANDARD)
	if err != nil {
		t.Fatal(err)
	}
	admin, err = AddToken(p, "root", hootv1.Tier_TIER_ADMIN)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := LoadTokens(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err = NewGuard(Config{Tokens: toks})
	if err != nil {
		t.Fatal(err)
	}
	return g, standard, admin
}

func TestGuardMiddleware(t *testing.T) {
	t.Parallel()
	g, standard, admin := tokenGuard(t)
	var seen *Grant
	inner := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seen, _ = GrantOf(r.Context())
		w.WriteHeader(http.StatusNoContent)
	})
	h := g.Middleware(nil, func(r *http.Request) bool { return r.URL.Path == "/healthz" })(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method == http.MethodPut {
				Require(hootv1.Tier_TIER_ADMIN, nil)(inner).ServeHTTP(w, r)
				return
			}
			inner.ServeHTTP(w, r)
		}))
	testCases := []struct {
		name, method, path, auth string
		status                   int
		challenge                string // the exact WWW-Authenticate, or a part of it after "~"
		body                     string
		grant                    string
	}{
		{name: "exempt", method: "GET", path: "/healthz", status: 204},
		{name: "no header", method: "GET", path: "/cas/x", status: 401, challenge: `Bearer realm="holler"`, body: "holler token add"},
		{name: "another scheme", method: "GET", path: "/cas/x", auth: "Basic dTpw", status: 401, challenge: `Bearer realm="holler"`, body: "Bearer scheme"},
		{name: "malformed bearer", method: "GET", path: "/cas/x", auth: "Bearer a b", status: 400, challenge: `~error="invalid_request"`, body: "Authorization: Bearer TOKEN"},
		{name: "wrong token", method: "GET", path: "/cas/x", auth: "Bearer hoot_wrong", status: 401,
			challenge: `Bearer realm="holler", error="invalid_token", error_description="the bearer token is not one this server knows"`, body: "copied whole"},
		{name: "a JWT without OAuth", method: "GET", path: "/cas/x", auth: "Bearer a.b.c", status: 401, challenge: `~error="invalid_token"`, body: "no OAuth"},
		{name: "standard token", method: "GET", path: "/cas/x", auth: "Bearer " + standard, status: 204, grant: "alice"},
		{name: "lowercase scheme", method: "GET", path: "/cas/x", auth: "bearer " + admin, status: 204, grant: "root"},
		{name: "tier too low", method: "PUT", path: "/cas", auth: "Bearer " + standard, status: 403,
			challenge: `Bearer realm="holler", error="insufficient_scope", error_description="the token 'alice' allows tier standard, and this needs tier admin"`, body: "--tier admin"},
		{name: "tier enough", method: "PUT", path: "/cas", auth: "Bearer " + admin, status: 204, grant: "root"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			seen = nil
			r := httptest.NewRequest(tc.method, tc.path, nil)
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.status {
				t.Fatalf("status %d, want %d; body %s", w.Code, tc.status, w.Body)
			}
			got := w.Header().Get("WWW-Authenticate")
			if part, ok := strings.CutPrefix(tc.challenge, "~"); ok {
				if !strings.Contains(got, part) {
					t.Fatalf("WWW-Authenticate %q, want one with %q", got, part)
				}
			} else if got != tc.challenge {
				t.Fatalf("WWW-Authenticate %q, want %q", got, tc.challenge)
			}
			if !strings.Contains(w.Body.String(), tc.body) {
				t.Fatalf("body %q, want one with %q", w.Body, tc.body)
			}
			if tc.grant != "" && (seen == nil || seen.Name != tc.grant || seen.Via != ViaToken) {
				t.Fatalf("grant %+v, want %s", seen, tc.grant)
			}
		})
	}
}

func TestGuardWithOAuthChallenges(t *testing.T) {
	t.Parallel()
	iss := newTestIssuer(t)
	k := iss.AddKey("k1", true)
	_, g := newTestOAuth(t, iss, nil)
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	_, f := g.Check(r)
	want := `Bearer realm="holler", scope="hoot", resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"`
	if f == nil || f.Status != 401 || f.Challenge != want {
		t.Fatalf("no token: %+v, want challenge %s", f, want)
	}
	if !strings.Contains(f.Hint, "resource "+testAudience) || !strings.Contains(f.Hint, iss.url) {
		t.Fatalf("hint %q does not say where to get a token", f.Hint)
	}
	gr, f := checkToken(g, iss.Sign(jwt.SigningMethodES256, k, "k1", iss.Claims(testAudience, "hoot")))
	if f != nil {
		t.Fatal(f.Message)
	}
	f = gr.Refuse(hootv1.Tier_TIER_ADMIN)
	want = `Bearer realm="holler", error="insufficient_scope", error_description="the access token allows tier standard, and this needs tier admin", scope="hoot.admin", resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"`
	if f.Status != 403 || f.Challenge != want || !strings.Contains(f.Hint, "scope hoot.admin") {
		t.Fatalf("403: %+v\nwant challenge %s", f, want)
	}
	// A grant of the token file asks its operator.
	tg, standard, _ := tokenGuard(t)
	gr2, f := checkToken(tg, standard)
	if f != nil {
		t.Fatal(f.Message)
	}
	if h := gr2.Raise(hootv1.Tier_TIER_ADMIN); !strings.Contains(h, "holler token add NAME --tier admin") {
		t.Fatalf("Raise = %q", h)
	}
}

func TestBothTokensAndOAuth(t *testing.T) {
	t.Parallel()
	iss := newTestIssuer(t)
	k := iss.AddKey("k1", true)
	o, _ := newTestOAuth(t, iss, nil)
	tg, standard, _ := tokenGuard(t)
	g, err := NewGuard(Config{Tokens: tg.tokens, OAuth: o})
	if err != nil {
		t.Fatal(err)
	}
	if gr, f := checkToken(g, standard); f != nil || gr.Via != ViaToken {
		t.Fatalf("file token: %+v %+v", gr, f)
	}
	if gr, f := checkToken(g, iss.Sign(jwt.SigningMethodES256, k, "k1", iss.Claims(testAudience, "hoot.admin"))); f != nil || gr.Via != ViaOAuth || gr.Tier != hootv1.Tier_TIER_ADMIN {
		t.Fatalf("access token: %+v %+v", gr, f)
	}
	_, f := g.Check(httptest.NewRequest("GET", "/", nil))
	if !strings.Contains(f.Hint, "holler token add") || !strings.Contains(f.Hint, "RFC 8707") {
		t.Fatalf("the hint names one way only: %q", f.Hint)
	}
	if _, err := NewGuard(Config{}); err == nil {
		t.Fatal("a Guard without tokens was made")
	}
}
