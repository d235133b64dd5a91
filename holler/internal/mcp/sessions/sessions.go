// Package sessions is a session's state (Session: its lifecycle, negotiated version, the
// client's capabilities, its requests in flight and where its notifications go) and the store
// of a gateway's sessions: by id, with idle ones expired, and the least recently used one ended
// when a new one would exceed the bound, among the sessions of its own caller when the caller
// holds a quarter of them. The transports fill a session; the server's methods read it.
package sessions

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// A Member is a session the store keeps.
type Member interface {
	comparable
	// ID is the session's id; empty for a session attached without one.
	ID() string
	// Owner is the caller that started the session behind access control, or "".
	Owner() string
	// IdleSince returns when the session was last used, and whether it has no request in
	// flight.
	IdleSince() (last time.Time, idle bool)
	// Touch counts the session as used now.
	Touch()
	// End ends the session and every request in flight.
	End()
}

// A Store holds the HTTP sessions by id, expires idle ones, and ends the least
// recently used one when a new one would exceed its bound.
type Store[S Member] struct {
	idle time.Duration
	max  int
	// perOwner bounds the sessions of one caller behind access control, so that one token
	// cannot end everyone else's sessions by starting new ones.
	perOwner int
	log      *slog.Logger
	// owners counts the sessions of each caller behind access control.
	owners map[string]int

	evicted, expired atomic.Uint64

	mu   sync.Mutex
	m    map[string]S
	anon map[S]struct{}

	stop chan struct{}
	wg   sync.WaitGroup
}

// New returns a store whose janitor expires sessions idle for longer than idle. Close stops
// the janitor.
// At most max sessions are kept (zero or less: no bound); log hears of the ones ended.
func New[S Member](idle time.Duration, max int, log *slog.Logger) *Store[S] {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	st := &Store[S]{idle: idle, max: max, perOwner: max / 4, log: log, owners: make(map[string]int),
		m: make(map[string]S), anon: make(map[S]struct{}), stop: make(chan struct{})}
	st.wg.Add(1)
	go st.janitor()
	return st
}

// NewID returns a new, unguessable session id of visible ASCII characters.
func NewID() string {
	return hex.EncodeToString(randomBytes(16))
}

// randomBytes returns n bytes from the system's secure random source.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	// crypto/rand.Read never fails; it crashes the program if the system source does.
	_, _ = rand.Read(b)
	return b
}

// Add stores s under its id. When the store is full, the least recently used session makes
// room: one without requests in flight if there is one (an open GET stream is a request in
// flight), the least recently used of all otherwise. Its client is answered 404 from then on,
// and initializes again. Behind access control a caller that holds a quarter of the sessions
// makes room among its own, so that it cannot end the sessions of others.
func (st *Store[S]) Add(s S) {
	var gone S
	var ending bool
	st.mu.Lock()
	if _, there := st.m[s.ID()]; !there && st.max > 0 {
		switch {
		case s.Owner() != "" && st.perOwner > 0 && st.owners[s.Owner()] >= st.perOwner:
			gone, ending = st.leastRecentlyUsed(s.Owner())
		case len(st.m) >= st.max:
			gone, ending = st.leastRecentlyUsed("")
		}
		if ending {
			st.forget(gone)
		}
	}
	st.m[s.ID()] = s
	if s.Owner() != "" {
		st.owners[s.Owner()]++
	}
	st.mu.Unlock()
	if ending {
		st.evicted.Add(1)
		last, _ := gone.IdleSince()
		st.log.Warn("mcp: ended the least recently used session to make room for a new one; its client will be told to initialize again",
			"session", gone.ID(), "idle", time.Since(last).Round(time.Second), "max_sessions", st.max)
		gone.End()
	}
}

// forget takes s out of the store; st.mu is held.
func (st *Store[S]) forget(s S) {
	delete(st.m, s.ID())
	if o := s.Owner(); o != "" {
		if st.owners[o]--; st.owners[o] <= 0 {
			delete(st.owners, o)
		}
	}
}

