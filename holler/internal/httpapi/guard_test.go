package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/go-chi/chi/v5"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/studio"
	"github.com/hootenanny/hoot/hootenanny/cas"
)

const (
	testArtifact = "art_01jd8x2k3m4n5p6q7r8s9t0vwx"
	evilHost     = "evil.example"
	evilOrigin   = "http://evil.example"
)

// fullRouter is the router with every route the gateway mounts: access control with a token
// file (when withAccess), the content routes over a directory store, /metrics (with a token
// when metricsToken is not empty), the studio and a stand-in MCP endpoint. reached counts the
// requests that got to the MCP and metrics handlers.
type fullRouter struct {
	h        chi.Router
	store    *cas.Dir
	md       *metadata
	standard string // a token of tier standard
	mu       sync.Mutex
	reached  map[string]int
}

func newFullRouter(t *testing.T, withAccess bool, metricsToken string) *fullRouter {
	t.Helper()
	dir := t.TempDir()
	store, err := cas.OpenDir(filepath.Join(dir, "cas"), nil)
	if err != nil {
		t.Fatal(err)
	}
	fr := &fullRouter{store: store, md: &metadata{store: store, artifacts: map[string]string{}, artTypes: map[string]string{}}, reached: map[string]int{}}
	stand := func(name string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			fr.mu.Lock()
			fr.reached[name]++
			fr.mu.Unlock()
			w.WriteHeader(http.StatusOK)
		})
	}
	d := Deps{
		MCP:          stand("mcp"),
		WS:           stand("ws"),
		Metrics:      stand("metrics"),
		MetricsToken: metricsToken,
		Services:     func() []string { return []string{"cas"} },
		Content:      &Content{Backend: fr.md, Store: store},
		Studio:       studio.Handler(),
		MCPDeny: func(w http.ResponseWriter, _ *http.Request, f *access.Failure) {
			f.SetHeaders(w.Header())
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(f.Status)
			_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32600, "message": f.Message, "data": map[string]string{"hint": f.Hint}}})
		},
	}
	if withAccess {
		tokens := filepath.Join(dir, "tokens")
		if fr.standard, err = access.AddToken(tokens, "alice", hootv1.Tier_TIER_STANDARD); err != nil {
			t.Fatal(err)
		}
		toks, err := access.LoadTokens(tokens, nil)
		if err != nil {
			t.Fatal(err)
		}
		if d.Access, err = access.NewGuard(access.Config{Tokens: toks}); err != nil {
			t.Fatal(err)
		}
	}
	fr.h = NewRouter(d)
	return fr
}

func (fr *fullRouter) do(r *http.Request) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	fr.h.ServeHTTP(w, r)
	return w
}

func (fr *fullRouter) seen(name string) int {
	fr.mu.Lock()
	defer fr.mu.Unlock()
	return fr.reached[name]
}

// publicRoutes are the routes served without a token, as the README's access section lists
// them: the health check, the protected resource metadata, and the studio's static page and
// the redirects to it.
var publicRoutes = map[string]bool{
	"GET /healthz":                       true,
	"GET " + access.WellKnownPath:        true,
	"GET " + access.WellKnownPath + "/*": true,
	"GET /":                              true,
	"GET /studio":                        true,
	"GET /studio/*":                      true,
	"HEAD /studio/*":                     true,
}

// concretePath fills in a route pattern's parameters.
func concretePath(pattern string) string {
	r := strings.NewReplacer("{hash}", strings.Repeat("ab", 32), "{id}", testArtifact, "/*", "/index.html")
	return r.Replace(pattern)
}

