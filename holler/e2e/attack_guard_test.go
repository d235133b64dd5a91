package e2e

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/gateway"
)

// scriptedTune is a tune whose score, as abcm2ps engraves it, carries a script: %%beginsvg
// copies what follows into the SVG as it is.
const scriptedTune = "%%beginsvg\n<script>fetch('/mcp',{method:'POST',body:'{}'});document.title='ran'</script>\n%%endsvg\n" +
	"X:1\nT:Scripted\nM:4/4\nL:1/8\nK:D\n|:DFAF dAFA|GBdB AFEF:|\n"

// bearer adds a bearer token to every request it carries.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connectHTTPToken is connectHTTP for a gateway that wants a bearer token.
func connectHTTPToken(t *testing.T, url, token string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// tokenGuard makes a token file with one token of tier standard and returns the guard that
// takes it, and the token.
func tokenGuard(t *testing.T) (*access.Guard, string) {
	t.Helper()
	file := filepath.Join(t.TempDir(), "tokens")
	token, err := access.AddToken(file, "studio", hootv1.Tier_TIER_STANDARD)
	if err != nil {
		t.Fatal(err)
	}
	toks, err := access.LoadTokens(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	g, err := access.NewGuard(access.Config{Tokens: toks})
	if err != nil {
		t.Fatal(err)
	}
	return g, token
}

// TestAttackScriptedScore engraves, through the real worker, a tune whose SVG carries a
// script, and fetches the score from both content routes, as a person following a link would:
// the bytes hold the script, and they come as an attachment in a sandbox without script, so
// that the script cannot run as the gateway's origin.
func TestAttackScriptedScore(t *testing.T) {
	t.Parallel()
	endpoint := startStack(t)
	base := strings.TrimSuffix(endpoint, "/mcp")
	c := newCaller(t, connectHTTP(t, endpoint))
	res, err := c.s.CallTool(c.ctx, &mcp.CallToolParams{Name: "abc_render", Arguments: map[string]any{"abc": scriptedTune}})
	if err != nil || res.IsError {
		t.Fatalf("abc_render: %v %s", err, text(res))
	}
	svg := obj(res.StructuredContent, "svg")
	id, hash := toString(svg["id"]), toString(svg["hash"])
	if id == "" || hash == "" {
		t.Fatalf("abc_render named no SVG artifact: %v", res.StructuredContent)
	}
	for _, path := range []string{"/artifacts/" + id + "/content", "/cas/" + hash, "/artifacts/" + id + "/content?download"} {
		for _, method := range []string{http.MethodGet, http.MethodHead} {
			req, _ := http.NewRequest(method, base+path, nil)
			rsp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(rsp.Body)
			rsp.Body.Close()
			if rsp.StatusCode != http.StatusOK {
				t.Fatalf("%s %s = %d %q", method, path, rsp.StatusCode, body)
			}
			if method == http.MethodGet && !strings.Contains(string(body), "<script>fetch('/mcp'") {
				t.Fatalf("the engraved score does not carry the tune's script, so this test shows nothing: %.300s", body)
			}
			h := rsp.Header
			if h.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(h.Get("Content-Disposition"), "attachment;") ||
				!strings.HasPrefix(h.Get("Content-Security-Policy"), "sandbox;") || h.Get("X-Content-Type-Options") != "nosniff" {
				t.Errorf("%s %s served with Content-Type %q, Content-Disposition %q, Content-Security-Policy %q, X-Content-Type-Options %q; "+
					"want an SVG attachment in a sandbox", method, path, h.Get("Content-Type"), h.Get("Content-Disposition"), h.Get("Content-Security-Policy"), h.Get("X-Content-Type-Options"))
			}
		}
	}
}

// TestAttackRebinding sends a running gateway what a page that DNS rebinding points at it
// sends, Host evil.example, and what a page of another site sends, Origin
// http://evil.example: the upload, the metrics, the studio and the content are refused, and
// the names the operator allows pass.
func TestAttackRebinding(t *testing.T) {
	t.Parallel()
	endpoint := startStackWith(t, func(cfg *gateway.Config) {
		cfg.AllowedHosts = []string{"holler.example"}
		cfg.AllowedOrigins = []string{"https://app.example"}
	})
	base := strings.TrimSuffix(endpoint, "/mcp")
	c := newCaller(t, connectHTTP(t, endpoint))
	made := c.call("artifact_create", map[string]any{"content": "<script>alert(1)</script>", "mime_type": "text/html"})
	id := toString(obj(made, "artifact")["id"])
	send := func(method, path, host, origin string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader("uploaded from another site"))
		if host != "" {
			req.Host = host
		}
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		if path == "/mcp" {
			req.Header.Set("Content-Type", "application/json")
		}
		rsp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer rsp.Body.Close()
		b, _ := io.ReadAll(rsp.Body)
		return rsp.StatusCode, string(b)
	}
	routes := []struct{ method, path string }{
		{"PUT", "/cas"}, {"GET", "/metrics"}, {"GET", "/studio/"}, {"GET", "/artifacts/" + id + "/content"}, {"POST", "/mcp"},
	}
	for _, rt := range routes {
		if code, body := send(rt.method, rt.path, "evil.example", ""); code != http.StatusForbidden || !strings.Contains(body, "evil.example") {
			t.Errorf("%s %s with Host evil.example = %d %q, want 403", rt.method, rt.path, code, body)
		}
		if code, body := send(rt.method, rt.path, "", "http://evil.example"); code != http.StatusForbidden || !strings.Contains(body, "evil.example") {
			t.Errorf("%s %s with Origin http://evil.example = %d %q, want 403", rt.method, rt.path, code, body)
		}
		if code, body := send(rt.method, rt.path, "holler.example", "https://app.example"); code == http.StatusForbidden {
			t.Errorf("%s %s for an allowed host and origin = 403 %q", rt.method, rt.path, body)
		}
	}
}
