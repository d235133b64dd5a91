package access

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

// Defaults of an OAuthConfig's zero fields.
const (
	// DefaultLeeway is the clock skew allowed when checking exp, nbf and iat: small, since
	// access tokens live minutes, and enough for clocks kept by NTP.
	DefaultLeeway = 30 * time.Second
	// DefaultRefetchInterval is the least time between two fetches of the issuer's keys when a
	// token names a key the cache does not hold, so that tokens with made-up key ids cannot
	// make the gateway hammer the issuer.
	DefaultRefetchInterval = time.Minute
	// DefaultKeysMaxAge is how long fetched keys are used before they are fetched again.
	DefaultKeysMaxAge = time.Hour
	// DefaultFetchTimeout bounds one fetch of the issuer's metadata or keys.
	DefaultFetchTimeout = 10 * time.Second
	// maxFetchBytes bounds the issuer's metadata and key set.
	maxFetchBytes = 1 << 20
	// maxKeys bounds the keys of a key set.
	maxKeys = 100
)

// DefaultAlgorithms are the signature algorithms accepted by default: asymmetric only, so
// that no key of the issuer's public set can sign a token (HS256 with a public key as its
// secret), and never "none".
var DefaultAlgorithms = []string{"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512", "EdDSA"}

// OAuthConfig describes the authorization server holler trusts and the resource it is.
type OAuthConfig struct {
	// Issuer is the authorization server's issuer identifier, an https URL (http only on a
	// loopback address); its metadata (RFC 8414, or OpenID Connect discovery) names its keys.
	Issuer string
	// Audience is this server's resource identifier, the canonical URL of its MCP endpoint
	// (such as https://holler.example.com/mcp): a token must name it in aud, and the
	// protected resource metadata names it as resource.
	Audience string
	// ScopeTiers maps scopes to the tiers they grant; a token's tier is the highest of its
	// scopes'. At least one.
	ScopeTiers map[string]hootv1.Tier
	// Client fetches the issuer's metadata and keys. Nil means a client with
	// DefaultFetchTimeout.
	Client *http.Client
	// Leeway, RefetchInterval and KeysMaxAge: zero means their defaults.
	Leeway, RefetchInterval, KeysMaxAge time.Duration
	// Algorithms are the accepted signature algorithms; nil means DefaultAlgorithms.
	Algorithms []string
	// Now tells the time; nil means time.Now.
	Now func() time.Time
}

// OAuth checks OAuth 2.1 access tokens that are JWTs (RFC 9068): the signature against the
// issuer's keys (fetched and cached), the issuer, the audience, the expiry, and the scopes,
// which map to a tier.
type OAuth struct {
	cfg OAuthConfig

	// fetchMu is held while keys are fetched, so that one fetch runs at a time; mu guards the
	// fields below, never across a fetch.
	fetchMu   sync.Mutex
	mu        sync.Mutex
	jwksURI   string
	keys      map[string]jwkset.JWK
	fetched   time.Time // when keys were fetched
	attempted time.Time // when a fetch was last tried, whatever came of it
}

