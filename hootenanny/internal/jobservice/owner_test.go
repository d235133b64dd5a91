package jobservice

import (
	"context"
	"strings"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

var (
	admin = &hootv1.Caller{Principal: "token:root", Tier: hootv1.Tier_TIER_ADMIN}
	ann   = &hootv1.Caller{Principal: "token:ann", Tier: hootv1.Tier_TIER_STANDARD}
	bob   = &hootv1.Caller{Principal: "oauth:bob", Tier: hootv1.Tier_TIER_STANDARD}
)

// TestAttackJobOfAnotherCaller starts a job as an admin that waits for an answer, and has
// another standard caller try every job tool on it: each answers as for a job that does not
// exist, and job_list leaves it out; the admin, and a gateway without access control, may.
func TestAttackJobOfAnotherCaller(t *testing.T) {
	servicetest.EachEngine(t, testAttackJobOfAnotherCaller)
}

func testAttackJobOfAnotherCaller(t *testing.T, engine database.Engine) {
	h := newHandler(t, engine)
	as := func(c *hootv1.Caller) context.Context { return hooteproto.WithCaller(context.Background(), c) }
	res, err := h.StartJob(as(admin), "cas_verify", payload, func(ctx context.Context) (*hootv1.Result, error) {
		if _, err := hooteproto.AskClient(ctx, &hootv1.ClientRequest{Request: &hootv1.ClientRequest_Elicitation{Elicitation: &hootv1.ElicitationRequest{Message: "go on?"}}}); err != nil {
			return nil, err
		}
		return &hootv1.Result{Result: &hootv1.Result_CasVerify{CasVerify: &hootv1.CasVerifyResult{Checked: 1}}}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	id := res.GetJobStarted().GetJobId()
	// Ann's own job, and one made without access control.
	idle := func(context.Context) (*hootv1.Result, error) {
		return &hootv1.Result{Result: &hootv1.Result_CasVerify{CasVerify: &hootv1.CasVerifyResult{}}}, nil
	}
	started, err := h.StartJob(as(ann), "cas_verify", payload, idle)
	if err != nil {
		t.Fatal(err)
	}
	mine := started.GetJobStarted().GetJobId()
	anyone := start(t, h, idle)
	for range 200 { // bounded; the job parks at its question within moments
		st, err := h.JobStatus(as(admin), &hootv1.JobStatusRequest{Id: id})
		if err != nil {
			t.Fatal(err)
		}
		if st.GetJob().GetStatus() == hootv1.JobStatus_JOB_STATUS_INPUT_REQUIRED {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}

	missing := "job_01jd8x2k3m4n5p6q7r8s9t0vwx"
	notFound := func(what string, err error) {
		t.Helper()
		e := hooteproto.AsError(err)
		if err == nil || e.Code() != hooteproto.CodeNotFound || strings.Contains(e.Message(), "root") || strings.Contains(e.Hint(), "root") ||
			!strings.Contains(e.Hint(), "a caller sees only its own jobs") {
			t.Errorf("%s of the admin's job by another caller = %v; want not found, naming no owner", what, err)
		}
	}
	// The refusal of another's job says what the refusal of a missing one says.
	_, errOther := h.JobStatus(as(ann), &hootv1.JobStatusRequest{Id: id})
	_, errMissing := h.JobStatus(as(ann), &hootv1.JobStatusRequest{Id: missing})
	notFound("job_status", errOther)
	if strings.ReplaceAll(errOther.Error(), id, "ID") != strings.ReplaceAll(errMissing.Error(), missing, "ID") ||
		hooteproto.AsError(errOther).Hint() != hooteproto.AsError(errMissing).Hint() {
		t.Errorf("another's job (%v) is told apart from a missing one (%v)", errOther, errMissing)
	}
	_, err = h.JobAwait(as(ann), &hootv1.JobAwaitRequest{Ids: []string{mine, id}, TimeoutMs: 1})
	notFound("job_await", err)
	if f := hooteproto.AsError(err).Field(); f != "ids[1]" {
		t.Errorf("job_await names field %q, want ids[1]", f)
	}
	answer := &hootv1.JobAnswerRequest{Id: id, Answers: map[string]*hootv1.ClientResponse{}}
	st, _ := h.JobStatus(as(admin), &hootv1.JobStatusRequest{Id: id})
	for k := range st.GetJob().GetQuestions() {
		answer.Answers[k] = &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Elicitation{Elicitation: &hootv1.ElicitationResult{Action: hootv1.ElicitationAction_ELICITATION_ACTION_ACCEPT}}}
	}
	if len(answer.Answers) != 1 {
		t.Fatalf("the admin's job asks %v", st.GetJob().GetQuestions())
	}
	_, err = h.JobAnswer(as(ann), answer)
	notFound("job_answer", err)
	_, err = h.JobCancel(as(bob), &hootv1.JobCancelRequest{Id: id})
	notFound("job_cancel", err)
	list, err := h.JobList(as(ann), &hootv1.JobListRequest{})
	if err != nil || len(list.GetJobs()) != 1 || list.GetJobs()[0].GetId() != mine {
		t.Errorf("job_list of another caller = %v, %v; want only its own job %s", list, err, mine)
	}
	if st, err := h.JobStatus(as(admin), &hootv1.JobStatusRequest{Id: id}); err != nil || st.GetJob().GetStatus() != hootv1.JobStatus_JOB_STATUS_INPUT_REQUIRED {
		t.Fatalf("after the attempts the admin's job = %v, %v; want it still waiting", st, err)
	}

	// The admin sees every job and answers its own.
	list, err = h.JobList(as(admin), &hootv1.JobListRequest{})
	if err != nil || len(list.GetJobs()) != 3 {
		t.Errorf("job_list of the admin = %v, %v; want all 3 jobs", list, err)
	}
	if _, err := h.JobStatus(as(admin), &hootv1.JobStatusRequest{Id: mine}); err != nil {
		t.Errorf("job_status of another's job by the admin = %v", err)
	}
	if a, err := h.JobAnswer(as(admin), answer); err != nil || a.GetJob().GetStatus() != hootv1.JobStatus_JOB_STATUS_PENDING {
		t.Fatalf("job_answer by the admin = %v, %v; want the job pending again", a, err)
	}
	// Without access control every job is everyone's, as before.
	list, err = h.JobList(context.Background(), &hootv1.JobListRequest{})
	if err != nil || len(list.GetJobs()) != 3 {
		t.Errorf("job_list without a caller = %v, %v; want all 3 jobs", list, err)
	}
	// Ann's cancel of her own job works; a job made without access control is not hers.
	if _, err := h.JobCancel(as(ann), &hootv1.JobCancelRequest{Id: mine}); err != nil {
		t.Errorf("job_cancel of her own job = %v", err)
	}
	_, err = h.JobStatus(as(ann), &hootv1.JobStatusRequest{Id: anyone})
	notFound("job_status of a job started without a caller", err)
}
