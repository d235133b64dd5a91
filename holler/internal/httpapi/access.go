package httpapi

import (
	"net/http"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/access"
)

// contentTier is the tier a token needs for the content routes: that of the tools that reach
// the same bytes (cas_get, cas_store, artifact_get), so that a token gets nothing over HTTP
// that its tools would refuse.
const contentTier = hootv1.Tier_TIER_STANDARD

// isPublic reports whether a request is served without a token: the health check, the
// protected resource metadata, which is how a client learns where to get one, and the studio's
// static page (HTML, CSS and script, no data), which asks the person for a token and sends it
// with every call it makes. Only GET and HEAD: nothing public takes a body.
func isPublic(r *http.Request) bool {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return false
	}
	p := r.URL.Path
	return p == "/healthz" || p == access.WellKnownPath || strings.HasPrefix(p, access.WellKnownPath+"/") ||
		p == "/" || p == "/studio" || strings.HasPrefix(p, "/studio/")
}