// NewOAuth checks cfg and returns an OAuth. It fetches nothing: keys are fetched on first use,
// or by Prefetch.
func NewOAuth(cfg OAuthConfig) (*OAuth, error) {
	if err := checkIssuerURL("--oauth-issuer", cfg.Issuer); err != nil {
		return nil, err
	}
	if err := checkIssuerURL("--oauth-audience", cfg.Audience); err != nil {
		return nil, err
	}
	if len(cfg.ScopeTiers) == 0 {
		return nil, errors.New("--oauth-scope-tier: name at least one scope and the tier it grants, such as --oauth-scope-tier hoot=standard")
	}
	for s, t := range cfg.ScopeTiers {
		if s == "" || strings.ContainsAny(s, " \"\\") || t < hootv1.Tier_TIER_BASIC || t > hootv1.Tier_TIER_OPERATOR {
			return nil, fmt.Errorf("--oauth-scope-tier %q=%d: a scope has no spaces or quotes, and a tier is basic, standard, admin or operator", s, t)
		}
	}
	cfg.ScopeTiers = copyScopeTiers(cfg.ScopeTiers)
	if cfg.Client == nil {
		cfg.Client = &http.Client{Timeout: DefaultFetchTimeout}
	}
	// The metadata and keys are fetched where they are named, and nowhere else: a redirect
	// stays on the origin it was asked of, so that no redirect sends the fetch over plain http
	// or to a host the configuration did not name.
	client := *cfg.Client
	client.CheckRedirect = sameOriginRedirects
	cfg.Client = &client
	if cfg.Leeway == 0 {
		cfg.Leeway = DefaultLeeway
	}
	if cfg.RefetchInterval == 0 {
		cfg.RefetchInterval = DefaultRefetchInterval
	}
	if cfg.KeysMaxAge == 0 {
		cfg.KeysMaxAge = DefaultKeysMaxAge
	}
	if cfg.Algorithms == nil {
		cfg.Algorithms = DefaultAlgorithms
	}
	for _, a := range cfg.Algorithms {
		if !slices.Contains(DefaultAlgorithms, a) {
			return nil, fmt.Errorf("access: algorithm %q is not an asymmetric signature algorithm this server accepts", a)
		}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &OAuth{cfg: cfg}, nil
}

func copyScopeTiers(m map[string]hootv1.Tier) map[string]hootv1.Tier {
	out := make(map[string]hootv1.Tier, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// maxRedirects is how many redirects a fetch of metadata or keys follows.
const maxRedirects = 5

// sameOriginRedirects follows a redirect only to the origin (scheme, host and port) of the
// first request, at most maxRedirects times.
func sameOriginRedirects(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("access: %s redirected more than %d times", via[0].URL.Redacted(), maxRedirects)
	}
	from, to := via[0].URL, req.URL
	if !strings.EqualFold(from.Scheme, to.Scheme) || !strings.EqualFold(from.Host, to.Host) {
		return fmt.Errorf("access: %s redirected to %s, another origin; the issuer's metadata and keys are fetched only where they are named (set the issuer, or the jwks_uri of its metadata, to where they are)",
			from.Redacted(), to.Redacted())
	}
	return nil
}

// checkIssuerURL refuses a URL that is not https, or http on a loopback address.
func checkIssuerURL(flag, s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%s %q: want an absolute URL without query or fragment, such as https://auth.example.com", flag, s)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if isLoopbackHost(u.Hostname()) {
			return nil
		}
	}
	return fmt.Errorf("%s %q: want an https URL (http is allowed only on a loopback address)", flag, s)
}

// isLoopbackHost reports whether host is localhost or a loopback address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Prefetch fetches the issuer's metadata and keys now, so that a wrong issuer shows at start.
func (o *OAuth) Prefetch(ctx context.Context) error {
	o.fetchMu.Lock()
	defer o.fetchMu.Unlock()
	return o.refresh(ctx)
}

// ResourceMetadataURL returns the URL of this resource's metadata (RFC 9728 section 3.1):
// the well-known path put between the audience's host and its path.
func (o *OAuth) ResourceMetadataURL() string {
	u, _ := url.Parse(o.cfg.Audience)
	return u.Scheme + "://" + u.Host + WellKnownPath + strings.TrimSuffix(u.EscapedPath(), "/")
}

// ResourcePath returns the path of the audience URL, as it follows WellKnownPath in the
// metadata's URL ("" for an audience without a path).
func (o *OAuth) ResourcePath() string {
	u, _ := url.Parse(o.cfg.Audience)
	return strings.TrimSuffix(u.EscapedPath(), "/")
}

// scopesByTier returns the configured scopes in tier order, then by name.
func (o *OAuth) scopesByTier() []string {
	out := make([]string, 0, len(o.cfg.ScopeTiers))
	for s := range o.cfg.ScopeTiers {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b string) int {
		if d := int(o.cfg.ScopeTiers[a]) - int(o.cfg.ScopeTiers[b]); d != 0 {
			return d
		}
		return strings.Compare(a, b)
	})
	return out
}

// scopeFor returns the scope that grants tier need with the least beyond it, or "".
func (o *OAuth) scopeFor(need hootv1.Tier) string {
	for _, s := range o.scopesByTier() {
		if o.cfg.ScopeTiers[s] >= need {
			return s
		}
	}
	return ""
}

