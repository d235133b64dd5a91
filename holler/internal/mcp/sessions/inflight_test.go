package sessions

import (
	"context"
	"errors"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/loglevel"
)

// TestSessionRequestsBesideTheFirst: the first request in flight and those beside it are one
// set: an id in flight in either is a duplicate, Cancel and End reach both, the session is
// idle only when both are over, and a request that ends leaves the others' ids usable.
func TestSessionRequestsBesideTheFirst(t *testing.T) {
	s := NewSession("s3")
	begin := func(key string) (context.Context, func()) {
		t.Helper()
		ctx, done, err := s.Begin(context.Background(), key, nil)
		if err != nil {
			t.Fatalf("Begin(%q): %v", key, err)
		}
		return ctx, done
	}
	_, done1 := begin("1")
	ctx2, done2 := begin("2")
	ctx3, done3 := begin("3")
	for _, key := range []string{"1", "2", "3"} {
		if _, _, err := s.Begin(context.Background(), key, nil); !errors.Is(err, ErrDuplicateID) {
			t.Errorf("a second request with id %s beside the others: %v", key, err)
		}
	}
	done1()
	if _, idle := s.IdleSince(); idle {
		t.Error("the session is idle with two requests in flight")
	}
	// The first's place is free again; id 1 may be used once more, id 2 still may not.
	ctx1, done1 := begin("1")
	if _, _, err := s.Begin(context.Background(), "2", nil); !errors.Is(err, ErrDuplicateID) {
		t.Errorf("id 2 after id 1 ended: %v", err)
	}
	if !s.Cancel("2") || !errors.Is(context.Cause(ctx2), ErrCancelledByClient) || ctx1.Err() != nil || ctx3.Err() != nil {
		t.Errorf("cancel 2: causes %v, %v, %v", context.Cause(ctx1), context.Cause(ctx2), context.Cause(ctx3))
	}
	if s.Cancel("4") {
		t.Error("Cancel of an id never in flight reported true")
	}
	done2()
	s.End()
	if !errors.Is(context.Cause(ctx1), ErrEnded) || !errors.Is(context.Cause(ctx3), ErrEnded) {
		t.Errorf("end: causes %v, %v", context.Cause(ctx1), context.Cause(ctx3))
	}
	done1()
	done3()
	if _, idle := s.IdleSince(); !idle {
		t.Error("a session whose requests are over is not idle")
	}
}

// TestNewModern: the session of a stateless request is initialized at its version, with its
// capabilities and level, and has an event log of its own with the bounds it was given.
func TestNewModern(t *testing.T) {
	s := NewModern("2026-07-28", Capabilities{Sampling: true}, loglevel.Warning, 2, 1<<10)
	if !s.Modern || !s.IsInitialized() || s.ProtocolVersion() != "2026-07-28" || !s.Caps().Sampling || !s.Passes(loglevel.Error) || s.Passes(loglevel.Info) {
		t.Fatalf("session: modern %v, initialized %v, version %q, caps %+v", s.Modern, s.IsInitialized(), s.ProtocolVersion(), s.Caps())
	}
	if s.Events == nil {
		t.Fatal("no event log")
	}
	st := s.Events.NewStream()
	for _, d := range []string{"a", "b", "c"} {
		s.Events.Append(st, []byte(d))
	}
	events, _, _ := s.Events.Since(st, 0)
	if len(events) != 2 || string(events[1].Data) != "c" {
		t.Fatalf("a log of 2 events kept %d: %v", len(events), events)
	}
	other := NewModern("2026-07-28", Capabilities{}, loglevel.Silent, 2, 1<<10)
	if other.Events == s.Events {
		t.Fatal("two sessions share a log")
	}
}
