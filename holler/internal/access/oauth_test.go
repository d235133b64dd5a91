package access

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

const testAudience = "http://127.0.0.1:8080/mcp"

func newTestOAuth(t *testing.T, iss *testIssuer, edit func(*OAuthConfig)) (*OAuth, *Guard) {
	t.Helper()
	cfg := OAuthConfig{
		Issuer:   iss.url,
		Audience: testAudience,
		ScopeTiers: map[string]hootv1.Tier{
			"hoot.read": hootv1.Tier_TIER_BASIC, "hoot": hootv1.Tier_TIER_STANDARD, "hoot.admin": hootv1.Tier_TIER_ADMIN,
		},
	}
	if edit != nil {
		edit(&cfg)
	}
	o, err := NewOAuth(cfg)
	if err != nil {
		t.Fatal(err)
	}
	g, err := NewGuard(Config{OAuth: o})
	if err != nil {
		t.Fatal(err)
	}
	return o, g
}

func checkToken(g *Guard, token string) (*Grant, *Failure) {
	r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
	r.Header.Set("Authorization", "Bearer "+token)
	return g.Check(r)
}

func TestOAuthTokens(t *testing.T) {
	t.Parallel()
	iss := newTestIssuer(t)
	rsaKey := iss.AddKey("k1", false)
	ecKey := iss.AddKey("k2", true)
	other := newTestIssuer(t)
	otherKey := other.AddKey("k1", false) // the same kid as ours, another key
	_, g := newTestOAuth(t, iss, nil)

	expired := iss.Claims(testAudience, "hoot")
	expired["exp"] = time.Now().Add(-2 * time.Minute).Unix()
	expired["iat"] = time.Now().Add(-10 * time.Minute).Unix()
	justExpired := iss.Claims(testAudience, "hoot") // within the stated leeway
	justExpired["exp"] = time.Now().Add(-10 * time.Second).Unix()
	wrongIss := iss.Claims(testAudience, "hoot")
	wrongIss["iss"] = "https://elsewhere.example"
	noExp := iss.Claims(testAudience, "hoot")
	delete(noExp, "exp")
	future := iss.Claims(testAudience, "hoot")
	future["nbf"] = time.Now().Add(10 * time.Minute).Unix()
	listAud := iss.Claims("", "hoot")
	listAud["aud"] = []string{"https://other.example/mcp", testAudience}
	scp := iss.Claims(testAudience, "")
	delete(scp, "scope")
	scp["scp"] = []string{"hoot.read", "hoot.admin"}

	testCases := []struct {
		name       string
		token      string
		status     int
		tier       hootv1.Tier
		wantInMsg  string
		wantHeader string
	}{
		{name: "good rsa", token: iss.Sign(jwt.SigningMethodRS256, rsaKey, "k1", iss.Claims(testAudience, "hoot")), tier: hootv1.Tier_TIER_STANDARD},
		{name: "good ec", token: iss.Sign(jwt.SigningMethodES256, ecKey, "k2", iss.Claims(testAudience, "hoot.read")), tier: hootv1.Tier_TIER_BASIC},
		{name: "highest scope wins", token: iss.Sign(jwt.SigningMethodPS256, rsaKey, "k1", iss.Claims(testAudience, "hoot.read hoot.admin other")), tier: hootv1.Tier_TIER_ADMIN},
		{name: "scp list", token: iss.Sign(jwt.SigningMethodRS256, rsaKey, "k1", scp), tier: hootv1.Tier_TIER_ADMIN},
		{name: "audience in a list", token: iss.Sign(jwt.SigningMethodRS256, rsaKey, "k1", listAud), tier: hootv1.Tier_TIER_STANDARD},
		{name: "within leeway", token: iss.Sign(jwt.SigningMethodRS256, rsaKey, "k1", justExpired), tier: hootv1.Tier_TIER_STANDARD},
		{name: "expired", token: iss.Sign(jwt.SigningMethodRS256, rsaKey, "k1", expired), status: 401, wantInMsg: "expired", wantHeader: `error="invalid_token"`},
		{name: "no exp", token: iss.Sign(jwt.SigningMethodRS256, rsaKey, "k1", noExp), status: 401, wantInMsg: "lacks a claim", wantHeader: `error="invalid_token"`},
		{name: "not yet valid", token: iss.Sign(jwt.SigningMethodRS256, rsaKey, "k1", future), status: 401, wantInMsg: "not valid yet"},
		{name: "wrong audience", token: iss.Sign(jwt.SigningMethodRS256, rsaKey, "k1", iss.Claims("https://other.example/mcp", "hoot")), status: 401, wantInMsg: "not issued for this server", wantHeader: `resource_metadata="http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp"`},
		{name: "wrong issuer", token: iss.Sign(jwt.SigningMethodRS256, rsaKey, "k1", wrongIss), status: 401, wantInMsg: "issued by \"https://elsewhere.example\""},
		{name: "wrong signature", token: iss.Sign(jwt.SigningMethodRS256, otherKey, "k1", iss.Claims(testAudience, "hoot")), status: 401, wantInMsg: "signature does not verify"},
		{name: "key of the wrong type", token: iss.Sign(jwt.SigningMethodES256, ecKey, "k1", iss.Claims(testAudience, "hoot")), status: 401, wantInMsg: "signature does not verify"},
		{name: "unknown kid", token: iss.Sign(jwt.SigningMethodRS256, rsaKey, "nope", iss.Claims(testAudience, "hoot")), status: 401, wantInMsg: "does not publish"},
		{name: "no kid with two keys", token: iss.Sign(jwt.SigningMethodRS256, rsaKey, "", iss.Claims(testAudience, "hoot")), status: 401, wantInMsg: "does not publish"},
		{name: "symmetric algorithm", token: iss.Sign(jwt.SigningMethodHS256, []byte("secret-secret-secret-secret-32b!"), "k1", iss.Claims(testAudience, "hoot")), status: 401, wantInMsg: "this server takes only"},
		{name: "alg none", token: iss.Sign(jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, "k1", iss.Claims(testAudience, "hoot")), status: 401},
		{name: "no holler scope", token: iss.Sign(jwt.SigningMethodRS256, rsaKey, "k1", iss.Claims(testAudience, "openid email")), status: 403, wantInMsg: "none of the scopes", wantHeader: `error="insufficient_scope", error_description=`},
		{name: "garbage", token: "a.b.c", status: 401, wantHeader: `Bearer realm="holler", error="invalid_token"`},
	}
	for _, tc := range testCases {
		t.Run(tc.name, func(t *testing.T) {
			gr, f := checkToken(g, tc.token)
			if tc.status == 0 {
				if f != nil {
					t.Fatalf("refused: %d %s", f.Status, f.Message)
				}
				if gr.Tier != tc.tier || gr.Via != ViaOAuth || gr.Name != "user-1" {
					t.Fatalf("grant %+v, want tier %v", gr, tc.tier)
				}
				return
			}
			if f == nil {
				t.Fatalf("accepted, grant %+v", gr)
			}
			if f.Status != tc.status || !strings.Contains(f.Message, tc.wantInMsg) || !strings.Contains(f.Challenge, tc.wantHeader) {
				t.Fatalf("got %d %q, challenge %q; want %d, a message with %q, a challenge with %q", f.Status, f.Message, f.Challenge, tc.status, tc.wantInMsg, tc.wantHeader)
			}
			if f.Hint == "" || !strings.Contains(f.Challenge, `resource_metadata="`) {
				t.Fatalf("a refusal without a hint or resource_metadata: %+v", f)
			}
		})
	}
}

