package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"net/http"
	"net/netip"
	"strconv"

	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/mcp/httpcheck"
)

// guard is the middleware in front of every route of the router, in this order:
//
//  1. the request's Host must name this server, and its Origin, if any, must be this server's
//     own, a loopback one or an allowed one: a page of another site, even one that DNS
//     rebinding points at 127.0.0.1, gets nothing (403);
//  2. with access control on, a valid bearer token, except on the public routes (isPublic);
//  3. the routes' own limits (uploads, /metrics) sit on the routes, behind 1 and 2.
//
// /mcp is answered in JSON-RPC, as its clients read errors; every other route in plain text.
func guard(d Deps) func(http.Handler) http.Handler {
	deny := func(w http.ResponseWriter, r *http.Request, f *access.Failure) {
		if r.URL.Path == "/mcp" && d.MCPDeny != nil {
			d.MCPDeny(w, r, f)
			return
		}
		access.WritePlain(w, r, f)
	}
	var check func(http.Handler) http.Handler
	if d.Access != nil {
		exempt := isPublic
		if d.MetricsToken != "" {
			// /metrics takes its own token, which scrapers carry instead.
			exempt = func(r *http.Request) bool { return r.URL.Path == "/metrics" || isPublic(r) }
		}
		check = d.Access.Middleware(deny, exempt)
	}
	return func(next http.Handler) http.Handler {
		if check != nil {
			next = check(next)
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !httpcheck.HostAllowed(r.Host, d.AllowedHosts) {
				deny(w, r, &access.Failure{Status: http.StatusForbidden,
					Message: "host " + quoteShort(r.Host) + " is not allowed",
					Hint:    "This server answers requests for loopback names (localhost, 127.0.0.1, [::1]) and the hosts its operator allows (--allow-hosts); connect to one of those."})
				return
			}
			if origin := r.Header.Get("Origin"); origin != "" && !httpcheck.OriginAllowed(origin, r.Host, d.AllowedOrigins) {
				deny(w, r, &access.Failure{Status: http.StatusForbidden,
					Message: "origin " + quoteShort(origin) + " is not allowed",
					Hint:    "This server serves requests from its own origin, loopback origins and the origins its operator allows (--allow-origins)."})
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// quoteShort quotes a header's value for a message, cut to a length a person reads.
func quoteShort(s string) string {
	const most = 100
	if len(s) > most {
		s = s[:most] + "…"
	}
	return strconv.Quote(s)
}

// metricsGuard returns the middleware of /metrics: with a token, a request must carry it as
// Authorization: Bearer TOKEN; without one, only this machine's peers are served.
func metricsGuard(token string) func(http.Handler) http.Handler {
	// Comparing hashes takes the same time whatever the lengths.
	want := sha256.Sum256([]byte(token))
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if token != "" {
				got, _, ok := access.BearerToken(r.Header.Get("Authorization"))
				sum := sha256.Sum256([]byte(got))
				if !ok || subtle.ConstantTimeCompare(sum[:], want[:]) != 1 {
					w.Header().Set("WWW-Authenticate", `Bearer realm="holler-metrics"`)
					httpError(w, http.StatusUnauthorized, "/metrics needs the metrics token as the header Authorization: Bearer TOKEN\n"+
						"Give the scraper the token of the file that holler's --metrics-token-file names (Prometheus: authorization.credentials_file).")
					return
				}
				next.ServeHTTP(w, r)
				return
			}
			if !isLoopbackPeer(r.RemoteAddr) {
				httpError(w, http.StatusForbidden, "/metrics is served to this machine only\n"+
					"To scrape it from elsewhere, start holler with --metrics-token-file FILE (a secret of at least 16 bytes) and give the scraper that token.")
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// isLoopbackPeer reports whether a request's RemoteAddr is on this machine.
func isLoopbackPeer(remote string) bool {
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
