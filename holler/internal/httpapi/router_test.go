package httpapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestRouter(t *testing.T) {
	t.Parallel()
	var services []string
	mcp := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	h := NewRouter(Deps{MCP: mcp, Services: func() []string { return services }})

	get := func(path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newRequest(http.MethodGet, path, nil))
		return rec
	}
	health := func() (int, map[string]any) {
		rec := get("/healthz")
		var body map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("healthz body %q: %v", rec.Body, err)
		}
		return rec.Code, body
	}

	if code, body := health(); code != http.StatusServiceUnavailable || body["status"] != "no_workers" {
		t.Errorf("healthz without workers = %d %v, want 503 no_workers", code, body)
	}
	services = []string{"cas", "system"}
	if code, body := health(); code != http.StatusOK || body["status"] != "ok" || len(body["services"].([]any)) != 2 {
		t.Errorf("healthz with workers = %d %v", code, body)
	}
	if rec := get("/mcp"); rec.Code != http.StatusTeapot {
		t.Errorf("/mcp did not reach the MCP handler: %d", rec.Code)
	}
	if rec := get("/nope"); rec.Code != http.StatusNotFound || !strings.Contains(rec.Body.String(), "POST /mcp") {
		t.Errorf("unknown path = %d %q, want 404 pointing at /mcp", rec.Code, rec.Body)
	}
}
