package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
)

// Jobs that ask. A job's work may stop at questions for a person that it has no answers for
// ([Outcome.Questions]): the job then waits with StatusInputRequired, holding no worker and no
// lease, its questions in its row. [Runner.Answer] records answers; once none is outstanding,
// the job is pending again, with a lapsed lease, and any worker that serves its tool takes it up
// and runs it from its start, the answers given so far in its context ([AnswersFrom]), so that
// the questions already answered are answered at once.

type answersKey struct{}

// AnswersFrom returns the answers given to the questions of the job whose work runs with ctx,
// as [Runner.Answer]'s merge last wrote them, or nil.
func AnswersFrom(ctx context.Context) []byte {
	b, _ := ctx.Value(answersKey{}).([]byte)
	return b
}

// An AnswerFunc merges answers into a waiting job's record: it is given the questions the job
// waits on and the answers given so far, and returns them as they are to be kept, and whether
// any question is still unanswered.
type AnswerFunc func(questions, answers []byte) (newQuestions, newAnswers []byte, waiting bool, err error)

// park records that the job of owner stopped at questions and waits for their answers.
func (s *Store) park(ctx context.Context, j Job, owner string, questions []byte) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE jobs SET status = ?, progress = ?, total = ?, message = ?, questions = ?, lease_until = 0
		WHERE id = ? AND owner = ? AND status IN (?, ?)`,
		int(StatusInputRequired), j.Progress, j.Total, j.Message, questions, j.ID, owner, int(StatusPending), int(StatusRunning))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// answer merges answers into the job id if it waits for them, with merge; it reports whether
// the job is now released to run again. A job that waits for nothing is left as it is.
func (s *Store) answer(ctx context.Context, id string, merge AnswerFunc) (released bool, err error) {
	err = s.db.Write(ctx, func(tx *database.Tx) error {
		released = false
		var (
			status             Status
			questions, answers []byte
		)
		err := tx.QueryRowContext(ctx, `SELECT status, questions, answers FROM jobs WHERE id = ?`, id).Scan(&status, &questions, &answers)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("%w: %s", ErrNotFound, id)
		}
		if err != nil || status != StatusInputRequired {
			return err
		}
		q, a, waiting, err := merge(questions, answers)
		if err != nil {
			return err
		}
		if a == nil {
			a = []byte{} // answers that are not NULL mark a job that waited, and may run again
		}
		if waiting {
			_, err = tx.ExecContext(ctx, `UPDATE jobs SET questions = ?, answers = ? WHERE id = ? AND status = ?`, q, a, id, int(StatusInputRequired))
			return err
		}
		// Released: pending with a lapsed lease, so that a worker takes it up at once. Its
		// next run does not count against its attempts: it waited, it was not lost.
		_, err = tx.ExecContext(ctx, `UPDATE jobs SET status = ?, questions = NULL, answers = ?, lease_until = 0, attempts = attempts - 1,
			message = ? WHERE id = ? AND status = ?`,
			int(StatusPending), a, "answered; waiting for a worker to run it again", id, int(StatusInputRequired))
		released = err == nil
		return err
	})
	return released, err
}

// cancelWaiting ends the job id as cancelled if it waits for answers, and reports whether it
// did: no worker runs it, so nobody else would.
func (s *Store) cancelWaiting(ctx context.Context, id string, now time.Time) (bool, error) {
	res, err := s.db.ExecContext(ctx, `UPDATE jobs SET status = ?, message = ?, questions = NULL, finished_at = ? WHERE id = ? AND status = ?`,
		int(StatusCancelled), "cancelled at a caller's request", now.UnixNano(), id, int(StatusInputRequired))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// Answer gives the job id answers through merge. When no question is left, the job is pending
// again and this runner takes it up at once if it serves its tool (another worker does
// otherwise). It returns the job as it then stands.
func (r *Runner) Answer(ctx context.Context, id string, merge AnswerFunc) (Job, error) {
	released, err := r.store.answer(ctx, id, merge)
	if err != nil {
		return Job{}, err
	}
	if released {
		if err := r.adopt(ctx); err != nil {
			r.cfg.Logger.Warn("jobs: taking up an answered job", "job", id, "err", err)
		}
	}
	return r.Get(ctx, id, true)
}
