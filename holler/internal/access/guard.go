package access

import (
	"errors"
	"log/slog"
	"net/http"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

// realm names the protection space in challenges (RFC 6750 section 3).
const realm = "holler"

// A Failure is a request that access control refused: the HTTP status (401, 403, or 503 when
// the authorization server's keys cannot be fetched), the WWW-Authenticate challenge, what is
// wrong and what to do next.
type Failure struct {
	Status int
	// Challenge is the WWW-Authenticate header's value; empty for none.
	Challenge string
	// Message says what is wrong; Hint says what to do.
	Message, Hint string

	// scope is the scope a 403 of OAuth asks for, or "" for the default one.
	scope string
}

// SetHeaders sets the failure's WWW-Authenticate header on h.
func (f *Failure) SetHeaders(h http.Header) {
	if f.Challenge != "" {
		h.Set("WWW-Authenticate", f.Challenge)
	}
	if f.Status == http.StatusServiceUnavailable {
		h.Set("Retry-After", "30")
	}
}

// WritePlain answers a request with f as plain text: the challenge header, the status, and
// the message and the hint on two lines.
func WritePlain(w http.ResponseWriter, _ *http.Request, f *Failure) {
	f.SetHeaders(w.Header())
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(f.Status)
	_, _ = w.Write([]byte(f.Message + "\n" + f.Hint + "\n"))
}

// A DenyFunc answers a request that access control refused, in the form its route speaks.
type DenyFunc func(w http.ResponseWriter, r *http.Request, f *Failure)

// Config describes a [Guard]: at least one of Tokens and OAuth.
type Config struct {
	// Tokens are the bearer tokens of a token file (LoadTokens).
	Tokens *Tokens
	// OAuth checks access tokens of an authorization server (NewOAuth).
	OAuth *OAuth
	// Logger receives refusals at debug level and grants at debug level. Nil discards.
	Logger *slog.Logger
}

// A Guard checks the bearer token of each request.
type Guard struct {
	tokens *Tokens
	oauth  *OAuth
	log    *slog.Logger
}

// NewGuard returns a Guard for cfg.
func NewGuard(cfg Config) (*Guard, error) {
	if cfg.Tokens == nil && cfg.OAuth == nil {
		return nil, errors.New("access: a Guard needs Tokens, OAuth or both")
	}
	g := &Guard{tokens: cfg.Tokens, oauth: cfg.OAuth, log: cfg.Logger}
	if g.log == nil {
		g.log = slog.New(slog.DiscardHandler)
	}
	return g, nil
}

// OAuth returns the guard's OAuth checker, or nil (also for a nil Guard).
func (g *Guard) OAuth() *OAuth {
	if g == nil {
		return nil
	}
	return g.oauth
}

// Check reads the request's bearer token and returns its grant, or why it is refused.
func (g *Guard) Check(r *http.Request) (*Grant, *Failure) {
	header := r.Header.Get("Authorization")
	token, reason, ok := BearerToken(header)
	switch {
	case header == "":
		return nil, g.unauthorized("", "this endpoint needs a bearer token, and the request has no Authorization header", g.howToGetToken())
	case !ok && !IsBearer(header):
		// Credentials of another scheme are no credentials of this one (RFC 6750 section 3.1).
		return nil, g.unauthorized("", reason, g.howToGetToken())
	case !ok:
		f := g.unauthorized("invalid_request", reason, "Send the header as Authorization: Bearer TOKEN, with the token exactly as it was given.")
		f.Status = http.StatusBadRequest
		return nil, f
	}
	// A JWT has three dot-separated parts; a token of the token file has no dot.
	if strings.Count(token, ".") == 2 {
		if g.oauth == nil {
			return nil, g.unauthorized("invalid_token", "this server takes no OAuth access tokens", g.howToGetToken())
		}
		gr, f := g.oauth.verify(r.Context(), token)
		if f != nil {
			return nil, g.finish(f)
		}
		gr.guard = g
		return gr, nil
	}
	if g.tokens == nil {
		return nil, g.unauthorized("invalid_token", "the bearer token is not an OAuth access token (a JWT), which is what this server takes", g.howToGetToken())
	}
	e, ok := g.tokens.Verify(token)
	if !ok {
		return nil, g.unauthorized("invalid_token", "the bearer token is not one this server knows",
			"Check that the token was copied whole. A token that was withdrawn or never issued here does not work: ask the server's operator for one (holler token add).")
	}
	return &Grant{Name: e.Name, Tier: e.Tier, Via: ViaToken, guard: g}, nil
}

// howToGetToken says how a caller without a valid token gets one.
func (g *Guard) howToGetToken() string {
	var ways []string
	if g.tokens != nil {
		ways = append(ways, "Ask the server's operator for a token (they make one with holler token add NAME --tier standard --file TOKENS) and send it as the header Authorization: Bearer TOKEN.")
	}
	if g.oauth != nil {
		ways = append(ways, "Get an access token from the authorization server "+g.oauth.cfg.Issuer+" for the resource "+g.oauth.cfg.Audience+
			" (the resource parameter of RFC 8707, scope "+g.oauth.challengeScope()+"), as the metadata at "+g.oauth.ResourceMetadataURL()+
			" describes, and send it as the header Authorization: Bearer TOKEN.")
	}
	return strings.Join(ways, " Or: ")
}

// unauthorized returns a 401 with the challenge for code (empty when the request had no
// credentials, as RFC 6750 section 3.1 asks).
func (g *Guard) unauthorized(code, message, hint string) *Failure {
	return g.finish(&Failure{Status: http.StatusUnauthorized, Message: message, Hint: hint, Challenge: code})
}

// finish turns a failure's error code, kept in Challenge until now, into its challenge.
func (g *Guard) finish(f *Failure) *Failure {
	if f.Status == http.StatusServiceUnavailable {
		// Nothing the client sends would help now: no challenge, a Retry-After instead.
		f.Challenge = ""
		return f
	}
	code := f.Challenge
	params := []string{`realm="` + realm + `"`}
	if code != "" {
		params = append(params, `error="`+code+`"`, `error_description="`+quotable(f.Message)+`"`)
	}
	if g.oauth != nil {
		if code == "" || code == "invalid_token" || code == "insufficient_scope" {
			if s := f.scope; s != "" {
				params = append(params, `scope="`+s+`"`)
			} else if s := g.oauth.challengeScope(); s != "" {
				params = append(params, `scope="`+s+`"`)
			}
		}
		params = append(params, `resource_metadata="`+g.oauth.ResourceMetadataURL()+`"`)
	}
	f.Challenge = "Bearer " + strings.Join(params, ", ")
	return f
}

// insufficient returns the 403 answer to a grant that asked for something of tier need.
func (g *Guard) insufficient(gr *Grant, need hootv1.Tier) *Failure {
	f := &Failure{Status: http.StatusForbidden, Challenge: "insufficient_scope"}
	switch gr.Via {
	case ViaOAuth:
		f.scope = g.oauth.scopeFor(need)
		f.Message = "the access token allows tier " + TierWord(gr.Tier) + ", and this needs tier " + TierWord(need)
		if f.scope == "" {
			f.Hint = "No scope of this server grants tier " + TierWord(need) + "; its operator decides which scopes grant which tier (--oauth-scope-tier)."
		} else {
			f.Hint = "Get a new access token from " + g.oauth.cfg.Issuer + " with scope " + f.scope + " (which grants tier " + TierWord(need) +
				") for the resource " + g.oauth.cfg.Audience + ", and send the request again with it."
		}
	default:
		f.Message = "the token " + quoteName(gr.Name) + " allows tier " + TierWord(gr.Tier) + ", and this needs tier " + TierWord(need)
		f.Hint = "Ask the server's operator for a token of tier " + TierWord(need) + " (holler token add NAME --tier " + TierWord(need) +
			" --file TOKENS), or keep to what tier " + TierWord(gr.Tier) + " allows."
	}
	return g.finish(f)
}

// quoteName quotes a token's name for a message.
func quoteName(s string) string { return `"` + s + `"` }

// quotable makes s fit a quoted-string of a challenge: RFC 6750 allows no '"' or '\' in
// error_description, and only printable ASCII.
func quotable(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			b[i] = '\''
		}
	}
	return string(b)
}

// Middleware returns a middleware that lets a request through only with a valid token, and
// puts its grant in the request's context. Requests for which exempt returns true pass
// without a token (the health check, the resource metadata). deny answers the others.
func (g *Guard) Middleware(deny DenyFunc, exempt func(*http.Request) bool) func(http.Handler) http.Handler {
	if deny == nil {
		deny = WritePlain
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if exempt != nil && exempt(r) {
				next.ServeHTTP(w, r)
				return
			}
			gr, f := g.Check(r)
			if f != nil {
				g.log.Debug("access: request refused", "path", r.URL.Path, "status", f.Status, "why", f.Message)
				deny(w, r, f)
				return
			}
			next.ServeHTTP(w, r.WithContext(WithGrant(r.Context(), gr)))
		})
	}
}

// Require returns a middleware that lets a request through only when its grant (put there by
// Middleware) allows tier need; a request without a grant passes, since it came through no
// access control. deny answers the others with 403.
func Require(need hootv1.Tier, deny DenyFunc) func(http.Handler) http.Handler {
	if deny == nil {
		deny = WritePlain
	}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if gr, ok := GrantOf(r.Context()); ok && gr.Tier < need {
				deny(w, r, gr.Refuse(need))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}