// TestRouterGuardsEveryRoute walks every route of the real router and shows that each one
// refuses a foreign Host and a foreign Origin, and, with access control on, a request without
// a token, but the documented public ones. A route added later without the guard fails here.
func TestRouterGuardsEveryRoute(t *testing.T) {
	t.Parallel()
	for _, metricsToken := range []string{"", "metrics-secret-0123456789"} {
		fr := newFullRouter(t, true, metricsToken)
		var routes []string
		err := chi.Walk(fr.h, func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
			routes = append(routes, method+" "+route)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		// The walk must see the routes that matter, or it proves nothing.
		for _, want := range []string{"PUT /cas", "GET /cas/{hash}", "HEAD /cas/{hash}", "GET /artifacts/{id}/content", "GET /metrics", "POST /mcp", "GET /ws", "GET /studio/*", "GET /healthz"} {
			if !strings.Contains(strings.Join(routes, "\n")+"\n", want+"\n") {
				t.Fatalf("the walk did not find %s among %v", want, routes)
			}
		}
		publicSeen := 0
		for _, rt := range routes {
			method, pattern, _ := strings.Cut(rt, " ")
			path := concretePath(pattern)
			req := func() *http.Request {
				r := newRequest(method, path, strings.NewReader("body"))
				r.Header.Set("Authorization", "Bearer "+fr.standard)
				return r
			}
			// A foreign Host, with a valid token: refused by the guard, in the route's words.
			r := req()
			r.Host = evilHost
			w := fr.do(r)
			if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), `host \"evil.example\" is not allowed`) && !strings.Contains(w.Body.String(), `host "evil.example" is not allowed`) {
				t.Errorf("%s with Host %s = %d %q, want 403 naming the host", rt, evilHost, w.Code, w.Body)
			}
			if pattern == "/mcp" && !json.Valid(w.Body.Bytes()) {
				t.Errorf("%s refused in %q, want a JSON-RPC error", rt, w.Body)
			}
			// A foreign Origin, with a valid token.
			r = req()
			r.Header.Set("Origin", evilOrigin)
			w = fr.do(r)
			if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "evil.example") || !strings.Contains(w.Body.String(), "origin") {
				t.Errorf("%s with Origin %s = %d %q, want 403 naming the origin", rt, evilOrigin, w.Code, w.Body)
			}
			// No token at all.
			r = req()
			r.Header.Del("Authorization")
			w = fr.do(r)
			if publicRoutes[rt] {
				publicSeen++
				if w.Code == http.StatusUnauthorized {
					t.Errorf("%s is public and wants a token: %q", rt, w.Body)
				}
				continue
			}
			if w.Code != http.StatusUnauthorized || !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), "Bearer realm=") {
				t.Errorf("%s without a token = %d %q, want 401 with a challenge", rt, w.Code, w.Body)
			}
		}
		if publicSeen != len(publicRoutes) {
			t.Errorf("%d of the %d public routes were walked: the list is out of date (%v)", publicSeen, len(publicRoutes), routes)
		}
		if n := fr.seen("mcp") + fr.seen("metrics"); n != 0 {
			t.Errorf("refused requests reached the MCP or metrics handler %d times", n)
		}
		if n, _, _ := fr.store.Stats(context.Background()); n != 0 {
			t.Errorf("refused uploads stored %d objects", n)
		}
	}
}

// put stores body as mimeType through the router and returns its hash.
func (fr *fullRouter) put(t *testing.T, body, mimeType string) string {
	t.Helper()
	r := newRequest(http.MethodPut, "/cas", strings.NewReader(body))
	r.Header.Set("Content-Type", mimeType)
	if fr.standard != "" {
		r.Header.Set("Authorization", "Bearer "+fr.standard)
	}
	w := fr.do(r)
	var res struct{ Hash string }
	if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil || w.Code != http.StatusCreated {
		t.Fatalf("PUT /cas = %d %q", w.Code, w.Body)
	}
	return res.Hash
}