func TestOAuthRefetchesUnknownKeysAtMostSoOften(t *testing.T) {
	t.Parallel()
	iss := newTestIssuer(t)
	k1 := iss.AddKey("k1", true)
	now := time.Now()
	clock := func() time.Time { return now }
	_, g := newTestOAuth(t, iss, func(c *OAuthConfig) { c.Now = clock; c.RefetchInterval = time.Minute })
	if _, f := checkToken(g, iss.Sign(jwt.SigningMethodES256, k1, "k1", iss.Claims(testAudience, "hoot"))); f != nil {
		t.Fatal(f.Message)
	}
	if n := iss.JWKSHits(); n != 1 {
		t.Fatalf("%d fetches of the key set, want 1", n)
	}
	// Many tokens of an unknown kid fetch once more at most.
	for range 5 {
		if _, f := checkToken(g, iss.Sign(jwt.SigningMethodES256, k1, "made-up", iss.Claims(testAudience, "hoot"))); f == nil {
			t.Fatal("a made-up kid was accepted")
		}
	}
	if n := iss.JWKSHits(); n != 1 {
		t.Fatalf("%d fetches of the key set within the refetch interval, want 1", n)
	}
	// The issuer rotates to a new key; once the interval has passed, its tokens are taken.
	k2 := iss.AddKey("k2", false)
	tok2 := iss.Sign(jwt.SigningMethodRS256, k2, "k2", iss.Claims(testAudience, "hoot"))
	if _, f := checkToken(g, tok2); f == nil {
		t.Fatal("an unknown key was taken without a fetch")
	}
	now = now.Add(61 * time.Second)
	if _, f := checkToken(g, tok2); f != nil {
		t.Fatalf("the rotated key was not fetched: %s", f.Message)
	}
	if n := iss.JWKSHits(); n != 2 {
		t.Fatalf("%d fetches, want 2", n)
	}
	// Cached keys serve without fetching.
	for range 3 {
		if _, f := checkToken(g, tok2); f != nil {
			t.Fatal(f.Message)
		}
	}
	if n := iss.JWKSHits(); n != 2 {
		t.Fatalf("%d fetches for cached keys, want 2", n)
	}
}

