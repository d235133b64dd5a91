package zmqtransport

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hooteproto/curvekey"
)

func TestLRU(t *testing.T) {
	t.Parallel()
	c := newLRU[int](3)
	for i := range 3 {
		c.put(fmt.Sprint(i), i)
	}
	c.get("0") // now the most recent
	c.put("3", 3)
	if _, ok := c.get("1"); ok {
		t.Fatal("the least recently used key survived")
	}
	for _, k := range []string{"0", "2", "3"} {
		if _, ok := c.get(k); !ok {
			t.Fatalf("%s was forgotten", k)
		}
	}
	if c.len() != 3 {
		t.Fatalf("len %d", c.len())
	}
}

func TestGuardIsBounded(t *testing.T) {
	t.Parallel()
	g := newPeerGuard(0)
	for i := range 10 * guardCapacity {
		if !g.strike(fmt.Sprint(i)) {
			t.Fatal("with no malformed frames allowed, the first one bans")
		}
	}
	if g.banned.len() != guardCapacity || g.strikes.len() != 0 {
		t.Fatalf("banned %d, strikes %d", g.banned.len(), g.strikes.len())
	}
	// A banned peer that keeps sending stays banned while quiet ones are forgotten.
	g = newPeerGuard(0)
	for i := range guardCapacity {
		g.ban(fmt.Sprint(i))
	}
	if !g.isBanned("0") {
		t.Fatal("peer 0 is not banned")
	}
	g.ban("new")
	if !g.isBanned("0") || g.isBanned("1") {
		t.Fatal("the ban list forgot a peer that still sends instead of the quietest one")
	}
}

func TestZAPDecisions(t *testing.T) {
	t.Parallel()
	allowed, _ := curvekey.Generate()
	stranger, _ := curvekey.Generate()
	var logged strings.Builder
	h := &zapHandler{
		allowed: map[[32]byte]bool{},
		log:     slog.New(slog.NewTextHandler(&logged, nil)),
		logged:  newLRU[time.Time](4),
	}
	raw, _ := curvekey.Decode(allowed.Public)
	h.allowed[raw] = true
	other, _ := curvekey.Decode(stranger.Public)
	req := func(mechanism string, creds ...[]byte) [][]byte {
		return append([][]byte{[]byte("1.0"), []byte("7"), []byte("hoot"), []byte("10.0.0.9"), nil, []byte(mechanism)}, creds...)
	}
	for _, tc := range []struct {
		name string
		req  [][]byte
		want string
	}{
		{"allowed", req("CURVE", raw[:]), zapOK},
		{"unknown", req("CURVE", other[:]), zapDenied},
		{"null", req("NULL"), zapDenied},
		{"plain", req("PLAIN", []byte("u"), []byte("p")), zapDenied},
		{"short key", req("CURVE", raw[:31]), zapDenied},
		{"bad version", append([][]byte{[]byte("2.0")}, req("CURVE", raw[:])[1:]...), zapServerError},
		{"too few frames", req("CURVE")[:3], zapServerError},
	} {
		if got, _ := h.decide(tc.req, "tcp://test"); got != tc.want {
			t.Errorf("%s: status %s, want %s", tc.name, got, tc.want)
		}
	}
	if !strings.Contains(logged.String(), stranger.Public) {
		t.Fatalf("the refusal log does not name the key: %s", logged.String())
	}
	// A key refused again soon is not logged again.
	before := strings.Count(logged.String(), stranger.Public)
	h.decide(req("CURVE", other[:]), "tcp://test")
	if strings.Count(logged.String(), stranger.Public) != before {
		t.Fatal("a repeated refusal was logged again within the minute")
	}
}
