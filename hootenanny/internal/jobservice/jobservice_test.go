package jobservice

import (
	"context"
	"errors"
	"log/slog"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/jobs"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

func newHandler(t *testing.T, engine database.Engine) *Handler {
	t.Helper()
	db, _ := servicetest.OpenDatabase(t, engine)
	r, err := jobs.NewRunner(context.Background(), jobs.NewStore(db), jobs.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return New(r, slog.New(slog.DiscardHandler))
}

var payload = &hootv1.Payload{Request: &hootv1.Payload_CasVerify{CasVerify: &hootv1.CasVerifyRequest{}}}

func start(t *testing.T, h *Handler, run func(context.Context) (*hootv1.Result, error)) string {
	t.Helper()
	res, err := h.StartJob(context.Background(), "cas_verify", payload, run)
	if err != nil {
		t.Fatal(err)
	}
	js := res.GetJobStarted()
	if js.GetTool() != "cas_verify" || js.GetStatus() != hootv1.JobStatus_JOB_STATUS_PENDING {
		t.Errorf("job started = %v", js)
	}
	return js.GetJobId()
}

func TestJobLifecycle(t *testing.T) { servicetest.EachEngine(t, testJobLifecycle) }

func testJobLifecycle(t *testing.T, engine database.Engine) {
	h := newHandler(t, engine)
	ctx := context.Background()
	ok := start(t, h, func(ctx context.Context) (*hootv1.Result, error) {
		hooteproto.ReportProgress(ctx, 1, 1, "checked one")
		return &hootv1.Result{Result: &hootv1.Result_CasVerify{CasVerify: &hootv1.CasVerifyResult{Checked: 1}}}, nil
	})
	failed := start(t, h, func(context.Context) (*hootv1.Result, error) {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "bad hash").WithField("hashes[0]")
	})
	res, err := h.JobAwait(ctx, &hootv1.JobAwaitRequest{Ids: []string{ok, failed}})
	if err != nil || res.GetTimedOut() || len(res.GetJobs()) != 2 {
		t.Fatalf("job_await = %v, %v", res, err)
	}
	if j := res.GetJobs()[0]; j.GetStatus() != hootv1.JobStatus_JOB_STATUS_SUCCEEDED || j.GetResult().GetCasVerify().GetChecked() != 1 || j.GetProgress() != 1 {
		t.Errorf("succeeded job = %v", j)
	}
	if j := res.GetJobs()[1]; j.GetStatus() != hootv1.JobStatus_JOB_STATUS_FAILED || j.GetResult().GetError().GetField() != "hashes[0]" {
		t.Errorf("failed job = %v", j)
	}
	st, err := h.JobStatus(ctx, &hootv1.JobStatusRequest{Id: ok})
	if err != nil || st.GetJob().GetResult().GetCasVerify() == nil {
		t.Errorf("job_status = %v, %v", st, err)
	}
	list, err := h.JobList(ctx, &hootv1.JobListRequest{Status: hootv1.JobStatus_JOB_STATUS_FAILED})
	if err != nil || len(list.GetJobs()) != 1 || list.GetJobs()[0].GetId() != failed || list.GetJobs()[0].GetResult() != nil {
		t.Errorf("job_list(failed) = %v, %v; want the failed job without its result", list, err)
	}
}

func TestCancel(t *testing.T) { servicetest.EachEngine(t, testCancel) }

func testCancel(t *testing.T, engine database.Engine) {
	h := newHandler(t, engine)
	ctx := context.Background()
	running := make(chan struct{})
	id := start(t, h, func(ctx context.Context) (*hootv1.Result, error) {
		close(running)
		<-ctx.Done()
		return nil, ctx.Err()
	})
	<-running
	res, err := h.JobCancel(ctx, &hootv1.JobCancelRequest{Id: id})
	if err != nil {
		t.Fatal(err)
	}
	j := res.GetJob()
	if j.GetStatus() != hootv1.JobStatus_JOB_STATUS_CANCELLED || j.GetResult().GetError().GetCategory() != hootv1.ErrorCategory_ERROR_CATEGORY_CANCELLED {
		t.Errorf("cancelled job = %v", j)
	}
}

func TestErrors(t *testing.T) { servicetest.EachEngine(t, testErrors) }

func testErrors(t *testing.T, engine database.Engine) {
	h := newHandler(t, engine)
	ctx := context.Background()
	missing := "job_00000000000000000000000000"
	id := start(t, h, func(context.Context) (*hootv1.Result, error) { return &hootv1.Result{}, nil })
	for _, tc := range []struct {
		name  string
		call  func() error
		code  hooteproto.Code
		field string
	}{
		{"status", func() error { _, err := h.JobStatus(ctx, &hootv1.JobStatusRequest{Id: missing}); return err }, hooteproto.CodeNotFound, "id"},
		{"cancel", func() error { _, err := h.JobCancel(ctx, &hootv1.JobCancelRequest{Id: missing}); return err }, hooteproto.CodeNotFound, "id"},
		{"await", func() error {
			_, err := h.JobAwait(ctx, &hootv1.JobAwaitRequest{Ids: []string{id, missing}})
			return err
		}, hooteproto.CodeNotFound, "ids[1]"},
		{"await twice", func() error {
			_, err := h.JobAwait(ctx, &hootv1.JobAwaitRequest{Ids: []string{id, id}})
			return err
		}, hooteproto.CodeInvalidArgument, "ids[1]"},
		{"cursor", func() error { _, err := h.JobList(ctx, &hootv1.JobListRequest{Cursor: "x"}); return err }, hooteproto.CodeInvalidArgument, "cursor"},
	} {
		var e *hooteproto.Error
		if err := tc.call(); !errors.As(err, &e) || e.Code() != tc.code || e.Field() != tc.field || e.Hint() == "" {
			t.Errorf("%s: %v (field %q)", tc.name, err, e.Field())
		}
	}
}

func TestAwaitEndsBeforeTheCallDoes(t *testing.T) {
	servicetest.EachEngine(t, testAwaitEndsBeforeTheCallDoes)
}

func testAwaitEndsBeforeTheCallDoes(t *testing.T, engine database.Engine) {
	h := newHandler(t, engine)
	block := make(chan struct{})
	defer close(block)
	id := start(t, h, func(ctx context.Context) (*hootv1.Result, error) {
		select {
		case <-block:
		case <-ctx.Done():
		}
		return &hootv1.Result{}, nil
	})
	// The call may take 1 s; the wait asks for 50 s and gets the jobs as they stand in time.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	res, err := h.JobAwait(ctx, &hootv1.JobAwaitRequest{Ids: []string{id}, TimeoutMs: 50000})
	if err != nil || !res.GetTimedOut() || res.GetJobs()[0].GetStatus() == hootv1.JobStatus_JOB_STATUS_SUCCEEDED {
		t.Errorf("job_await within a short call = %v, %v; want the running job and timed_out", res, err)
	}
}

// A database that cannot be reached gives a retryable unavailable error, and the job tools work
// again once it is back.
func TestDatabaseUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, proxy := servicetest.CuttableDatabase(t)
	r, err := jobs.NewRunner(ctx, jobs.NewStore(db), jobs.Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	h := New(r, slog.New(slog.DiscardHandler))
	list := func() error {
		_, err := h.JobList(ctx, &hootv1.JobListRequest{})
		return err
	}
	if err := list(); err != nil {
		t.Fatal(err)
	}
	proxy.Cut()
	servicetest.WantUnavailable(t, list())
	_, err = h.JobStatus(ctx, &hootv1.JobStatusRequest{Id: "job_00000000000000000000000000"})
	servicetest.WantUnavailable(t, err)
	proxy.Restore(t)
	servicetest.Eventually(t, list)
}
