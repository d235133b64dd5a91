// Package outage turns a storage backend that cannot be reached (the database, the content
// store) into the error a caller can act on: unavailable, retryable after a pause, and saying
// which part of the worker's storage is out, so that an operator knows where to look.
package outage

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hooteproto"
)

// How long a caller is asked to wait before it calls again: a database comes back from a
// restart or a failover in about a second, an object store often takes longer.
const (
	databaseRetryAfter = time.Second
	contentRetryAfter  = 5 * time.Second
)

// Error returns the error of a call that failed doing op because err says that a storage
// backend cannot be reached, or nil when err says something else.
func Error(op string, err error) *hooteproto.Error {
	switch {
	case errors.Is(err, database.ErrUnavailable):
		return hooteproto.NewError(hooteproto.CodeUnavailable, op+" failed: the database cannot be reached now").
			WithRetryAfter(databaseRetryAfter).
			WithHint("call again in a moment; if it keeps failing, the server's operator should check the database the workers use (--database)")
	case errors.Is(err, cas.ErrUnavailable):
		return hooteproto.NewError(hooteproto.CodeUnavailable, op+" failed: the content store cannot be reached now").
			WithRetryAfter(contentRetryAfter).
			WithHint("call again in a few seconds; if it keeps failing, the server's operator should check the object store the workers use (--cas)")
	}
	return nil
}

// Internal is the error a service answers for a failure of its own while doing op: the call's
// own end (its caller went away, or its job was cancelled or taken up by another worker) as
// that; an outage of the database or the content store as a retryable unavailable, logged as
// a warning; anything else as internal, logged as an error under component, with a message
// that says where the details are rather than what they are.
func Internal(log *slog.Logger, component, op string, err error) *hooteproto.Error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return hooteproto.AsError(err)
	}
	if e := Error(op, err); e != nil {
		log.Warn(component+": "+op, "err", err)
		return e
	}
	log.Error(component+": "+op, "err", err)
	return hooteproto.NewError(hooteproto.CodeInternal, op+" failed; the worker's log has the details")
}