// challengeScope is the scope a 401 asks for: the one that grants the standard tier, the
// everyday tools, or the lowest configured when none does (least privilege: a caller that
// needs more is told so by a 403 naming the scope).
func (o *OAuth) challengeScope() string {
	if s := o.scopeFor(hootv1.Tier_TIER_STANDARD); s != "" {
		return s
	}
	return o.scopeFor(hootv1.Tier_TIER_BASIC)
}

// accessClaims are the claims of an access token that holler reads (RFC 9068 section 2.2).
type accessClaims struct {
	jwt.RegisteredClaims
	Scope    string          `json:"scope"`
	Scp      json.RawMessage `json:"scp"`
	ClientID string          `json:"client_id"`
}

// scopes returns the token's scopes: scope (space-separated, RFC 9068), or scp as some
// issuers write it, a list or a string.
func (c *accessClaims) scopes() []string {
	if c.Scope != "" {
		return strings.Fields(c.Scope)
	}
	var list []string
	if json.Unmarshal(c.Scp, &list) == nil {
		return list
	}
	var one string
	if json.Unmarshal(c.Scp, &one) == nil {
		return strings.Fields(one)
	}
	return nil
}

// Errors of the key lookup, which verify turns into answers.
var (
	errUnknownKey      = errors.New("unknown key")
	errKeyMismatch     = errors.New("key does not fit the token")
	errKeysUnavailable = errors.New("keys unavailable")
)

// verify checks an access token and returns its grant, or the answer to the request.
func (o *OAuth) verify(ctx context.Context, raw string) (*Grant, *Failure) {
	if alg := headerAlg(raw); alg != "" && !slices.Contains(o.cfg.Algorithms, alg) {
		return nil, &Failure{Status: http.StatusUnauthorized, Challenge: "invalid_token",
			Message: "the access token is signed with " + quoteName(quotable(alg)) + ", and this server takes only " + strings.Join(o.cfg.Algorithms, ", "),
			Hint:    "Get an access token from " + o.cfg.Issuer + ", whose keys are asymmetric, for the resource " + o.cfg.Audience + "."}
	}
	var claims accessClaims
	_, err := jwt.ParseWithClaims(raw, &claims, func(t *jwt.Token) (any, error) { return o.keyFor(ctx, t) },
		jwt.WithValidMethods(o.cfg.Algorithms),
		jwt.WithIssuer(o.cfg.Issuer),
		jwt.WithAudience(o.cfg.Audience),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
		jwt.WithLeeway(o.cfg.Leeway),
		jwt.WithTimeFunc(o.cfg.Now),
	)
	if err != nil {
		return nil, o.rejection(err, &claims)
	}
	tier := hootv1.Tier_TIER_UNSPECIFIED
	scopes := claims.scopes()
	for _, s := range scopes {
		if t, ok := o.cfg.ScopeTiers[s]; ok && t > tier {
			tier = t
		}
	}
	g := &Grant{Name: principal(raw, &claims), Tier: tier, Via: ViaOAuth, Scopes: scopes}
	if tier == hootv1.Tier_TIER_UNSPECIFIED {
		f := &Failure{Status: http.StatusForbidden, Challenge: "insufficient_scope", scope: o.challengeScope(),
			Message: "the access token has none of the scopes this server grants access for (" + strings.Join(o.scopesByTier(), ", ") + ")",
			Hint:    "Get a new access token from " + o.cfg.Issuer + " with scope " + o.challengeScope() + " for the resource " + o.cfg.Audience + "."}
		return nil, f
	}
	return g, nil
}

// principal names the caller of a verified token: its subject; else its client, marked so that
// no subject can take a client's name; else, for a token that names neither, the token itself
// by a hash, so that two such tokens never share what is bound to a caller (its sessions).
func principal(raw string, c *accessClaims) string {
	switch {
	case c.Subject != "":
		return c.Subject
	case c.ClientID != "":
		return "client:" + c.ClientID
	}
	sum := sha256.Sum256([]byte(raw))
	return "token-sha256:" + hex.EncodeToString(sum[:16])
}

// headerAlg returns the alg of a JWT's header, or "" when it cannot be read.
func headerAlg(raw string) string {
	head, _, _ := strings.Cut(raw, ".")
	b, err := base64.RawURLEncoding.DecodeString(head)
	if err != nil {
		return ""
	}
	var h struct {
		Alg string `json:"alg"`
	}
	if json.Unmarshal(b, &h) != nil {
		return ""
	}
	return h.Alg
}

