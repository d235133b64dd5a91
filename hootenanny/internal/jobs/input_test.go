package jobs

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
)

// asker is a job's work that needs the answers "a" and "b": with fewer it stops at its
// questions; it counts its runs.
type asker struct{ runs atomic.Int32 }

func (a *asker) work(ctx context.Context, _ ProgressFunc) Outcome {
	a.runs.Add(1)
	got := string(AnswersFrom(ctx))
	var missing []string
	for _, k := range []string{"a", "b"} {
		if !strings.Contains(got, k) {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		return Outcome{Questions: []byte(strings.Join(missing, ",")), Message: "waiting"}
	}
	return Outcome{Result: []byte("answered " + got), Message: "done"}
}

// merge answers the questions (comma-separated keys) named in give.
func merge(give string) AnswerFunc {
	return func(questions, answers []byte) ([]byte, []byte, bool, error) {
		var left []string
		for _, q := range strings.Split(string(questions), ",") {
			if strings.Contains(give, q) {
				answers = append(answers, q...)
			} else {
				left = append(left, q)
			}
		}
		return []byte(strings.Join(left, ",")), answers, len(left) > 0, nil
	}
}

func (a *asker) Resumable(string) bool   { return false }
func (a *asker) Serves(tool string) bool { return tool == "asks" }
func (a *asker) Resume(string, []byte) (Func, error) {
	return a.work, nil
}

// waitStatus polls the job until it has status want.
func waitStatus(t *testing.T, r *Runner, id string, want Status) Job {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		j, err := r.Get(context.Background(), id, true)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status == want {
			return j
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %s is %v, want %v", id, j.Status, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func testWaitsForAnswers(t *testing.T, engine database.Engine) {
	r, _ := newRunner(t, engine, Config{})
	ctx := context.Background()
	a := &asker{}
	if err := r.TakeUp(ctx, a); err != nil {
		t.Fatal(err)
	}
	j, err := r.Start(ctx, "asks", nil, a.work)
	if err != nil {
		t.Fatal(err)
	}
	// It stops at its questions and waits, holding no slot: it is not done, and not live.
	parked := waitStatus(t, r, j.ID, StatusInputRequired)
	if string(parked.Questions) != "a,b" || parked.Status.Done() {
		t.Fatalf("parked job = %+v", parked)
	}
	// A partial answer leaves it waiting on the other question.
	got, err := r.Answer(ctx, j.ID, merge("a"))
	if err != nil || got.Status != StatusInputRequired || string(got.Questions) != "b" {
		t.Fatalf("after a partial answer: %+v, %v", got, err)
	}
	if n := a.runs.Load(); n != 1 {
		t.Errorf("the job ran %d times before it was fully answered, want 1", n)
	}
	// The last answer releases it: it runs again with both answers and succeeds.
	if _, err := r.Answer(ctx, j.ID, merge("b")); err != nil {
		t.Fatal(err)
	}
	done := await(t, r, j.ID)
	if done.Status != StatusSucceeded || string(done.Result) != "answered ab" || a.runs.Load() != 2 {
		t.Fatalf("answered job = %+v after %d runs", done, a.runs.Load())
	}
	// Answers to a job that waits for nothing change nothing.
	if again, err := r.Answer(ctx, j.ID, merge("a,b")); err != nil || again.Status != StatusSucceeded {
		t.Errorf("answering a finished job = %+v, %v", again, err)
	}
	if _, err := r.Answer(ctx, "job_00000000000000000000000000", merge("a")); err == nil {
		t.Error("answering a job that does not exist did not fail")
	}
}

func testCancelWhileWaiting(t *testing.T, engine database.Engine) {
	r, _ := newRunner(t, engine, Config{})
	ctx := context.Background()
	a := &asker{}
	j, err := r.Start(ctx, "asks", nil, a.work)
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, r, j.ID, StatusInputRequired)
	got, err := r.Cancel(ctx, j.ID)
	if err != nil || got.Status != StatusCancelled || got.FinishedAt.IsZero() {
		t.Fatalf("cancelled while waiting: %+v, %v", got, err)
	}
	// Late answers do not bring it back.
	if again, err := r.Answer(ctx, j.ID, merge("a,b")); err != nil || again.Status != StatusCancelled {
		t.Errorf("answering a cancelled job = %+v, %v", again, err)
	}
}
