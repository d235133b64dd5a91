package gateway

import (
	"net"
	"path/filepath"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/access"
)

// TestAttackOperatorTierWithoutTokens checks that the operator tier, whose tools run commands,
// is never served over HTTP without access control: not on loopback, which every local
// program reaches, and not with --insecure-http.
func TestAttackOperatorTierWithoutTokens(t *testing.T) {
	t.Parallel()
	p := filepath.Join(t.TempDir(), "tokens")
	if _, err := access.AddToken(p, "op", hootv1.Tier_TIER_OPERATOR); err != nil {
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
	loopback := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	op := hootv1.Tier_TIER_OPERATOR
	testCases := []struct {
		name    string
		cfg     Config
		refused bool
	}{
		{name: "operator on loopback", cfg: Config{MaxTier: op}, refused: true},
		{name: "operator, insecure", cfg: Config{MaxTier: op, InsecureHTTP: true}, refused: true},
		{name: "operator behind tokens", cfg: Config{MaxTier: op, Access: guard}},
		{name: "admin on loopback", cfg: Config{MaxTier: hootv1.Tier_TIER_ADMIN}},
	}
	for _, tc := range testCases {
		err := CheckHTTPListener(loopback, tc.cfg)
		if (err != nil) != tc.refused {
			t.Errorf("%s: err = %v, refused want %v", tc.name, err, tc.refused)
			continue
		}
		if err != nil {
			for _, want := range []string{"holler token add NAME --tier operator", "--tokens", "holler mcp", "--max-tier admin"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s: the refusal does not mention %s: %v", tc.name, want, err)
				}
			}
		}
	}
}