// TestAttackStoredScriptRuns stores an HTML page and an SVG image with script, as a caller
// with a token of tier standard may, and fetches them as a browser would, whole, by HEAD,
// by range and as an artifact: each comes as an attachment in a sandbox without script, so
// that it cannot run as the gateway's origin (and call /mcp with the studio's token).
func TestAttackStoredScriptRuns(t *testing.T) {
	t.Parallel()
	fr := newFullRouter(t, false, "")
	for _, tc := range []struct{ mimeType, body string }{
		{"text/html", `<!doctype html><script>fetch("/mcp",{method:"POST",body:"{}"})</script>`},
		{"text/html; charset=utf-8", `<script>alert(document.domain)</script>`},
		{"image/svg+xml", `<svg xmlns="http://www.w3.org/2000/svg"><script>alert(document.domain)</script></svg>`},
		{"application/xhtml+xml", `<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>`},
		{"text/xml", `<?xml version="1.0"?><x:script xmlns:x="http://www.w3.org/1999/xhtml">alert(1)</x:script>`},
		{"application/javascript", `alert(1)`},
		{"application/pdf", `%PDF-1.4 /JS (app.alert(1))`},
		{"application/x-never-heard-of", `<script>alert(1)</script>`},
	} {
		hash := fr.put(t, tc.body, tc.mimeType)
		fr.md.artifacts[testArtifact] = hash
		fr.md.artTypes[testArtifact] = tc.mimeType
		for _, probe := range []struct {
			name, method, path, rangeHeader string
			status                          int
		}{
			{"GET", "GET", "/cas/" + hash, "", 200},
			{"HEAD", "HEAD", "/cas/" + hash, "", 200},
			{"range", "GET", "/cas/" + hash, "bytes=0-9", 206},
			{"ranges", "GET", "/cas/" + hash, "bytes=0-3,5-9", 206},
			{"artifact", "GET", "/artifacts/" + testArtifact + "/content", "", 200},
			{"artifact HEAD", "HEAD", "/artifacts/" + testArtifact + "/content", "", 200},
			{"artifact range", "GET", "/artifacts/" + testArtifact + "/content", "bytes=1-", 206},
		} {
			r := newRequest(probe.method, probe.path, nil)
			if probe.rangeHeader != "" {
				r.Header.Set("Range", probe.rangeHeader)
			}
			w := fr.do(r)
			what := fmt.Sprintf("%s stored as %q, %s", probe.path, tc.mimeType, probe.name)
			if w.Code != probe.status {
				t.Fatalf("%s = %d %q", what, w.Code, w.Body)
			}
			h := w.Header()
			if d := h.Get("Content-Disposition"); !strings.HasPrefix(d, "attachment;") {
				t.Errorf("%s: Content-Disposition %q, want an attachment", what, d)
			}
			if csp := h.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox;") || !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "allow-scripts") {
				t.Errorf("%s: Content-Security-Policy %q, want a sandbox without scripts", what, csp)
			}
			if h.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s: no nosniff", what)
			}
			if ct := h.Get("Content-Type"); probe.name != "ranges" && strings.Contains(ct, "html") != strings.Contains(tc.mimeType, "html") {
				t.Errorf("%s: Content-Type %q", what, ct)
			}
		}
	}

	// An image, audio and MIDI are shown inline, with the same sandbox.
	for _, mt := range []string{"image/png", "audio/wav", "audio/midi"} {
		hash := fr.put(t, "bytes of "+mt, mt)
		w := fr.do(newRequest("GET", "/cas/"+hash, nil))
		if d := w.Header().Get("Content-Disposition"); w.Code != 200 || !strings.HasPrefix(d, "inline;") || w.Header().Get("Content-Type") != mt {
			t.Errorf("%s: %d, Content-Type %q, Content-Disposition %q, want it inline", mt, w.Code, w.Header().Get("Content-Type"), d)
		}
		if !strings.HasPrefix(w.Header().Get("Content-Security-Policy"), "sandbox;") {
			t.Errorf("%s without the sandbox", mt)
		}
	}
	// Errors of the content routes carry the sandbox too.
	w := fr.do(newRequest("GET", "/cas/"+strings.Repeat("0", 64), nil))
	if w.Code != http.StatusNotFound || !strings.HasPrefix(w.Header().Get("Content-Security-Policy"), "sandbox;") {
		t.Errorf("an unknown object = %d with CSP %q", w.Code, w.Header().Get("Content-Security-Policy"))
	}
}

