package access

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"
)

// A testIssuer is an authorization server made for a test: an httptest server on 127.0.0.1
// that serves RFC 8414 metadata and a key set of keys the test generates, and signs tokens.
type testIssuer struct {
	t   *testing.T
	srv *httptest.Server
	url string

	mu        sync.Mutex
	keys      map[string]crypto.Signer // kid -> private key, as published
	jwksHits  atomic.Int32
	down      atomic.Bool
	metaIssue string // the issuer the metadata names; "" for the right one
}

func newTestIssuer(t *testing.T) *testIssuer {
	t.Helper()
	iss := &testIssuer{t: t, keys: map[string]crypto.Signer{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		if iss.down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		name := iss.url
		if iss.metaIssue != "" {
			name = iss.metaIssue
		}
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": name, "jwks_uri": iss.url + "/jwks"})
	})
	mux.HandleFunc("GET /jwks", func(w http.ResponseWriter, _ *http.Request) {
		iss.jwksHits.Add(1)
		if iss.down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		iss.mu.Lock()
		defer iss.mu.Unlock()
		set := jwkset.NewMemoryStorage()
		for kid, k := range iss.keys {
			j, err := jwkset.NewJWKFromKey(k.Public(), jwkset.JWKOptions{Metadata: jwkset.JWKMetadataOptions{KID: kid, USE: jwkset.UseSig}})
			if err != nil {
				t.Error(err)
				return
			}
			_ = set.KeyWrite(context.Background(), j)
		}
		b, _ := set.JSONPublic(context.Background())
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(b)
	})
	iss.srv = httptest.NewServer(mux)
	t.Cleanup(iss.srv.Close)
	iss.url = iss.srv.URL
	return iss
}

// addKey publishes a new key under kid and returns it.
func (iss *testIssuer) addKey(kid string, ec bool) crypto.Signer {
	iss.t.Helper()
	var k crypto.Signer
	var err error
	if ec {
		k, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	} else {
		k, err = rsa.GenerateKey(rand.Reader, 2048)
	}
	if err != nil {
		iss.t.Fatal(err)
	}
	iss.mu.Lock()
	iss.keys[kid] = k
	iss.mu.Unlock()
	return k
}

// claims returns good claims for audience aud and scope, valid for five minutes.
func (iss *testIssuer) claims(aud, scope string) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{
		"iss": iss.url, "aud": aud, "sub": "user-1", "scope": scope,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
	}
}

// sign signs claims with key under kid ("" for no kid) and method.
func (iss *testIssuer) sign(method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
	iss.t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		iss.t.Fatal(err)
	}
	return s
}
