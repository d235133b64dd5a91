// Package httpapi is holler's HTTP surface: the MCP endpoint, the operator's health check, and
// the content routes that serve stored bytes ([Content]). It knows nothing of ZeroMQ; of the
// tools it knows only cas_inspect and artifact_get, which the content routes call.
package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/hootenanny/hoot/holler/internal/access"
)

// Deps are what the router serves.
type Deps struct {
	// AllowedHosts and AllowedOrigins extend the loopback names that requests may name in their
	// Host and Origin headers ("*" allows any): every route refuses the others (DNS rebinding,
	// pages of other sites).
	AllowedHosts, AllowedOrigins []string
	// Access, when set, lets a request through only with a valid bearer token, on every route
	// but the public ones (isPublic: /healthz, the protected resource metadata it serves, and
	// the studio's static page): routes added later are covered without a word. Nil serves
	// without access control.
	Access *access.Guard
	// MCPDeny answers the requests to /mcp that the guard refuses, as JSON-RPC errors an
	// MCP client shows; nil answers them as plain text, like the other routes.
	MCPDeny access.DenyFunc
	// MCP serves the Model Context Protocol at /mcp.
	MCP http.Handler
	// WS serves the Model Context Protocol as JSON-RPC 2.0 over WebSocket at /ws; nil leaves
	// the route out.
	WS http.Handler
	// Services returns the services that live workers serve now, for /healthz.
	Services func() []string
	// Content serves /cas and /artifacts/{id}/content; nil leaves them out.
	Content *Content
	// Metrics serves /metrics; nil leaves it out.
	Metrics http.Handler
	// MetricsToken, when set, is the bearer token /metrics takes instead of access control's.
	// Empty serves /metrics to loopback peers only (behind access control, when it is on).
	MetricsToken string
	// Studio serves the studio page under /studio/, where / leads; nil leaves it out.
	Studio http.Handler
}

// NewRouter returns the gateway's HTTP handler. Every route sits behind one guard (see guard),
// put in front of the router before any route, so that a route added later is guarded too.
func NewRouter(d Deps) chi.Router {
	r := chi.NewRouter()
	r.Use(middleware.Recoverer)
	r.Use(guard(d))
	if d.Access != nil {
		meta := d.Access.MetadataHandler()
		r.Get(access.WellKnownPath, meta.ServeHTTP)
		r.Get(access.WellKnownPath+"/*", meta.ServeHTTP)
	}
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		services := d.Services()
		status, code := "ok", http.StatusOK
		if len(services) == 0 {
			// The gateway is up but can serve no tool: say so, so that probes and people see it.
			status, code = "no_workers", http.StatusServiceUnavailable
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(struct {
			Status   string   `json:"status"`
			Services []string `json:"services"`
		}{status, append([]string{}, services...)})
	})
	r.Handle("/mcp", d.MCP)
	if d.WS != nil {
		r.Handle("/ws", d.WS)
	}
	if d.Metrics != nil {
		r.With(metricsGuard(d.MetricsToken)).Method(http.MethodGet, "/metrics", d.Metrics)
	}
	if d.Content != nil {
		d.Content.mount(r.With(access.Require(contentTier, nil)))
	}
	if d.Studio != nil {
		r.Get("/", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/studio/", http.StatusFound)
		})
		r.Get("/studio", func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/studio/", http.StatusMovedPermanently)
		})
		r.Handle("/studio/*", d.Studio)
	}
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "not found: this is holler, an MCP server; send MCP requests (JSON-RPC 2.0) to POST /mcp", http.StatusNotFound)
	})
	return r
}
