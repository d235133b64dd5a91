package jobs

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
)

// TestRunner is the contract of the runner and its store: every case runs against each
// database engine, on a database of its own.
func TestRunner(t *testing.T) {
	servicetest.EachEngine(t, func(t *testing.T, engine database.Engine) {
		for _, c := range []struct {
			name string
			fn   func(*testing.T, database.Engine)
		}{
			{"Outcomes", testOutcomes},
			{"CancelStopsTheWork", testCancelStopsTheWork},
			{"AwaitAnyAndTimeout", testAwaitAnyAndTimeout},
			{"RestartFailsOrphans", testRestartFailsOrphans},
			{"Retention", testRetention},
			{"CloseFailsRunningJobs", testCloseFailsRunningJobs},
			{"ListAndCount", testListAndCount},
			{"CancelFromAnotherProcess", testCancelFromAnotherProcess},
			{"TakeUpRunsAResumableJobOnce", testTakeUpRunsAResumableJobOnce},
			{"TakeUpEndsWhatItCannotRun", testTakeUpEndsWhatItCannotRun},
			{"StopHandsResumableJobsOver", testStopHandsResumableJobsOver},
			{"LeaseLapsesAndAnotherWorkerTakesOver", testLeaseLapsesAndAnotherWorkerTakesOver},
			{"BacklogDoesNotHideLapsed", testBacklogDoesNotHideLapsed},
			{"HandOversAreNotFailedRuns", testHandOversAreNotFailedRuns},
			{"WaitsForAnswers", testWaitsForAnswers},
			{"CancelWhileWaiting", testCancelWhileWaiting},
		} {
			t.Run(c.name, func(t *testing.T) {
				t.Parallel()
				c.fn(t, engine)
			})
		}
	})
}

// newRunner returns a runner over a new database of the engine, and the target that opens the
// database again.
func newRunner(t *testing.T, engine database.Engine, cfg Config) (*Runner, string) {
	t.Helper()
	db, path := servicetest.OpenDatabase(t, engine)
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

func testOutcomes(t *testing.T, engine database.Engine) {
	r, _ := newRunner(t, engine, Config{})
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

func testCancelStopsTheWork(t *testing.T, engine database.Engine) {
	r, _ := newRunner(t, engine, Config{Concurrency: 1})
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

func testAwaitAnyAndTimeout(t *testing.T, engine database.Engine) {
	r, _ := newRunner(t, engine, Config{})
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

func testRestartFailsOrphans(t *testing.T, engine database.Engine) {
	r, path := newRunner(t, engine, Config{})
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

func testRetention(t *testing.T, engine database.Engine) {
	r, _ := newRunner(t, engine, Config{Retention: time.Hour})
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

func testCloseFailsRunningJobs(t *testing.T, engine database.Engine) {
	r, _ := newRunner(t, engine, Config{})
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

func testListAndCount(t *testing.T, engine database.Engine) {
	r, _ := newRunner(t, engine, Config{})
	ctx := context.Background()
	start := time.Now()
	var made []string
	for i := range 7 {
		tool := "a"
		if i%2 == 1 {
			tool = "b"
		}
		j, err := r.Start(ctx, tool, []byte{byte(i)}, func(context.Context, ProgressFunc) Outcome {
			return Outcome{Result: []byte("r"), Failed: tool == "b"}
		})
		if err != nil {
			t.Fatal(err)
		}
		await(t, r, j.ID)
		made = append(made, j.ID)
	}
	slices.Reverse(made)
	for _, tc := range []struct {
		name string
		f    Filter
		want int
	}{
		{"all", Filter{}, 7},
		{"tool", Filter{Tool: "a"}, 4},
		{"status", Filter{Status: StatusFailed}, 3},
		{"tool and status", Filter{Tool: "a", Status: StatusFailed}, 0},
		{"since", Filter{Since: start.Add(-time.Minute)}, 7},
		{"since later", Filter{Since: time.Now().Add(time.Minute)}, 0},
		{"since the end of time", Filter{Since: time.Unix(1<<62, 0)}, 0},
	} {
		js, _, err := r.Store().List(ctx, tc.f)
		if err != nil || len(js) != tc.want {
			t.Errorf("%s: %d jobs, %v; want %d", tc.name, len(js), err, tc.want)
		}
		for _, j := range js {
			if j.Result != nil {
				t.Errorf("%s: List gave a result", tc.name)
			}
		}
	}
	var paged []string
	cursor := ""
	for range 10 {
		js, next, err := r.Store().List(ctx, Filter{Limit: 3, After: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range js {
			paged = append(paged, j.ID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if !slices.Equal(paged, made) {
		t.Errorf("pages gave %v, want %v (newest first)", paged, made)
	}
	if n, err := r.Store().Count(ctx); err != nil || n != 7 {
		t.Errorf("Count = %d, %v; want 7", n, err)
	}
	if got, err := r.Get(ctx, made[0], true); err != nil || string(got.Result) != "r" || got.StartedAt.IsZero() || got.FinishedAt.Before(got.StartedAt) {
		t.Errorf("Get with result = %+v, %v", got, err)
	}
}

// A cancel asked through another connection to the database stops the work in the runner
// that owns the job, within a flush of its progress.
func testCancelFromAnotherProcess(t *testing.T, engine database.Engine) {
	r, target := newRunner(t, engine, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	stopped, running := make(chan struct{}), make(chan struct{})
	j, err := r.Start(ctx, "slow", nil, func(ctx context.Context, report ProgressFunc) Outcome {
		defer close(stopped)
		close(running)
		for i := 0; ctx.Err() == nil && i < 2000; i++ {
			report(float64(i), 0, "working")
			time.Sleep(5 * time.Millisecond)
		}
		return Outcome{Failed: true, Message: "stopped"}
	})
	if err != nil {
		t.Fatal(err)
	}
	db, err := database.Open(ctx, target)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The cancel is asked for once the work runs (asked for earlier, the job would end
	// cancelled without running, which another test covers). Another process's runner would
	// fail this process's jobs as orphans (they share the pid here), so the other side is its
	// store alone: what its runner's Cancel writes.
	<-running
	if ok, err := NewStore(db).requestCancel(ctx, j.ID); err != nil || !ok {
		t.Fatalf("requestCancel from the other store = %v, %v", ok, err)
	}
	if got := await(t, r, j.ID); got.Status != StatusCancelled {
		t.Errorf("job cancelled from the other store = %+v", got)
	}
	select {
	case <-stopped:
	case <-ctx.Done():
		t.Fatal("the work did not stop")
	}
}
