// Package access decides who may use holler's HTTP endpoint: bearer tokens from a file the
// operator keeps ([Tokens]), and OAuth 2.1 access tokens (JWTs) from an authorization server
// the operator trusts ([OAuth]), the way the MCP authorization specification asks of a
// resource server. Each accepted token becomes a [Grant]: who the caller is and the highest
// tool tier the token allows. The package knows nothing of MCP: a [Guard] checks requests and
// puts the grant in the request's context ([GrantOf]); the layers above cap what the caller
// may do with it.
//
// # Answers
//
// A request without a token, or with one that is not valid, is answered 401 with a
// WWW-Authenticate challenge (RFC 6750; with OAuth, the resource_metadata of RFC 9728 and the
// scope to ask for). A valid token whose tier is too low for what was asked is answered 403,
// with error="insufficient_scope" for OAuth. Each [Failure] says, in its Hint, what to do next.
package access

import (
	"context"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

// The ways a caller can have been let in, as a Grant's Via says.
const (
	ViaToken = "token" // a bearer token from the token file
	ViaOAuth = "oauth" // an OAuth access token (a JWT) from the configured issuer
)

// A Grant is what an accepted token allows: who the caller is, and the highest tool tier it
// may use.
type Grant struct {
	// Name names the caller: the token's name in the token file; for an access token its
	// subject, else "client:" and its client_id, else "token-sha256:" and a hash of the token.
	Name string
	// Tier is the highest tool tier the token allows.
	Tier hootv1.Tier
	// Via says how the caller was let in: ViaToken or ViaOAuth.
	Via string
	// Scopes are the OAuth scopes of an access token; nil for a file token.
	Scopes []string

	// guard made the grant; it says how a caller gets a higher tier.
	guard *Guard
}

// Refuse returns the 403 answer to a request of this grant for something of tier need, which
// is above the grant's tier: the challenge (insufficient_scope for OAuth) and what to do.
func (g *Grant) Refuse(need hootv1.Tier) *Failure {
	return g.guard.insufficient(g, need)
}

// Raise returns, in one or two sentences, how the caller can get a token of tier need.
func (g *Grant) Raise(need hootv1.Tier) string {
	return g.Refuse(need).Hint
}

// Principal names the caller as the owner of what it starts (a session, a job): how it was
// let in and its name. A nil Grant, a request that came through no access control, is "".
func (g *Grant) Principal() string {
	if g == nil {
		return ""
	}
	return g.Via + ":" + g.Name
}

// Caller returns the caller as a call to a worker names it: its principal and its tier. A nil
// Grant is a nil Caller.
func (g *Grant) Caller() *hootv1.Caller {
	if g == nil {
		return nil
	}
	return &hootv1.Caller{Principal: g.Principal(), Tier: g.Tier}
}

type grantKey struct{}

// WithGrant returns a copy of ctx that carries g.
func WithGrant(ctx context.Context, g *Grant) context.Context {
	return context.WithValue(ctx, grantKey{}, g)
}

// GrantOf returns the grant a request's context carries. ok is false when the request came
// without access control (stdio, or an HTTP endpoint served without tokens).
func GrantOf(ctx context.Context) (g *Grant, ok bool) {
	g, ok = ctx.Value(grantKey{}).(*Grant)
	return g, ok && g != nil
}

// TierWord returns a tier as flags and token files spell it: basic, standard, admin or operator.
func TierWord(t hootv1.Tier) string {
	return strings.ToLower(strings.TrimPrefix(t.String(), "TIER_"))
}

// ParseTier reads a tier as flags and token files spell it.
func ParseTier(s string) (hootv1.Tier, bool) {
	t, ok := hootv1.Tier_value["TIER_"+strings.ToUpper(s)]
	if !ok || t == 0 || strings.ToLower(s) != s && strings.ToUpper(s) != s {
		return 0, false
	}
	return hootv1.Tier(t), true
}