// leastRecentlyUsed returns the session to end for room, among owner's when owner is not
// empty, and whether there is one; st.mu is held.
func (st *Store[S]) leastRecentlyUsed(owner string) (S, bool) {
	var idle, busy S
	var hasIdle, hasBusy bool
	var idleAt, busyAt time.Time
	for _, s := range st.m {
		if owner != "" && s.Owner() != owner {
			continue
		}
		last, isIdle := s.IdleSince()
		switch {
		case isIdle && (!hasIdle || last.Before(idleAt)):
			idle, idleAt, hasIdle = s, last, true
		case !isIdle && (!hasBusy || last.Before(busyAt)):
			busy, busyAt, hasBusy = s, last, true
		}
	}
	if hasIdle {
		return idle, true
	}
	return busy, hasBusy
}

// Peek returns the live session named id without counting it as used.
func (st *Store[S]) Peek(id string) (S, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	s, ok := st.m[id]
	return s, ok
}

// Stats returns the live sessions and the counts of those ended for room and for idleness.
func (st *Store[S]) Stats() (live int, evicted, expired uint64) {
	st.mu.Lock()
	live = len(st.m)
	st.mu.Unlock()
	return live, st.evicted.Load(), st.expired.Load()
}

// Get returns the live session named id.
func (st *Store[S]) Get(id string) (S, bool) {
	st.mu.Lock()
	s, ok := st.m[id]
	st.mu.Unlock()
	if ok {
		s.Touch()
	}
	return s, ok
}

// Remove ends the session named id and forgets it; ok is false if there was none.
func (st *Store[S]) Remove(id string) bool {
	st.mu.Lock()
	s, ok := st.m[id]
	if ok {
		st.forget(s)
	}
	st.mu.Unlock()
	if ok {
		s.End()
	}
	return ok
}

// janitor expires idle sessions until the store is closed.
func (st *Store[S]) janitor() {
	defer st.wg.Done()
	t := time.NewTicker(janitorInterval(st.idle))
	defer t.Stop()
	for {
		select {
		case <-st.stop:
			return
		case now := <-t.C:
			st.expire(now)
		}
	}
}

// janitorInterval is how often the janitor looks: often enough that a session outlives its
// idle timeout by at most a quarter of it, and at most once a minute.
func janitorInterval(idle time.Duration) time.Duration {
	return min(max(idle/4, time.Millisecond), time.Minute)
}

// expire ends the sessions idle since before now minus the idle timeout.
func (st *Store[S]) expire(now time.Time) {
	var gone []S
	st.mu.Lock()
	for _, s := range st.m {
		if last, idle := s.IdleSince(); idle && now.Sub(last) > st.idle {
			st.forget(s)
			gone = append(gone, s)
		}
	}
	st.mu.Unlock()
	st.expired.Add(uint64(len(gone)))
	for _, s := range gone {
		s.End()
	}
}

// All returns the live sessions.
func (st *Store[S]) All() []S {
	st.mu.Lock()
	defer st.mu.Unlock()
	out := make([]S, 0, len(st.m))
	for _, s := range st.m {
		out = append(out, s)
	}
	return out
}

// Attach adds a session that has no id (stdio) to the sessions that hear of list changes;
// the function it returns takes it away again.
func (st *Store[S]) Attach(s S) (detach func()) {
	st.mu.Lock()
	st.anon[s] = struct{}{}
	st.mu.Unlock()
	return func() {
		st.mu.Lock()
		delete(st.anon, s)
		st.mu.Unlock()
	}
}

// Everyone returns the HTTP and the stdio sessions.
func (st *Store[S]) Everyone() []S {
	out := st.All()
	st.mu.Lock()
	for s := range st.anon {
		out = append(out, s)
	}
	st.mu.Unlock()
	return out
}

// Close stops the janitor and ends every session.
func (st *Store[S]) Close() {
	close(st.stop)
	st.wg.Wait()
	st.mu.Lock()
	all := st.m
	st.m = make(map[string]S)
	clear(st.owners)
	st.mu.Unlock()
	for _, s := range all {
		s.End()
	}
}
