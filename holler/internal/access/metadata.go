package access

import (
	"encoding/json"
	"net/http"
	"strings"
)

// WellKnownPath is where protected resource metadata is served (RFC 9728 section 3).
const WellKnownPath = "/.well-known/oauth-protected-resource"

// resourceMetadata is the protected resource metadata document (RFC 9728 section 2).
type resourceMetadata struct {
	Resource               string   `json:"resource"`
	AuthorizationServers   []string `json:"authorization_servers"`
	ScopesSupported        []string `json:"scopes_supported"`
	BearerMethodsSupported []string `json:"bearer_methods_supported"`
	ResourceName           string   `json:"resource_name"`
}

// MetadataHandler serves the protected resource metadata at WellKnownPath and at
// WellKnownPath followed by the resource's path (where RFC 9728 puts it, and where MCP clients
// look first). Without OAuth it answers 404 with a note: file tokens need no discovery.
func (g *Guard) MetadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rest, _ := strings.CutPrefix(r.URL.Path, WellKnownPath)
		if g.oauth == nil || (rest != "" && rest != g.oauth.ResourcePath()) {
			http.Error(w, "not found: this server publishes protected resource metadata only when it takes OAuth access tokens, at "+WellKnownPath+" and "+WellKnownPath+" followed by the MCP endpoint's path", http.StatusNotFound)
			return
		}
		b, _ := json.Marshal(resourceMetadata{
			Resource:               g.oauth.cfg.Audience,
			AuthorizationServers:   []string{g.oauth.cfg.Issuer},
			ScopesSupported:        g.oauth.scopesByTier(),
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "Hootenanny (holler)",
		})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "max-age=3600")
		_, _ = w.Write(b)
	})
}
