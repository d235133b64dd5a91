package sessions

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// fake is a session of the store's tests.
type fake struct {
	id, owner string
	mu        sync.Mutex
	last      time.Time
	busy      bool
	ended     bool
}

func (f *fake) ID() string    { return f.id }
func (f *fake) Owner() string { return f.owner }
func (f *fake) IdleSince() (time.Time, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last, !f.busy
}
func (f *fake) Touch() { f.mu.Lock(); f.last = time.Now(); f.mu.Unlock() }
func (f *fake) End()   { f.mu.Lock(); f.ended = true; f.mu.Unlock() }

func (f *fake) hasEnded() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.ended
}

// TestAttackSessionFloodWithAToken: behind access control, a caller that starts session after
// session makes room among its own once it holds a quarter of the bound (here 2 of 8), and the
// sessions of another caller live on.
func TestAttackSessionFloodWithAToken(t *testing.T) {
	t.Parallel()
	st := New[*fake](time.Hour, 8, nil)
	defer st.Close()
	add := func(id, owner string) *fake {
		s := &fake{id: id, owner: owner, last: time.Now()}
		st.Add(s)
		return s
	}
	for i := range 2 {
		add(fmt.Sprintf("bob-%d", i), "token:bob")
	}
	for i := range 100 {
		add(fmt.Sprintf("mallory-%d", i), "token:mallory")
	}
	live, evicted, _ := st.Stats()
	if live != 4 || evicted != 98 {
		t.Fatalf("%d live, %d ended; want bob's 2 and mallory's 2, and 98 of mallory's ended", live, evicted)
	}
	for i := range 2 {
		if _, ok := st.Peek(fmt.Sprintf("bob-%d", i)); !ok {
			t.Fatalf("bob's session %d was ended by mallory's", i)
		}
	}
	if _, ok := st.Peek("mallory-99"); !ok {
		t.Fatal("mallory's newest session is not there")
	}
	// Sessions without a caller (no access control) share the whole store, least recently
	// used first: bob's go before the newest anonymous ones.
	for i := range 8 {
		add(fmt.Sprintf("anon-%d", i), "")
	}
	if live, _, _ := st.Stats(); live != 8 {
		t.Fatalf("%d live, want 8", live)
	}
	if _, ok := st.Peek("anon-7"); !ok {
		t.Fatal("the newest session is not there")
	}
	if st.owners["token:bob"] != 0 || st.owners["token:mallory"] != 0 {
		t.Fatalf("owner counts after their sessions ended: %v", st.owners)
	}
}

// TestRoomIsMadeIdleFirst checks that a full store ends the least recently used session
// without requests in flight before a busy one, that Remove and Close end sessions, and that
// expiry ends only idle ones.
func TestRoomIsMadeIdleFirst(t *testing.T) {
	t.Parallel()
	st := New[*fake](time.Hour, 2, nil)
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	busy := &fake{id: "busy", last: epoch, busy: true}
	idle := &fake{id: "idle", last: epoch.Add(time.Second)}
	st.Add(busy)
	st.Add(idle)
	st.Add(&fake{id: "new", last: epoch.Add(2 * time.Second)})
	if !idle.hasEnded() || busy.hasEnded() {
		t.Fatalf("idle ended %v, busy ended %v", idle.hasEnded(), busy.hasEnded())
	}
	if _, ok := st.Get("idle"); ok {
		t.Error("the ended session is still there")
	}
	st.expire(epoch.Add(2 * time.Hour))
	if busy.hasEnded() {
		t.Error("expiry ended a session with a request in flight")
	}
	if live, _, expired := st.Stats(); live != 1 || expired != 1 {
		t.Errorf("after expiry: %d live, %d expired", live, expired)
	}
	if !st.Remove("busy") || !busy.hasEnded() || st.Remove("busy") {
		t.Error("Remove")
	}
	anon := &fake{}
	detach := st.Attach(anon)
	if len(st.Everyone()) != 1 || len(st.All()) != 0 {
		t.Errorf("everyone %d, all %d", len(st.Everyone()), len(st.All()))
	}
	detach()
	last := &fake{id: "last", last: time.Now()}
	st.Add(last)
	st.Close()
	if !last.hasEnded() {
		t.Error("Close left a session alive")
	}
}
