package jobs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
)

func newRunner(t *testing.T, cfg Config) (*Runner, string) {
	t.Helper()
	db, path := servicetest.Database(t)
	r, err := NewRunner(context.Background(), NewStore(db), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, path
}

func await(t *testing.T, r *Runner, id string) Job {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	jobs, timedOut, err := r.Await(ctx, []string{id}, false)
	if err != nil || timedOut {
		t.Fatalf("Await(%s) = %v, timed out %v", id, err, timedOut)
	}
	return jobs[0]
}

func TestOutcomes(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t, Config{})
	for _, tc := range []struct {
		name   string
		fn     Func
		status Status
		result string
		msg    string
	}{
		{"succeeds", func(_ context.Context, report ProgressFunc) Outcome {
			report(3, 3, "all three")
			return Outcome{Result: []byte("ok"), Message: "done"}
		}, StatusSucceeded, "ok", "done"},
		{"fails", func(context.Context, ProgressFunc) Outcome {
			return Outcome{Result: []byte("bad"), Failed: true, Message: "it broke"}
		}, StatusFailed, "bad", "it broke"},
		{"panics", func(context.Context, ProgressFunc) Outcome { panic("boom") }, StatusFailed, "", "the job failed unexpectedly; the worker's log has the details"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, err := r.Start(context.Background(), "tool", []byte("req"), tc.fn)
			if err != nil || j.Status != StatusPending {
				t.Fatalf("Start = %+v, %v", j, err)
			}
			got := await(t, r, j.ID)
			if got.Status != tc.status || string(got.Result) != tc.result || got.Message != tc.msg || got.FinishedAt.IsZero() {
				t.Errorf("job = %+v", got)
			}
		})
	}
	if j, _ := r.Start(context.Background(), "tool", nil, func(_ context.Context, report ProgressFunc) Outcome {
		report(3, 3, "all three")
		return Outcome{}
	}); true {
		if got := await(t, r, j.ID); got.Progress != 3 || got.Total != 3 {
			t.Errorf("final progress = %v/%v, want 3/3", got.Progress, got.Total)
		}
	}
	if _, err := r.Get(context.Background(), "job_00000000000000000000000000", false); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(missing) = %v", err)
	}
}

func TestCancelStopsTheWork(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t, Config{Concurrency: 1})
	stopped := make(chan struct{})
	running := make(chan struct{})
	j, err := r.Start(context.Background(), "slow", nil, func(ctx context.Context, report ProgressFunc) Outcome {
		report(1, 10, "working") // before running is closed: the test reads it then
		close(running)
		<-ctx.Done()
		close(stopped)
		return Outcome{Result: []byte("cancelled"), Failed: true}
	})
	if err != nil {
		t.Fatal(err)
	}
	<-running
	// A second job waits for the only slot.
	queued, _ := r.Start(context.Background(), "queued", nil, func(context.Context, ProgressFunc) Outcome { return Outcome{} })
	if got, _ := r.Get(context.Background(), j.ID, false); got.Status != StatusRunning || got.Message != "working" {
		t.Errorf("running job = %+v", got)
	}
	if got, _ := r.Get(context.Background(), queued.ID, false); got.Status != StatusPending {
		t.Errorf("queued job = %+v, want pending", got)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	got, err := r.Cancel(ctx, j.ID)
	if err != nil || got.Status != StatusCancelled {
		t.Fatalf("Cancel = %+v, %v", got, err)
	}
	select {
	case <-stopped:
	default:
		t.Error("the work did not stop")
	}
	if got := await(t, r, queued.ID); got.Status != StatusSucceeded {
		t.Errorf("queued job after the cancel = %+v", got)
	}
	// Cancelling a finished job changes nothing.
	if again, err := r.Cancel(ctx, queued.ID); err != nil || again.Status != StatusSucceeded {
		t.Errorf("Cancel(finished) = %+v, %v", again, err)
	}
}

