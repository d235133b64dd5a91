package reqstate

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

// memLedger is a Ledger in memory, shared by the signers of a test as the workers' database is
// shared by a fleet's gateways; down makes it fail as an unreachable one does.
type memLedger struct {
	mu   sync.Mutex
	keys [][]byte
	down bool
}

func (l *memLedger) UseState(_ context.Context, key []byte, _ time.Time) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.down {
		return false, errors.New("no worker serves the ledger")
	}
	for _, k := range l.keys {
		if bytes.Equal(k, key) {
			return false, nil
		}
	}
	l.keys = append(l.keys, key)
	return true, nil
}

// TestUsedStatesInLedger takes one state at two signers that share a ledger, as two gateways of
// a fleet (or one gateway and itself after a restart) do: the second is refused as already
// used; while the ledger cannot be reached nothing is taken, and nothing is remembered as taken.
func TestUsedStatesInLedger(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	shared := &memLedger{}
	a, _ := New([]byte("0123456789abcdef0123456789abcdef"))
	b, _ := New([]byte("0123456789abcdef0123456789abcdef"))
	a.SetLedger(shared)
	b.SetLedger(shared)
	exp := time.Now().Add(time.Minute)
	if err := a.Use(ctx, "q1", exp); err != nil {
		t.Fatalf("first use: %v", err)
	}
	for name, g := range map[string]*Signer{"the same signer": a, "another signer": b} {
		var se *Error
		if err := g.Use(ctx, "q1", exp); !errors.As(err, &se) || !strings.Contains(se.Why, "already used") {
			t.Errorf("a replay at %s = %v, want refused as already used", name, err)
		}
	}
	if k := LedgerKey("q1"); len(k) != KeyBytes || bytes.Contains(k, []byte("q1")) {
		t.Errorf("LedgerKey = %x", k)
	}

	shared.mu.Lock()
	shared.down = true
	shared.mu.Unlock()
	var se *Error
	if err := b.Use(ctx, "q2", exp); !errors.As(err, &se) || !strings.Contains(se.Why, "could not record") || !strings.Contains(se.Hint, "again") {
		t.Fatalf("a use while the ledger is down = %v, want refused with the way to retry", err)
	}
	shared.mu.Lock()
	shared.down = false
	shared.mu.Unlock()
	if err := b.Use(ctx, "q2", exp); err != nil {
		t.Fatalf("the same state once the ledger is back = %v, want taken", err)
	}
}

func TestUsedStatesBounded(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	g, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	g.SetClock(func() time.Time { return now })
	g.SetMaxUsed(2)
	exp := now.Add(time.Minute)
	if g.Use(ctx, "a", exp) != nil || g.Use(ctx, "b", exp) != nil {
		t.Fatal("the first two states were refused")
	}
	var se *Error
	if err := g.Use(ctx, "c", exp); !errors.As(err, &se) || !strings.Contains(se.Hint, "again in 1m1s") {
		t.Errorf("a third state with room for two, none expired: %v (hint %q), want a refusal saying when to retry", err, se.Hint)
	}
	now = exp
	if err := g.Use(ctx, "c", now.Add(time.Minute)); err != nil {
		t.Errorf("a state was refused after the others expired: %v", err)
	}
	if len(g.used) != 1 {
		t.Errorf("%d states remembered, want 1", len(g.used))
	}
}

func TestTaskIDs(t *testing.T) {
	t.Parallel()
	g, err := New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	id := g.TaskID("job_01m8a0dg0x4mgjcxewfcdh0b62")
	if job, ok := g.JobOfTask(id); !ok || job != "job_01m8a0dg0x4mgjcxewfcdh0b62" {
		t.Fatalf("JobOfTask(%q) = %q, %v", id, job, ok)
	}
	// Neighbouring job ids have unrelated tags, and no tag works for another job.
	next := g.TaskID("job_01m8a0dg0x4mgjcxewfcdh0b63")
	_, tag, _ := strings.Cut(id, ".")
	_, nextTag, _ := strings.Cut(next, ".")
	if tag == nextTag {
		t.Errorf("two jobs share the tag %q", tag)
	}
	if _, ok := g.JobOfTask("job_01m8a0dg0x4mgjcxewfcdh0b63." + tag); ok {
		t.Error("a tag of one job opened another")
	}
	for _, bad := range []string{"", ".", "job_x", id + "x", id[:len(id)-1], strings.ToUpper(id), "x." + tag} {
		if _, ok := g.JobOfTask(bad); ok {
			t.Errorf("JobOfTask(%q) accepted it", bad)
		}
	}
}

// FuzzTaskID checks that no string but one this signer made opens a job, and that what it
// makes always opens.
func FuzzTaskID(f *testing.F) {
	g, err := New([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		f.Fatal(err)
	}
	valid := g.TaskID("job_01m8a0dg0x4mgjcxewfcdh0b62")
	for _, s := range []string{valid, "", ".", "job_x.", "job_x.AAAA", valid + "=", strings.Repeat(".", 300)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		job, ok := g.JobOfTask(s)
		if ok && g.TaskID(job) != s {
			t.Fatalf("JobOfTask(%q) opened %q, whose task id is %q", s, job, g.TaskID(job))
		}
		if !strings.Contains(s, ".") && len(s) <= MaxTaskIDLength {
			if _, ok := g.JobOfTask(g.TaskID(s)); !ok && s != "" {
				t.Fatalf("the task id of %q does not open", s)
			}
		}
	})
}

// FuzzOpenState feeds arbitrary requestStates to the signer: none but the one it minted opens,
// and none panics.
func FuzzOpenState(f *testing.F) {
	g, err := New([]byte("a fixed key for the fuzzer, 32 bytes"))
	if err != nil {
		f.Fatal(err)
	}
	minted, err := g.Seal(State{Method: methodToolsCall, Name: "t", Args: "a",
		Asked: map[string]string{"k": "d"}, Answers: map[string]Answer{"j": {Question: "q", Answer: json.RawMessage(`{"action":"accept"}`)}}})
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range []string{minted, minted + "-TAMPERED", "s2..", "s2.e30.", "c1.abc.def", "", strings.Repeat(".", 10)} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, state string) {
		st, err := g.Open(state, methodToolsCall, "t", "a", "")
		if err == nil && state != minted {
			// HMAC-SHA256 is not forged by a fuzzer: a state other than the minted one can only
			// open if it differs in base64 padding bits, and then it says the same.
			if st.Name != "t" || st.Asked["k"] != "d" || string(st.Answers["j"].Answer) != `{"action":"accept"}` {
				t.Fatalf("opened a state it did not mint: %q = %+v", state, st)
			}
		}
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("error of type %T", err)
			}
		}
	})
}
