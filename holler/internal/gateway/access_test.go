package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/access/accesstest"
)

// TestGatewayWithOAuth serves the gateway as holler serve does, behind OAuth with a test
// issuer on loopback, and walks a client through it: the 401 that points to the metadata, the
// metadata, a call with a token, and a content route its tier does not reach.
func TestGatewayWithOAuth(t *testing.T) {
	t.Parallel()
	iss := accesstest.NewIssuer(t)
	key := iss.AddKey("k1", true)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + l.Addr().String()
	audience := base + "/mcp"
	o, err := access.NewOAuth(access.OAuthConfig{Issuer: iss.URL, Audience: audience,
		ScopeTiers: map[string]hootv1.Tier{"hoot.read": hootv1.Tier_TIER_BASIC, "hoot": hootv1.Tier_TIER_STANDARD}})
	if err != nil {
		t.Fatal(err)
	}
	guard, err := access.NewGuard(access.Config{OAuth: o})
	if err != nil {
		t.Fatal(err)
	}
	g, err := Start(Config{
		WorkerEndpoint: "tcp://127.0.0.1:*",
		DataDir:        t.TempDir(),
		Access:         guard,
		backend:        inProcess{hootv1hoot.NewSystemService(echoHandler{})},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.ServeHTTP(ctx, l) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()

	post := func(token, body string) (*http.Response, string) {
		req, _ := http.NewRequest(http.MethodPost, audience, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

	resp, body := post("", initialize)
	wantChallenge := `Bearer realm="holler", scope="hoot", resource_metadata="` + base + `/.well-known/oauth-protected-resource/mcp"`
	if resp.StatusCode != 401 || resp.Header.Get("WWW-Authenticate") != wantChallenge || !strings.Contains(body, `"jsonrpc":"2.0"`) {
		t.Fatalf("no token: %d %q %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body)
	}

	mresp, err := http.Get(base + "/.well-known/oauth-protected-resource/mcp")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	_ = json.NewDecoder(mresp.Body).Decode(&meta)
	mresp.Body.Close()
	if mresp.StatusCode != 200 || meta.Resource != audience || len(meta.AuthorizationServers) != 1 || meta.AuthorizationServers[0] != iss.URL {
		t.Fatalf("metadata: %d %+v", mresp.StatusCode, meta)
	}

	tok := iss.Sign(jwt.SigningMethodES256, key, "k1", iss.Claims(audience, "hoot"))
	resp, body = post(tok, initialize)
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize with a token: %d %s", resp.StatusCode, body)
	}
	// A token for another resource is refused even though it is signed by the right issuer.
	other := iss.Sign(jwt.SigningMethodES256, key, "k1", iss.Claims("http://127.0.0.1:1/mcp", "hoot"))
	if resp, body := post(other, initialize); resp.StatusCode != 401 || !strings.Contains(body, "not issued for this server") {
		t.Fatalf("a token of another audience: %d %s", resp.StatusCode, body)
	}

	// A basic token cannot read stored bytes, whose tools are standard.
	read := iss.Sign(jwt.SigningMethodES256, key, "k1", iss.Claims(audience, "hoot.read"))
	req, _ := http.NewRequest(http.MethodGet, base+"/cas/"+strings.Repeat("0", 64), nil)
	req.Header.Set("Authorization", "Bearer "+read)
	cresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	cresp.Body.Close()
	if cresp.StatusCode != 403 || !strings.Contains(cresp.Header.Get("WWW-Authenticate"), `error="insufficient_scope", error_description="the access token allows tier basic, and this needs tier standard", scope="hoot"`) {
		t.Fatalf("cas with a basic token: %d %q", cresp.StatusCode, cresp.Header.Get("WWW-Authenticate"))
	}
	hresp, err := http.Get(base + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	hresp.Body.Close()
	if hresp.StatusCode == 401 {
		t.Fatal("/healthz needs a token")
	}
}