func TestAwaitAnyAndTimeout(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t, Config{})
	block := make(chan struct{})
	defer close(block)
	slow, _ := r.Start(context.Background(), "slow", nil, func(ctx context.Context, _ ProgressFunc) Outcome {
		select {
		case <-block:
		case <-ctx.Done():
		}
		return Outcome{}
	})
	fast, _ := r.Start(context.Background(), "fast", nil, func(context.Context, ProgressFunc) Outcome { return Outcome{} })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	jobs, timedOut, err := r.Await(ctx, []string{slow.ID, fast.ID}, true)
	if err != nil || timedOut || jobs[1].Status != StatusSucceeded || jobs[0].Status.Done() {
		t.Errorf("Await(any) = %+v, %v, %v", jobs, timedOut, err)
	}
	short, cancel2 := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel2()
	jobs, timedOut, err = r.Await(short, []string{slow.ID, fast.ID}, false)
	if err != nil || !timedOut || len(jobs) != 2 {
		t.Errorf("Await(all) with a short timeout = %+v, %v, %v", jobs, timedOut, err)
	}
	if _, _, err := r.Await(ctx, []string{"job_00000000000000000000000000"}, false); !errors.Is(err, ErrNotFound) {
		t.Errorf("Await(missing) = %v", err)
	}
}

func TestRestartFailsOrphans(t *testing.T) {
	t.Parallel()
	r, path := newRunner(t, Config{})
	ctx := context.Background()
	host, _ := ownerName()
	hour := time.Now().Add(time.Hour)
	// A job of a process on this host that no longer exists, one of another host whose lease
	// holds, and one of another host whose lease has lapsed.
	orphan := Job{ID: "job_00000000000000000000000001", Tool: "t", Status: StatusRunning, CreatedAt: time.Now()}
	foreign := Job{ID: "job_00000000000000000000000002", Tool: "t", Status: StatusRunning, CreatedAt: time.Now()}
	lapsed := Job{ID: "job_00000000000000000000000003", Tool: "t", Status: StatusRunning, CreatedAt: time.Now()}
	if err := r.store.insert(ctx, orphan, nil, host+"/999999999", hour); err != nil {
		t.Fatal(err)
	}
	if err := r.store.insert(ctx, foreign, nil, "elsewhere/1/00", hour); err != nil {
		t.Fatal(err)
	}
	if err := r.store.insert(ctx, lapsed, nil, "elsewhere/2/00", time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	db, err := database.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	again, err := NewRunner(ctx, NewStore(db), Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	if err := again.TakeUp(ctx, nil); err != nil {
		t.Fatal(err)
	}
	for _, j := range []Job{orphan, lapsed} {
		if got, _ := again.Get(ctx, j.ID, false); got.Status != StatusFailed || got.Message == "" {
			t.Errorf("orphan after restart = %+v, want failed with a reason", got)
		}
	}
	if got, _ := again.Get(ctx, foreign.ID, false); got.Status != StatusRunning {
		t.Errorf("another host's job = %+v, want it left alone", got)
	}
}

func TestRetention(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t, Config{Retention: time.Hour})
	ctx := context.Background()
	j, _ := r.Start(ctx, "t", nil, func(context.Context, ProgressFunc) Outcome { return Outcome{} })
	await(t, r, j.ID)
	if n, err := r.store.purge(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
		t.Errorf("purge of young jobs removed %d, %v", n, err)
	}
	if n, err := r.store.purge(ctx, time.Now().Add(time.Second)); err != nil || n != 1 {
		t.Errorf("purge past retention removed %d, %v; want 1", n, err)
	}
}

func TestCloseFailsRunningJobs(t *testing.T) {
	t.Parallel()
	r, _ := newRunner(t, Config{})
	running := make(chan struct{})
	j, _ := r.Start(context.Background(), "t", nil, func(ctx context.Context, _ ProgressFunc) Outcome {
		close(running)
		<-ctx.Done()
		return Outcome{}
	})
	<-running
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := r.store.Get(context.Background(), j.ID, false)
	if err != nil || got.Status != StatusFailed || got.Message != "the worker stopped while the job ran; run the tool again" {
		t.Errorf("job after Close = %+v, %v", got, err)
	}
	if _, err := r.Start(context.Background(), "t", nil, nil); err == nil {
		t.Error("Start after Close succeeded")
	}
}
