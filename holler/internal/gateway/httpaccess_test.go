package gateway

import (
	"net"
	"path/filepath"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/access"
)

func TestCheckHTTPListener(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "tokens")
	if _, err := access.AddToken(p, "alice", hootv1.Tier_TIER_STANDARD); err != nil {
		t.Fatal(err)
	}
	toks, err := access.LoadTokens(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	guard, err := access.NewGuard(access.Config{Tokens: toks})
	if err != nil {
		t.Fatal(err)
	}
	tcp := func(s string) net.Addr {
		a, err := net.ResolveTCPAddr("tcp", s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	testCases := []struct {
		name    string
		addr    net.Addr
		cfg     Config
		refused bool
	}{
		{name: "loopback v4", addr: tcp("127.0.0.1:8080")},
		{name: "loopback v4 other", addr: tcp("127.0.0.2:8080")},
		{name: "loopback v6", addr: tcp("[::1]:8080")},
		{name: "every interface", addr: tcp("0.0.0.0:8080"), refused: true},
		{name: "every interface v6", addr: tcp("[::]:8080"), refused: true},
		{name: "a LAN address", addr: tcp("192.168.1.20:8080"), refused: true},
		{name: "a LAN address with tokens", addr: tcp("192.168.1.20:8080"), cfg: Config{Access: guard}},
		{name: "every interface, insecure", addr: tcp("0.0.0.0:8080"), cfg: Config{InsecureHTTP: true}},
		{name: "a unix socket", addr: &net.UnixAddr{Name: "/tmp/x.sock", Net: "unix"}},
	}
	for _, tc := range testCases {
		err := CheckHTTPListener(tc.addr, tc.cfg)
		if (err != nil) != tc.refused {
			t.Errorf("%s: err = %v, refused want %v", tc.name, err, tc.refused)
			continue
		}
		if err != nil {
			for _, want := range []string{"holler token add", "--tokens", "--oauth-issuer", "--insecure-http", "127.0.0.1"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s: the refusal does not mention %s: %v", tc.name, want, err)
				}
			}
		}
	}
}