// rejection explains why a token was refused, in the words of the check that failed.
func (o *OAuth) rejection(err error, c *accessClaims) *Failure {
	f := &Failure{Status: http.StatusUnauthorized, Challenge: "invalid_token"}
	renew := "Get a new access token from " + o.cfg.Issuer + " for the resource " + o.cfg.Audience + " and send the request again with it."
	switch {
	case errors.Is(err, errKeysUnavailable):
		f.Status, f.Challenge = http.StatusServiceUnavailable, ""
		f.Message = "the keys of the authorization server " + o.cfg.Issuer + " cannot be fetched now, so no access token can be checked"
		f.Hint = "Try again in a while; if it lasts, tell the server's operator."
	case errors.Is(err, errUnknownKey):
		f.Message = "the access token is signed with a key the authorization server " + o.cfg.Issuer + " does not publish"
		f.Hint = "The token was not issued by this server's authorization server, or its key was withdrawn. " + renew
	case errors.Is(err, errKeyMismatch), errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrInvalidKeyType), errors.Is(err, jwt.ErrInvalidKey):
		f.Message = "the access token's signature does not verify with the authorization server's keys"
		f.Hint = "The token was altered or not issued by " + o.cfg.Issuer + ". " + renew
	case errors.Is(err, jwt.ErrTokenExpired):
		f.Message = "the access token has expired"
		f.Hint = renew
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		f.Message = "the access token is not valid yet"
		f.Hint = "Check the clocks: this server allows " + o.cfg.Leeway.String() + " of difference. " + renew
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		f.Message = "the access token was issued by " + quoteName(c.Issuer) + ", and this server takes tokens of " + o.cfg.Issuer + " only"
		f.Hint = renew
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		f.Message = "the access token was not issued for this server: its audience must include " + o.cfg.Audience
		f.Hint = "Ask " + o.cfg.Issuer + " for a token with the resource parameter resource=" + o.cfg.Audience + " (RFC 8707); a token meant for another server is never accepted here."
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		f.Message = "the access token lacks a claim this server requires (exp, iss and aud)"
		f.Hint = renew
	case errors.Is(err, jwt.ErrTokenUnverifiable):
		f.Message = "the access token cannot be verified: " + err.Error()
		f.Hint = renew
	default:
		f.Message = "the access token is not a well-formed JWT signed with one of " + strings.Join(o.cfg.Algorithms, ", ")
		f.Hint = renew
	}
	return f
}

// keyFor returns the public key that should have signed t: the key of the issuer's set with
// t's kid (or the only key, for a token without kid), fetched again when unknown, at most once
// per RefetchInterval.
func (o *OAuth) keyFor(ctx context.Context, t *jwt.Token) (any, error) {
	kid, _ := t.Header["kid"].(string)
	alg, _ := t.Header["alg"].(string)
	k, err := o.lookup(ctx, kid)
	if err != nil {
		return nil, err
	}
	m := k.Marshal()
	if m.ALG != "" && string(m.ALG) != alg {
		return nil, fmt.Errorf("%w: the key is for %s and the token says %s", errKeyMismatch, m.ALG, alg)
	}
	if m.USE != "" && m.USE != jwkset.UseSig {
		return nil, fmt.Errorf("%w: the key is not for signatures", errKeyMismatch)
	}
	return k.Key(), nil
}

// lookup returns the key named kid.
func (o *OAuth) lookup(ctx context.Context, kid string) (jwkset.JWK, error) {
	if k, ok, fresh := o.cached(kid); ok && fresh {
		return k, nil
	}
	o.fetchMu.Lock()
	defer o.fetchMu.Unlock()
	k, ok, fresh := o.cached(kid)
	if ok && fresh {
		return k, nil
	}
	o.mu.Lock()
	recent := !o.attempted.IsZero() && o.cfg.Now().Sub(o.attempted) < o.cfg.RefetchInterval
	o.mu.Unlock()
	if recent {
		if ok {
			return k, nil
		}
		return jwkset.JWK{}, errUnknownKey
	}
	if err := o.refresh(ctx); err != nil {
		if ok {
			// A stale key is better than none while the issuer cannot be reached.
			return k, nil
		}
		return jwkset.JWK{}, fmt.Errorf("%w: %v", errKeysUnavailable, err)
	}
	if k, ok, _ = o.cached(kid); !ok {
		return jwkset.JWK{}, errUnknownKey
	}
	return k, nil
}

