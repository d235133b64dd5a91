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

// isPublic reports whether a request is served without a token: the health check, and the
// protected resource metadata, which is how a client learns where to get one.
func isPublic(r *http.Request) bool {
	p := r.URL.Path
	return p == "/healthz" || p == access.WellKnownPath || strings.HasPrefix(p, access.WellKnownPath+"/")
}
