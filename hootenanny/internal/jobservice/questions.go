package jobservice

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strconv"
	"sync"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/proto"
)

// A job's questions. A tool that runs as a job asks the client (hooteproto.AskClient) as any
// tool does, but nobody waits on the job's call: a question that has no answer yet stops the
// run, and the job waits with status input_required, its questions kept in its row (as a
// hoot.v1.Job holding only its questions). job_answer keeps the answers (as a
// hoot.v1.JobAnswerRequest holding only its answers); once every question is answered, the job
// runs again from its start, and each question is answered from what was kept.
//
// A question's key is a digest of the question itself (and how many identical ones came before
// it in the run), so a run that asks again the questions of an earlier run finds their answers
// under the same keys, whatever the order in which parallel questions were asked.

// errWaiting is what AskClient returns to a job's tool for a question without an answer yet.
var errWaiting = hooteproto.NewError(hooteproto.CodeUnavailable,
	"the question waits for an answer: the job stops here, and runs again from its start once it is answered")

// questions are the answers a run of a job was given and the questions it asked without one.
type questions struct {
	answers map[string]*hootv1.ClientResponse

	mu    sync.Mutex
	seen  map[string]int
	asked map[string]*hootv1.ClientRequest
}

func newQuestions(stored []byte) *questions {
	return &questions{answers: decodeAnswers(stored), seen: make(map[string]int), asked: make(map[string]*hootv1.ClientRequest)}
}

// ask answers AskClient in a job: from the kept answers, or by recording the question.
func (q *questions) ask(_ context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	if err != nil {
		return nil, hooteproto.WrapError(hooteproto.CodeInternal, err)
	}
	sum := sha256.Sum256(b)
	key := "q-" + hex.EncodeToString(sum[:12])
	q.mu.Lock()
	defer q.mu.Unlock()
	if n := q.seen[key]; n > 0 {
		q.seen[key] = n + 1
		key += "-" + strconv.Itoa(n)
	} else {
		q.seen[key] = 1
	}
	if a, ok := q.answers[key]; ok {
		return a, nil
	}
	q.asked[key] = req
	return nil, errWaiting
}

// waiting reports whether the run asked a question that has no answer.
func (q *questions) waiting() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.asked) > 0
}

// encode returns the unanswered questions as they are kept, and how many there are.
func (q *questions) encode() ([]byte, int) {
	q.mu.Lock()
	defer q.mu.Unlock()
	b, _ := proto.Marshal(&hootv1.Job{Questions: q.asked}) // messages of ours always encode
	return b, len(q.asked)
}

func decodeQuestions(b []byte) map[string]*hootv1.ClientRequest {
	var j hootv1.Job
	if len(b) == 0 || proto.Unmarshal(b, &j) != nil {
		return nil
	}
	return j.GetQuestions()
}

func decodeAnswers(b []byte) map[string]*hootv1.ClientResponse {
	var a hootv1.JobAnswerRequest
	if len(b) == 0 || proto.Unmarshal(b, &a) != nil {
		return nil
	}
	return a.GetAnswers()
}

// JobAnswer gives a job that waits the answers to its questions; answers to keys it does not
// wait on are ignored.
func (h *Handler) JobAnswer(ctx context.Context, req *hootv1.JobAnswerRequest) (*hootv1.JobAnswerResult, error) {
	if _, err := h.jobs.Get(ctx, req.GetId(), false); err != nil {
		return nil, h.jobError(ctx, err, "id")
	}
	j, err := h.runner.Answer(ctx, req.GetId(), func(qb, ab []byte) ([]byte, []byte, bool, error) {
		asked, answers := decodeQuestions(qb), decodeAnswers(ab)
		if answers == nil {
			answers = make(map[string]*hootv1.ClientResponse)
		}
		for k, a := range req.GetAnswers() {
			if _, ok := asked[k]; ok && a != nil {
				answers[k] = a
				delete(asked, k)
			}
		}
		q, err1 := proto.Marshal(&hootv1.Job{Questions: asked})
		a, err2 := proto.Marshal(&hootv1.JobAnswerRequest{Answers: answers})
		if err := errors.Join(err1, err2); err != nil {
			return nil, nil, false, err
		}
		return q, a, len(asked) > 0, nil
	})
	if err != nil {
		return nil, h.jobError(ctx, err, "id")
	}
	return &hootv1.JobAnswerResult{Job: h.job(j, true)}, nil
}