// TestAttackForeignHost sends what a page that DNS rebinding points at a loopback gateway
// sends: Host evil.example, to the upload, the metrics, the studio and the content routes.
// Each is refused before it does anything, and nothing is stored.
func TestAttackForeignHost(t *testing.T) {
	t.Parallel()
	fr := newFullRouter(t, false, "")
	hash := fr.put(t, "<script>alert(1)</script>", "text/html")
	fr.md.artifacts[testArtifact] = hash
	before, _, _ := fr.store.Stats(context.Background())
	for _, tc := range []struct{ method, path string }{
		{"PUT", "/cas"},
		{"GET", "/metrics"},
		{"GET", "/studio/"},
		{"GET", "/studio/app.js"},
		{"GET", "/"},
		{"GET", "/cas/" + hash},
		{"GET", "/artifacts/" + testArtifact + "/content"},
		{"POST", "/mcp"},
		{"GET", "/healthz"},
		{"GET", "/nothing"},
	} {
		for _, host := range []string{evilHost, evilHost + ":8080", "127.0.0.1.evil.example", "localhost.evil.example:8080"} {
			r := newRequest(tc.method, tc.path, strings.NewReader("uploaded by a page of another site"))
			r.Host = host
			w := fr.do(r)
			if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "is not allowed") {
				t.Errorf("%s %s with Host %s = %d %q, want 403", tc.method, tc.path, host, w.Code, w.Body)
			}
		}
	}
	if after, _, _ := fr.store.Stats(context.Background()); after != before {
		t.Errorf("the store holds %d objects, had %d", after, before)
	}
	if n := fr.seen("mcp") + fr.seen("metrics"); n != 0 {
		t.Errorf("a refused request reached a handler %d times", n)
	}
	// The same requests for a loopback name pass.
	for _, host := range []string{"127.0.0.1:8080", "localhost:8080", "[::1]:8080"} {
		r := newRequest("GET", "/metrics", nil)
		r.Host = host
		if w := fr.do(r); w.Code != http.StatusOK {
			t.Errorf("/metrics for Host %s = %d %q", host, w.Code, w.Body)
		}
	}
}

// TestAttackForeignOrigin sends what a page of another site sends to a gateway it reaches by
// its real name: Origin http://evil.example. Each route refuses it.
func TestAttackForeignOrigin(t *testing.T) {
	t.Parallel()
	fr := newFullRouter(t, false, "")
	hash := fr.put(t, "a tune", "text/vnd.abc")
	fr.md.artifacts[testArtifact] = hash
	for _, tc := range []struct{ method, path string }{
		{"PUT", "/cas"}, {"GET", "/metrics"}, {"GET", "/studio/"}, {"GET", "/cas/" + hash},
		{"GET", "/artifacts/" + testArtifact + "/content"}, {"POST", "/mcp"},
	} {
		for _, origin := range []string{evilOrigin, "null", "http://127.0.0.1.evil.example", "https://evil.example:8080"} {
			r := newRequest(tc.method, tc.path, strings.NewReader("x"))
			r.Header.Set("Origin", origin)
			w := fr.do(r)
			if w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "origin") {
				t.Errorf("%s %s with Origin %s = %d %q, want 403", tc.method, tc.path, origin, w.Code, w.Body)
			}
		}
		// The studio's own origin passes.
		r := newRequest(tc.method, tc.path, strings.NewReader("x"))
		r.Header.Set("Origin", "http://127.0.0.1:8080")
		if w := fr.do(r); w.Code == http.StatusForbidden {
			t.Errorf("%s %s from the server's own origin = 403 %q", tc.method, tc.path, w.Body)
		}
	}
	if n := fr.seen("metrics"); n != 1 {
		t.Errorf("the metrics handler was reached %d times, want once (from the server's own origin)", n)
	}
}