func TestOAuthIssuerDown(t *testing.T) {
	t.Parallel()
	iss := newTestIssuer(t)
	k := iss.AddKey("k1", true)
	iss.SetDown(true)
	_, g := newTestOAuth(t, iss, nil)
	_, f := checkToken(g, iss.Sign(jwt.SigningMethodES256, k, "k1", iss.Claims(testAudience, "hoot")))
	if f == nil || f.Status != http.StatusServiceUnavailable || !strings.Contains(f.Message, "cannot be fetched") || f.Challenge != "" {
		t.Fatalf("got %+v, want 503 without a challenge", f)
	}
	w := httptest.NewRecorder()
	WritePlain(w, nil, f)
	if w.Code != 503 || w.Header().Get("Retry-After") == "" || w.Header().Get("WWW-Authenticate") != "" {
		t.Fatalf("503 answer: %d %v", w.Code, w.Header())
	}
	// Once the issuer is back, a token is checked again (after the refetch interval).
	iss.SetDown(false)
	_, g2 := newTestOAuth(t, iss, nil)
	if _, f := checkToken(g2, iss.Sign(jwt.SigningMethodES256, k, "k1", iss.Claims(testAudience, "hoot"))); f != nil {
		t.Fatalf("issuer back: %s", f.Message)
	}
}

func TestOAuthMetadataMustNameTheIssuer(t *testing.T) {
	t.Parallel()
	iss := newTestIssuer(t)
	iss.AddKey("k1", true)
	iss.SetMetadataIssuer("https://impostor.example")
	o, _ := newTestOAuth(t, iss, nil)
	err := o.Prefetch(context.Background())
	if err == nil || !strings.Contains(err.Error(), "impostor") {
		t.Fatalf("Prefetch = %v, want a refusal of the metadata", err)
	}
}

func TestNewOAuthChecksItsConfig(t *testing.T) {
	t.Parallel()
	good := OAuthConfig{Issuer: "https://auth.example.com", Audience: "https://holler.example.com/mcp", ScopeTiers: map[string]hootv1.Tier{"hoot": hootv1.Tier_TIER_STANDARD}}
	if _, err := NewOAuth(good); err != nil {
		t.Fatal(err)
	}
	for name, edit := range map[string]func(*OAuthConfig){
		"http issuer":     func(c *OAuthConfig) { c.Issuer = "http://auth.example.com" },
		"relative":        func(c *OAuthConfig) { c.Audience = "/mcp" },
		"no scopes":       func(c *OAuthConfig) { c.ScopeTiers = nil },
		"bad tier":        func(c *OAuthConfig) { c.ScopeTiers = map[string]hootv1.Tier{"x": 0} },
		"symmetric alg":   func(c *OAuthConfig) { c.Algorithms = []string{"HS256"} },
		"scope with a \"": func(c *OAuthConfig) { c.ScopeTiers = map[string]hootv1.Tier{`a"b`: 1} },
	} {
		c := good
		edit(&c)
		if _, err := NewOAuth(c); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestResourceMetadata(t *testing.T) {
	t.Parallel()
	iss := newTestIssuer(t)
	o, g := newTestOAuth(t, iss, nil)
	if got := o.ResourceMetadataURL(); got != "http://127.0.0.1:8080/.well-known/oauth-protected-resource/mcp" {
		t.Fatalf("ResourceMetadataURL = %q", got)
	}
	h := g.MetadataHandler()
	for _, path := range []string{WellKnownPath, WellKnownPath + "/mcp"} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, path, nil))
		if w.Code != 200 || w.Header().Get("Content-Type") != "application/json" {
			t.Fatalf("%s: %d %s", path, w.Code, w.Header().Get("Content-Type"))
		}
		var doc map[string]any
		if err := json.Unmarshal(w.Body.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(doc)
		want := `{"authorization_servers":["` + iss.url + `"],"bearer_methods_supported":["header"],"resource":"` + testAudience +
			`","resource_name":"Hootenanny (holler)","scopes_supported":["hoot.read","hoot","hoot.admin"]}`
		if string(b) != want {
			t.Fatalf("%s:\n got %s\nwant %s", path, b, want)
		}
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest(http.MethodGet, WellKnownPath+"/other", nil))
	if w.Code != 404 {
		t.Fatalf("another resource's metadata: %d", w.Code)
	}
	// Without OAuth there is no metadata, and the answer says why.
	toks, _ := LoadTokens(writeFile(t, "", 0o600), nil)
	g2, _ := NewGuard(Config{Tokens: toks})
	w = httptest.NewRecorder()
	g2.MetadataHandler().ServeHTTP(w, httptest.NewRequest(http.MethodGet, WellKnownPath, nil))
	body, _ := io.ReadAll(w.Body)
	if w.Code != 404 || !strings.Contains(string(body), "OAuth") {
		t.Fatalf("without OAuth: %d %s", w.Code, body)
	}
}
