package mcp

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/hooteproto"
)

// sharedLedger is the fleet's record of used states, in memory: the servers of a test share
// it as gateways share their workers' database. down makes it fail as a ledger without a live
// worker does.
type sharedLedger struct {
	mu   sync.Mutex
	keys [][]byte
	down bool
	uses int
}

func (l *sharedLedger) UseState(_ context.Context, key []byte, _ time.Time) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.uses++
	if l.down {
		return false, errors.New(`no worker serves the "ledger" service right now`)
	}
	for _, k := range l.keys {
		if bytes.Equal(k, key) {
			return false, nil
		}
	}
	l.keys = append(l.keys, key)
	return true, nil
}

func (l *sharedLedger) setDown(down bool) {
	l.mu.Lock()
	l.down = down
	l.mu.Unlock()
}

// newLedgerServer returns a server of confirmTools over its own backend, with the state key
// and ledger given, as one gateway of a fleet.
func newLedgerServer(t *testing.T, key []byte, l StateLedger) (*fakeBackend, *mcpHTTP) {
	t.Helper()
	s, b := newTestServer(t, func(c *Config) {
		c.Tools = confirmTools()
		c.StateKey = key
		c.Ledger = l
		c.MaxTier = hootv1.Tier_TIER_ADMIN
	})
	return b, newMCPHTTP(t, s)
}

// TestAttackConfirmationReplayedAtAnotherServer accepts one confirmation at one server and
// replays it at another that shares the state key and the ledger, and at a new server in
// place of the first (a restart): both refuse it as already used, and neither runs the call.
func TestAttackConfirmationReplayedAtAnotherServer(t *testing.T) {
	t.Parallel()
	key := []byte("a state key the fleet shares....")
	ledger := &sharedLedger{}
	b1, c1 := newLedgerServer(t, key, ledger)
	b2, c2 := newLedgerServer(t, key, ledger)
	b3, c3 := newLedgerServer(t, key, ledger) // the first, restarted: nothing in memory

	ir, q := inputRequiredOf(t, c1.modernCall(1, "tools/call", wipeCall("hello", nil), nil))
	retry := wipeCall("hello", retryWith(q, ir.RequestState, acceptTicked))
	if tr := toolResultOf(t, c1.modernCall(2, "tools/call", retry, nil).last(t)); tr.IsError {
		t.Fatalf("the confirmed call failed: %s", tr.text())
	}
	for name, c := range map[string]*mcpHTTP{"another server": c2, "the restarted server": c3} {
		a := c.modernCall(3, "tools/call", retry, nil)
		checkStateRefused(t, "a replay at "+name, a, "already used")
		if hint, _ := a.last(t).Error.Data["hint"].(string); !strings.Contains(hint, "Call wipe again") {
			t.Errorf("a replay at %s: hint %q, want it to say to call again", name, hint)
		}
	}
	if n := b1.calls.Load() + b2.calls.Load() + b3.calls.Load(); n != 1 {
		t.Fatalf("the call ran %d times on one confirmation, want 1", n)
	}
}

// TestConfirmationNotRecordedNotRun refuses an accepted confirmation that the ledger cannot
// record (no worker serves it): the call does not run unrecorded, the refusal says to send
// the retry again, and the same retry runs once the ledger is back. A call that needs no
// confirmation never asks the ledger.
func TestConfirmationNotRecordedNotRun(t *testing.T) {
	t.Parallel()
	ledger := &sharedLedger{down: true}
	b, c := newLedgerServer(t, nil, ledger)

	if tr := toolResultOf(t, c.modernCall(1, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "plain"},
		"_meta": elicitMeta()}, nil).last(t)); tr.IsError {
		t.Fatalf("echo failed while the ledger is down: %s", tr.text())
	}
	if ledger.uses != 0 {
		t.Fatalf("a call without confirmation asked the ledger %d times", ledger.uses)
	}

	ir, q := inputRequiredOf(t, c.modernCall(2, "tools/call", wipeCall("hello", nil), nil))
	retry := wipeCall("hello", retryWith(q, ir.RequestState, acceptTicked))
	r := c.modernCall(3, "tools/call", retry, nil).last(t)
	hint, _ := r.Error.Data["hint"].(string)
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || !strings.Contains(r.Error.Message, "could not record") ||
		!strings.Contains(r.Error.Message, "ledger") || !strings.Contains(hint, "again") {
		t.Fatalf("a confirmation the ledger cannot record = %+v", r.Error)
	}
	if n := b.calls.Load(); n != 1 { // the echo
		t.Fatalf("the unrecorded confirmation ran the call: %d backend calls", n)
	}
	ledger.setDown(false)
	if tr := toolResultOf(t, c.modernCall(4, "tools/call", retry, nil).last(t)); tr.IsError {
		t.Fatalf("the same retry once the ledger is back: %s", tr.text())
	}
	if n := b.calls.Load(); n != 2 {
		t.Fatalf("%d backend calls, want the echo and the confirmed call", n)
	}
}

// TestAttackConfirmationOfAnotherToken has one token's person accept a confirmation and
// another token present the accepted retry: the state is bound to the caller it was minted for,
// so the other token's retry is refused and nothing runs; the caller's own retry runs, and the
// worker is told who called.
func TestAttackConfirmationOfAnotherToken(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, func(c *Config) {
		c.Tools = confirmTools()
		c.MaxTier = hootv1.Tier_TIER_ADMIN
	})
	var mu sync.Mutex
	var callers []string
	b.override = func(ctx context.Context, _ string, p *hootv1.Payload) (*hootv1.Result, error) {
		mu.Lock()
		callers = append(callers, hooteproto.CallerFrom(ctx).GetPrincipal()+"/"+hooteproto.CallerFrom(ctx).GetTier().String())
		mu.Unlock()
		return &hootv1.Result{Result: &hootv1.Result_Echo{Echo: &hootv1.EchoResult{Message: p.GetEcho().GetMessage()}}}, nil
	}
	client, standard, admin := guardedServer(t, s)
	root, alice := client(admin), client(standard)

	ir, q := inputRequiredOf(t, root.modernCall(1, "tools/call", wipeCall("hello", nil), nil))
	retry := wipeCall("hello", retryWith(q, ir.RequestState, acceptTicked))
	checkStateRefused(t, "another token's retry", alice.modernCall(2, "tools/call", retry, nil), "another caller")
	if n := b.calls.Load(); n != 0 {
		t.Fatalf("another token's retry ran the call: %d backend calls", n)
	}
	if tr := toolResultOf(t, root.modernCall(3, "tools/call", retry, nil).last(t)); tr.IsError {
		t.Fatalf("the asked token's retry: %s", tr.text())
	}
	mu.Lock()
	defer mu.Unlock()
	if len(callers) != 1 || callers[0] != "token:root/TIER_ADMIN" {
		t.Fatalf("the worker was told the callers %v, want token:root/TIER_ADMIN", callers)
	}
}