// TestAttackUploadFlood runs uploads that do not end, as a client holding connections open
// would: one client gets its cap and no more (429), all clients together the gateway's cap
// (503), each with Retry-After and what to do; finished uploads free their places.
func TestAttackUploadFlood(t *testing.T) {
	t.Parallel()
	store, err := cas.OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	h := NewRouter(Deps{MCP: http.NotFoundHandler(), Services: func() []string { return nil },
		Content: &Content{Backend: &metadata{store: store}, Store: store, MaxUploads: 3, MaxUploadsPerClient: 2}})
	var wg sync.WaitGroup
	var open []*io.PipeWriter
	codes := make(chan int, 10)
	// start begins an upload from addr that stays open until its pipe is closed, and returns
	// once the store has read its first byte: the upload holds its place.
	start := func(addr string) {
		pr, pw := io.Pipe()
		r := newRequest("PUT", "/cas", pr)
		r.RemoteAddr = addr
		wg.Go(func() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			codes <- w.Code
		})
		if _, err := pw.Write([]byte("x")); err != nil {
			t.Fatal(err)
		}
		open = append(open, pw)
	}
	try := func(addr string) *httptest.ResponseRecorder {
		r := newRequest("PUT", "/cas", strings.NewReader("one more"))
		r.RemoteAddr = addr
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		return w
	}
	start("127.0.0.1:1001")
	start("127.0.0.1:1002") // the same client from another port
	w := try("127.0.0.1:1003")
	if w.Code != http.StatusTooManyRequests || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "wait until one of them has finished") {
		t.Errorf("a third upload of one client = %d %q (Retry-After %q), want 429", w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	start("127.0.0.2:1001")
	w = try("127.0.0.3:1001")
	if w.Code != http.StatusServiceUnavailable || w.Header().Get("Retry-After") == "" || !strings.Contains(w.Body.String(), "the most it takes at once") {
		t.Errorf("a fourth upload in all = %d %q (Retry-After %q), want 503", w.Code, w.Body, w.Header().Get("Retry-After"))
	}
	for _, pw := range open {
		_ = pw.Close()
	}
	wg.Wait()
	close(codes)
	for c := range codes {
		if c != http.StatusCreated && c != http.StatusOK {
			t.Errorf("an upload that held its place ended %d", c)
		}
	}
	// Places are given back: the refused client uploads now.
	for _, addr := range []string{"127.0.0.1:1003", "127.0.0.3:1001"} {
		if w := try(addr); w.Code != http.StatusCreated && w.Code != http.StatusOK {
			t.Errorf("an upload after the others ended = %d %q", w.Code, w.Body)
		}
	}
}

// TestAttackMetricsFromAnotherMachine reads /metrics as a peer on another machine: refused
// without a metrics token, and with one only with that token (which access tokens are not).
func TestAttackMetricsFromAnotherMachine(t *testing.T) {
	t.Parallel()
	fr := newFullRouter(t, false, "")
	r := newRequest("GET", "/metrics", nil)
	r.RemoteAddr = "192.0.2.7:5000"
	if w := fr.do(r); w.Code != http.StatusForbidden || !strings.Contains(w.Body.String(), "--metrics-token-file") {
		t.Errorf("/metrics from another machine without a metrics token = %d %q, want 403", w.Code, w.Body)
	}
	if w := fr.do(newRequest("GET", "/metrics", nil)); w.Code != http.StatusOK {
		t.Errorf("/metrics from this machine = %d %q", w.Code, w.Body)
	}

	secret := "metrics-secret-0123456789"
	fr = newFullRouter(t, true, secret)
	for _, tc := range []struct {
		auth   string
		status int
	}{
		{"", http.StatusUnauthorized},
		{"Bearer wrong-secret-0123456789", http.StatusUnauthorized},
		{"Bearer " + fr.standard, http.StatusUnauthorized},
		{"Bearer " + secret, http.StatusOK},
	} {
		r := newRequest("GET", "/metrics", nil)
		r.RemoteAddr = "192.0.2.7:5000"
		if tc.auth != "" {
			r.Header.Set("Authorization", tc.auth)
		}
		if w := fr.do(r); w.Code != tc.status {
			t.Errorf("/metrics with %q = %d %q, want %d", tc.auth, w.Code, w.Body, tc.status)
		}
	}
	// The metrics token opens /metrics only.
	r = newRequest("POST", "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+secret)
	if w := fr.do(r); w.Code != http.StatusUnauthorized {
		t.Errorf("/mcp with the metrics token = %d, want 401", w.Code)
	}
	if n := fr.seen("metrics"); n != 1 {
		t.Errorf("the metrics handler was reached %d times, want 1", n)
	}
}
