// Package accesstest provides an OAuth authorization server for tests: an httptest server on
// 127.0.0.1 that serves RFC 8414 metadata and a JSON Web Key Set of keys the test generates,
// and signs access tokens with them.
package accesstest

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

// An Issuer is an authorization server made for a test.
type Issuer struct {
	// URL is the issuer identifier, http://127.0.0.1:PORT.
	URL string

	t         testing.TB
	mu        sync.Mutex
	keys      map[string]crypto.Signer // kid -> private key; the set publishes the public halves
	metaIssue string
	jwksHits  atomic.Int32
	down      atomic.Bool
}

// NewIssuer starts an Issuer that the test's cleanup stops.
func NewIssuer(t testing.TB) *Issuer {
	t.Helper()
	iss := &Issuer{t: t, keys: map[string]crypto.Signer{}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /.well-known/oauth-authorization-server", func(w http.ResponseWriter, _ *http.Request) {
		if iss.down.Load() {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		iss.mu.Lock()
		name := iss.metaIssue
		iss.mu.Unlock()
		if name == "" {
			name = iss.URL
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": name, "jwks_uri": iss.URL + "/jwks"})
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
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	iss.URL = srv.URL
	return iss
}

// AddKey makes a key (P-256 when ec, else RSA 2048), publishes it under kid and returns it.
func (iss *Issuer) AddKey(kid string, ec bool) crypto.Signer {
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

// SetMetadataIssuer makes the metadata name another issuer ("" for the right one).
func (iss *Issuer) SetMetadataIssuer(name string) {
	iss.mu.Lock()
	iss.metaIssue = name
	iss.mu.Unlock()
}

// SetDown makes the metadata and the key set answer 502 while down.
func (iss *Issuer) SetDown(down bool) { iss.down.Store(down) }

// JWKSHits returns how often the key set was fetched.
func (iss *Issuer) JWKSHits() int { return int(iss.jwksHits.Load()) }

// Claims returns the claims of a good access token for audience aud with scope, issued now
// for five minutes to the subject user-1.
func (iss *Issuer) Claims(aud, scope string) jwt.MapClaims {
	now := time.Now()
	return jwt.MapClaims{
		"iss": iss.URL, "aud": aud, "sub": "user-1", "scope": scope,
		"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix(),
	}
}

// Sign signs claims with key under kid ("" for no kid) and method.
func (iss *Issuer) Sign(method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
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
