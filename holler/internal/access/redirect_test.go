package access

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

// countingServer answers every request with a key set of one key, and counts the requests: a
// place a redirect must never lead the fetch to.
func countingServer(t *testing.T, hits *atomic.Int32) *httptest.Server {
	t.Helper()
	keys := keySetJSON(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(keys)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func keySetJSON(t *testing.T) []byte {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	j, err := jwkset.NewJWKFromKey(k.Public(), jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: "k1", USE: jwkset.UseSig}})
	if err != nil {
		t.Fatal(err)
	}
	set := jwkset.NewMemoryStorage()
	if err := set.KeyWrite(context.Background(), j); err != nil {
		t.Fatal(err)
	}
	b, err := set.JSONPublic(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestAttackJWKSRedirect shows that a fetch of the issuer's metadata or keys follows a
// redirect only on the origin it asked: one to another host or port, or from https down to
// plain http, is refused before anything is sent there, and the refusal says where it led.
func TestAttackJWKSRedirect(t *testing.T) {
	t.Parallel()
	var elsewhereHits atomic.Int32
	elsewhere := countingServer(t, &elsewhereHits)
	keys := keySetJSON(t)

	// issuer serves the metadata (naming itself) and /keys; where says where metadata and
	// /jwks go instead ("" to answer them).
	issuer := func(tls bool, metaTo, jwksTo func(self string) string) (*httptest.Server, *http.Client) {
		var self string
		mux := http.NewServeMux()
		mux.HandleFunc("GET /.well-known/", func(w http.ResponseWriter, r *http.Request) {
			if to := metaTo(self); to != "" {
				http.Redirect(w, r, to, http.StatusFound)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]string{"issuer": self, "jwks_uri": self + "/jwks"})
		})
		mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, r *http.Request) {
			if to := jwksTo(self); to != "" {
				http.Redirect(w, r, to, http.StatusFound)
				return
			}
			_, _ = w.Write(keys)
		})
		mux.HandleFunc("GET /keys", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(keys) })
		var srv *httptest.Server
		if tls {
			srv = httptest.NewTLSServer(mux)
		} else {
			srv = httptest.NewServer(mux)
		}
		t.Cleanup(srv.Close)
		self = srv.URL
		return srv, srv.Client()
	}
	none := func(string) string { return "" }
	to := func(u string) func(string) string { return func(string) string { return u } }
	testCases := []struct {
		name         string
		tls          bool
		meta, jwks   func(self string) string
		wantErr      string
		wantElsewise bool
	}{
		{name: "keys on the same origin", meta: none, jwks: func(self string) string { return self + "/keys" }},
		{name: "keys redirected to another port", meta: none, jwks: to(elsewhere.URL + "/jwks"), wantErr: "another origin"},
		{name: "keys redirected to another host name", meta: none,
			jwks: to(strings.Replace(elsewhere.URL, "127.0.0.1", "localhost", 1) + "/jwks"), wantErr: "another origin"},
		{name: "metadata redirected to another origin", meta: to(elsewhere.URL + "/meta"), jwks: none, wantErr: "another origin"},
		{name: "https keys redirected to plain http", tls: true, meta: none, jwks: to(elsewhere.URL + "/jwks"), wantErr: "another origin"},
		{name: "https metadata redirected to plain http on the same host and port", tls: true,
			meta: func(self string) string { return strings.Replace(self, "https://", "http://", 1) + "/meta" }, jwks: none, wantErr: "another origin"},
		{name: "a redirect loop on the same origin", meta: none, jwks: func(self string) string { return self + "/jwks" }, wantErr: "redirected more than 5 times"},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			before := elsewhereHits.Load()
			srv, client := issuer(tc.tls, tc.meta, tc.jwks)
			o, err := NewOAuth(OAuthConfig{Issuer: srv.URL, Audience: testAudience, Client: client,
				ScopeTiers: map[string]hootv1.Tier{"hoot": hootv1.Tier_TIER_STANDARD}})
			if err != nil {
				t.Fatal(err)
			}
			err = o.Prefetch(context.Background())
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Prefetch = %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Prefetch = %v, want an error with %q", err, tc.wantErr)
			}
			if got := elsewhereHits.Load() - before; got != 0 {
				t.Fatalf("the fetch reached the other origin %d times", got)
			}
		})
	}
}

// TestAttackOAuthTokensWithoutSubject shows that access tokens that name neither a subject nor
// a client are each their own caller (by a hash of the token), so that one such token never
// reaches what another's caller owns, such as its sessions.
func TestAttackOAuthTokensWithoutSubject(t *testing.T) {
	t.Parallel()
	iss := newTestIssuer(t)
	k := iss.AddKey("k1", true)
	_, g := newTestOAuth(t, iss, nil)
	anonymous := func(jti string) string {
		c := iss.Claims(testAudience, "hoot")
		delete(c, "sub")
		c["jti"] = jti
		return iss.Sign(jwt.SigningMethodES256, k, "k1", c)
	}
	a, b := anonymous("a"), anonymous("b")
	name := func(tok string) string {
		t.Helper()
		gr, f := checkToken(g, tok)
		if f != nil {
			t.Fatalf("refused: %s", f.Message)
		}
		return gr.Name
	}
	na, nb := name(a), name(b)
	if na == "" || na == nb {
		t.Fatalf("two tokens without sub or client_id are named %q and %q, want two distinct names", na, nb)
	}
	if !strings.HasPrefix(na, "token-sha256:") || strings.Contains(na, a) {
		t.Fatalf("name %q: want a hash of the token, not the token", na)
	}
	if again := name(a); again != na {
		t.Fatalf("the same token is named %q, then %q", na, again)
	}
	// A client is named apart from a subject of the same text.
	c := iss.Claims(testAudience, "hoot")
	delete(c, "sub")
	c["client_id"] = "user-1"
	if got := name(iss.Sign(jwt.SigningMethodES256, k, "k1", c)); got != "client:user-1" {
		t.Fatalf("a token of client user-1 is named %q, want client:user-1 (the subject user-1 is another caller)", got)
	}
}