// cached returns the key named kid from the cache, and whether the cache is fresh.
func (o *OAuth) cached(kid string) (k jwkset.JWK, ok, fresh bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if kid == "" && len(o.keys) == 1 {
		for _, only := range o.keys {
			k, ok = only, true
		}
	} else {
		k, ok = o.keys[kid]
	}
	return k, ok, !o.fetched.IsZero() && o.cfg.Now().Sub(o.fetched) < o.cfg.KeysMaxAge
}

// refresh fetches the issuer's metadata (once) and its key set. The caller holds fetchMu.
func (o *OAuth) refresh(ctx context.Context) error {
	o.mu.Lock()
	o.attempted = o.cfg.Now()
	jwksURI := o.jwksURI
	o.mu.Unlock()
	if jwksURI == "" {
		u, err := o.discover(ctx)
		if err != nil {
			return err
		}
		jwksURI = u
		o.mu.Lock()
		o.jwksURI = u
		o.mu.Unlock()
	}
	var set struct {
		Keys []jwkset.JWKMarshal `json:"keys"`
	}
	if err := o.fetchJSON(ctx, jwksURI, &set); err != nil {
		return err
	}
	if len(set.Keys) > maxKeys {
		return fmt.Errorf("the key set at %s has %d keys, more than the %d this server reads", jwksURI, len(set.Keys), maxKeys)
	}
	keys := make(map[string]jwkset.JWK, len(set.Keys))
	for _, m := range set.Keys {
		// Public keys only: a symmetric key ("oct") or private parts are never read.
		k, err := jwkset.NewJWKFromMarshal(m, jwkset.JWKMarshalOptions{}, jwkset.JWKValidateOptions{})
		if err != nil {
			continue
		}
		keys[m.KID] = k
	}
	if len(keys) == 0 {
		return fmt.Errorf("the key set at %s holds no public signing key this server can read", jwksURI)
	}
	o.mu.Lock()
	o.keys, o.fetched = keys, o.cfg.Now()
	o.mu.Unlock()
	return nil
}

// discover reads the issuer's metadata, RFC 8414's or else OpenID Connect's, and returns the
// URL of its key set. The metadata must name the configured issuer exactly (RFC 8414
// section 3.3).
func (o *OAuth) discover(ctx context.Context) (string, error) {
	u, _ := url.Parse(o.cfg.Issuer)
	path := strings.TrimSuffix(u.EscapedPath(), "/")
	candidates := []string{
		u.Scheme + "://" + u.Host + "/.well-known/oauth-authorization-server" + path,
		strings.TrimSuffix(o.cfg.Issuer, "/") + "/.well-known/openid-configuration",
	}
	var errs []error
	for _, c := range candidates {
		var meta struct {
			Issuer  string `json:"issuer"`
			JWKSURI string `json:"jwks_uri"`
		}
		if err := o.fetchJSON(ctx, c, &meta); err != nil {
			errs = append(errs, err)
			continue
		}
		if meta.Issuer != o.cfg.Issuer {
			return "", fmt.Errorf("the metadata at %s names the issuer %q, not %q", c, meta.Issuer, o.cfg.Issuer)
		}
		if err := checkIssuerURL("jwks_uri", meta.JWKSURI); err != nil {
			return "", fmt.Errorf("the metadata at %s: %w", c, err)
		}
		return meta.JWKSURI, nil
	}
	return "", fmt.Errorf("no authorization server metadata for %s: %w", o.cfg.Issuer, errors.Join(errs...))
}

// fetchJSON GETs u and decodes its JSON body, of at most maxFetchBytes, into v.
func (o *OAuth) fetchJSON(ctx context.Context, u string, v any) error {
	ctx, cancel := context.WithTimeout(ctx, DefaultFetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := o.cfg.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxFetchBytes+1))
	if err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	if len(body) > maxFetchBytes {
		return fmt.Errorf("GET %s: the answer is larger than %d bytes", u, maxFetchBytes)
	}
	if err := json.Unmarshal(body, v); err != nil {
		return fmt.Errorf("GET %s: %w", u, err)
	}
	return nil
}
