package httpapi

import (
	"fmt"
	"net"
	"net/http"
	"sync"

	"github.com/hootenanny/hoot/holler/internal/access"
)

// Defaults of Content's upload limits.
const (
	// DefaultMaxUploads is how many PUT /cas the gateway runs at once, from all clients.
	DefaultMaxUploads = 16
	// DefaultMaxUploadsPerClient is how many of them one client may run at once.
	DefaultMaxUploadsPerClient = 4
)

// uploadLimiter counts the uploads that run, in all and by client, and refuses one over
// either limit. A client is its token's name when access control is on, else its address.
type uploadLimiter struct {
	total, perClient int

	mu       sync.Mutex
	running  int
	byClient map[string]int // only clients with an upload running: at most total entries
}

// acquire starts an upload of client, or reports which limit refuses it: 429 for the
// client's own, 503 for the gateway's.
func (l *uploadLimiter) acquire(client string) (release func(), status int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.byClient[client] >= l.perClient {
		return nil, http.StatusTooManyRequests
	}
	if l.running >= l.total {
		return nil, http.StatusServiceUnavailable
	}
	l.running++
	l.byClient[client]++
	var once sync.Once
	return func() {
		once.Do(func() {
			l.mu.Lock()
			defer l.mu.Unlock()
			l.running--
			if l.byClient[client]--; l.byClient[client] <= 0 {
				delete(l.byClient, client)
			}
		})
	}, 0
}

// limitUploads returns the middleware of PUT /cas that holds each upload to the limits of c.
func (c *Content) limitUploads() func(http.Handler) http.Handler {
	l := &uploadLimiter{total: c.MaxUploads, perClient: c.MaxUploadsPerClient, byClient: map[string]int{}}
	if l.total <= 0 {
		l.total = DefaultMaxUploads
	}
	if l.perClient <= 0 {
		l.perClient = DefaultMaxUploadsPerClient
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			release, status := l.acquire(clientOf(r))
			switch status {
			case http.StatusTooManyRequests:
				w.Header().Set("Retry-After", "10")
				httpError(w, status, fmt.Sprintf("this client already runs %d uploads, the most this gateway takes from one client at once: "+
					"wait until one of them has finished, then send this one again (Retry-After says when to try)", l.perClient))
				return
			case http.StatusServiceUnavailable:
				w.Header().Set("Retry-After", "5")
				httpError(w, status, fmt.Sprintf("the gateway runs %d uploads already, the most it takes at once: "+
					"send this one again in a few seconds (Retry-After says when)", l.total))
				return
			}
			defer release()
			next.ServeHTTP(w, r)
		})
	}
}

// clientOf names the client of a request for limits: the name of its token when access
// control let it in, else the address it comes from (without the port, which a client
// changes at will).
func clientOf(r *http.Request) string {
	if g, ok := access.GrantOf(r.Context()); ok {
		return g.Via + ":" + g.Name
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	return "addr:" + host
}
