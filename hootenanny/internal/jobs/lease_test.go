package jobs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
)

// echoResumer resumes jobs of tool "again" by running work with their request; it counts runs.
type echoResumer struct {
	runs atomic.Int32
	work func(ctx context.Context, request []byte) Outcome
}

func (e *echoResumer) Resumable(tool string) bool { return tool == "again" }

func (e *echoResumer) Serves(tool string) bool { return tool == "again" || tool == "asks" }

func (e *echoResumer) Resume(tool string, request []byte) (Func, error) {
	if string(request) == "undecodable" {
		return nil, errors.New("the request does not decode")
	}
	return func(ctx context.Context, _ ProgressFunc) Outcome {
		e.runs.Add(1)
		if e.work != nil {
			return e.work(ctx, request)
		}
		return Outcome{Result: append([]byte("ran "), request...)}
	}, nil
}

// openAgain opens a second Runner on the database at path, as a second worker process would.
func openAgain(t *testing.T, path string, cfg Config) *Runner {
	t.Helper()
	db, err := database.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRunner(context.Background(), NewStore(db), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); db.Close() })
	return r
}

func testTakeUpRunsAResumableJobOnce(t *testing.T, engine database.Engine) {
	r, path := newRunner(t, engine, Config{})
	ctx := context.Background()
	dead := Job{ID: "job_00000000000000000000000010", Tool: "again", Status: StatusRunning, CreatedAt: time.Now()}
	if err := r.store.insert(ctx, dead, []byte("the request"), "elsewhere/1/00", time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	// Three workers look for orphans at once: one claim wins.
	res := &echoResumer{}
	others := []*Runner{r, openAgain(t, path, Config{}), openAgain(t, path, Config{})}
	var wg sync.WaitGroup
	for _, o := range others {
		wg.Go(func() {
			if err := o.TakeUp(ctx, res); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	got := await(t, r, dead.ID)
	if got.Status != StatusSucceeded || string(got.Result) != "ran the request" {
		t.Fatalf("taken-up job = %+v (result %q), want succeeded with the work's result", got, got.Result)
	}
	if n := res.runs.Load(); n != 1 {
		t.Errorf("the job ran %d times, want once", n)
	}
	var attempts int
	if err := r.store.db.QueryRowContext(ctx, `SELECT attempts FROM jobs WHERE id = ?`, dead.ID).Scan(&attempts); err != nil || attempts != 2 {
		t.Errorf("attempts = %d, %v; want 2", attempts, err)
	}
}

func testTakeUpEndsWhatItCannotRun(t *testing.T, engine database.Engine) {
	r, _ := newRunner(t, engine, Config{})
	ctx := context.Background()
	past := time.Now().Add(-time.Second)
	cases := []struct {
		job      Job
		request  string
		attempts int
		cancel   bool
		want     Status
		message  string
	}{
		{Job{ID: "job_00000000000000000000000021", Tool: "once"}, "x", 1, false, StatusFailed, "run the tool again"},
		{Job{ID: "job_00000000000000000000000022", Tool: "again"}, "x", MaxAttempts, false, StatusFailed, fmt.Sprintf("during each of its %d runs", MaxAttempts)},
		{Job{ID: "job_00000000000000000000000023", Tool: "again"}, "x", 1, true, StatusCancelled, "cancelled"},
		{Job{ID: "job_00000000000000000000000024", Tool: "again"}, "undecodable", 1, false, StatusFailed, "does not decode"},
	}
	for _, c := range cases {
		c.job.Status, c.job.CreatedAt = StatusRunning, time.Now()
		if err := r.store.insert(ctx, c.job, []byte(c.request), "elsewhere/1/00", past); err != nil {
			t.Fatal(err)
		}
		if _, err := r.store.db.ExecContext(ctx, `UPDATE jobs SET attempts = ?, cancel_requested = ? WHERE id = ?`, c.attempts, map[bool]int{true: 1}[c.cancel], c.job.ID); err != nil {
			t.Fatal(err)
		}
	}
	res := &echoResumer{}
	if err := r.TakeUp(ctx, res); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		got, err := r.Get(ctx, c.job.ID, false)
		if err != nil || got.Status != c.want || !strings.Contains(got.Message, c.message) {
			t.Errorf("job of %s (request %q, %d runs, cancel %v) = %v %q, %v; want %v with %q",
				c.job.Tool, c.request, c.attempts, c.cancel, got.Status, got.Message, err, c.want, c.message)
		}
	}
	if n := res.runs.Load(); n != 0 {
		t.Errorf("%d jobs ran, want none", n)
	}
}

func testStopHandsResumableJobsOver(t *testing.T, engine database.Engine) {
	first, path := newRunner(t, engine, Config{})
	ctx := context.Background()
	running := make(chan struct{})
	res := &echoResumer{}
	if err := first.TakeUp(ctx, res); err != nil {
		t.Fatal(err)
	}
	j, err := first.Start(ctx, "again", []byte("long"), func(ctx context.Context, _ ProgressFunc) Outcome {
		close(running)
		<-ctx.Done()
		return Outcome{Failed: true, Message: "stopped"}
	})
	if err != nil {
		t.Fatal(err)
	}
	<-running
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	second := openAgain(t, path, Config{})
	if got, _ := second.Get(ctx, j.ID, false); got.Status != StatusPending {
		t.Fatalf("a resumable job after its worker stopped = %v %q, want pending for another worker", got.Status, got.Message)
	}
	if err := second.TakeUp(ctx, res); err != nil {
		t.Fatal(err)
	}
	if got := await(t, second, j.ID); got.Status != StatusSucceeded || string(got.Result) != "ran long" {
		t.Fatalf("handed-over job = %v %q, want succeeded", got.Status, got.Result)
	}
}

func testLeaseLapsesAndAnotherWorkerTakesOver(t *testing.T, engine database.Engine) {
	// The first worker's claim is renewed every 100ms; here it stops renewing because its
	// owner is changed under it, as when another worker took the job up after the lease
	// lapsed: the first stops its work and writes nothing more.
	first, _ := newRunner(t, engine, Config{LeaseTTL: 300 * time.Millisecond})
	ctx := context.Background()
	stopped := make(chan error, 1)
	running := make(chan struct{})
	j, err := first.Start(ctx, "again", nil, func(ctx context.Context, _ ProgressFunc) Outcome {
		close(running)
		<-ctx.Done()
		stopped <- context.Cause(ctx)
		return Outcome{Result: []byte("first")}
	})
	if err != nil {
		t.Fatal(err)
	}
	<-running
	if _, err := first.store.db.ExecContext(ctx, `UPDATE jobs SET owner = 'elsewhere/9/00' WHERE id = ?`, j.ID); err != nil {
		t.Fatal(err)
	}
	select {
	case cause := <-stopped:
		if !errors.Is(cause, errLostClaim) {
			t.Errorf("the work stopped with %v, want the lost claim", cause)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the first worker's work did not stop within 10s of losing its claim")
	}
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		first.mu.Lock()
		n := len(first.live)
		first.mu.Unlock()
		if n == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	got, _ := first.store.Get(ctx, j.ID, true)
	if got.Status != StatusRunning || got.Result != nil {
		t.Errorf("the job after the first worker lost it = %v %q, want running, left to its new owner", got.Status, got.Result)
	}
}

// A job whose end could not be written (the database failed at that moment, each time it was
// tried) is no longer renewed by its owner: its lease lapses and a takeover ends it. (SQLite
// only: the failure is a trigger in SQLite's syntax.)
func TestUnwrittenEndIsTakenUp(t *testing.T) {
	t.Parallel()
	db, path := servicetest.OpenDatabase(t, database.SQLite)
	ctx := context.Background()
	ttl := 300 * time.Millisecond
	r, err := NewRunner(ctx, NewStore(db), Config{LeaseTTL: ttl})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := db.ExecContext(ctx, `CREATE TRIGGER fail_finish BEFORE UPDATE OF finished_at ON jobs
		WHEN NEW.finished_at IS NOT NULL BEGIN SELECT RAISE(ABORT, 'injected outage'); END`); err != nil {
		t.Fatal(err)
	}
	j, err := r.Start(ctx, "t", nil, func(ctx context.Context, _ ProgressFunc) Outcome { return Outcome{Result: []byte("ok")} })
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(10 * time.Millisecond) { // until the job has ended in its runner
		r.mu.Lock()
		n := len(r.live)
		r.mu.Unlock()
		if n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the job never ended in its runner")
		}
	}
	if _, err := db.ExecContext(ctx, `DROP TRIGGER fail_finish`); err != nil {
		t.Fatal(err)
	}
	other := openAgain(t, path, Config{LeaseTTL: ttl})
	// Take up lapsed leases, as a runner does now and then, until the job is done: its lease
	// lapses within one TTL, so ten are plenty.
	deadline := time.Now().Add(10 * ttl)
	got, _ := other.Get(ctx, j.ID, false)
	for !got.Status.Done() && time.Now().Before(deadline) {
		time.Sleep(ttl / 3)
		if err := other.TakeUp(ctx, nil); err != nil {
			t.Fatal(err)
		}
		got, _ = other.Get(ctx, j.ID, false)
	}
	if !got.Status.Done() {
		t.Fatalf("after %v (10 leases) the job whose end was not written is still %v", 10*ttl, got.Status)
	}
}

// A live worker on the same host with a backlog of pending jobs does not hide a job whose lease
// lapsed from a takeover.
func testBacklogDoesNotHideLapsed(t *testing.T, engine database.Engine) {
	db, path := servicetest.OpenDatabase(t, engine)
	ctx := context.Background()
	busy, err := NewRunner(ctx, NewStore(db), Config{Concurrency: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	block := func(ctx context.Context, _ ProgressFunc) Outcome { <-ctx.Done(); return Outcome{} }
	for range 40 {
		if _, err := busy.Start(ctx, "t", nil, block); err != nil {
			t.Fatal(err)
		}
	}
	lapsed := Job{ID: "job_zzzzzzzzzzzzzzzzzzzzzzzzzz", Tool: "t", Status: StatusRunning, CreatedAt: time.Now()}
	if err := busy.store.insert(ctx, lapsed, nil, "elsewhere/1/00", time.Now().Add(-time.Minute)); err != nil {
		t.Fatal(err)
	}
	other := openAgain(t, path, Config{Concurrency: 4})
	if err := other.TakeUp(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := other.Get(ctx, lapsed.ID, false); !got.Status.Done() {
		t.Fatalf("a job whose lease lapsed a minute ago is still %v after TakeUp, behind 40 live jobs of another worker on this host", got.Status)
	}
}

// A worker that stops in good order hands a resumable job over, and that does not count as a
// run that failed: a job handed over MaxAttempts times (a rolling restart) still runs.
func testHandOversAreNotFailedRuns(t *testing.T, engine database.Engine) {
	db, path := servicetest.OpenDatabase(t, engine)
	ctx := context.Background()
	seed, err := NewRunner(ctx, NewStore(db), Config{})
	if err != nil {
		t.Fatal(err)
	}
	j := Job{ID: "job_00000000000000000000000099", Tool: "again", Status: StatusRunning, CreatedAt: time.Now()}
	if err := seed.store.insert(ctx, j, []byte("x"), "elsewhere/1/00", time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	seed.Close()
	res := &echoResumer{work: func(ctx context.Context, _ []byte) Outcome { <-ctx.Done(); return Outcome{} }}
	for range MaxAttempts {
		db2, err := database.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		r, err := NewRunner(ctx, NewStore(db2), Config{})
		if err != nil {
			t.Fatal(err)
		}
		if err := r.TakeUp(ctx, res); err != nil {
			t.Fatal(err)
		}
		r.Close() // a graceful stop: the job is handed over
		db2.Close()
	}
	last := openAgain(t, path, Config{})
	if err := last.TakeUp(ctx, res); err != nil {
		t.Fatal(err)
	}
	got, _ := last.Get(ctx, j.ID, false)
	t.Logf("after %d graceful hand-overs: %v %q", MaxAttempts, got.Status, got.Message)
	if got.Status == StatusFailed {
		t.Errorf("the job failed although no worker running it ever crashed")
	}
}
