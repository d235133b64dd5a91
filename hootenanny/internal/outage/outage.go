// Package outage turns a storage backend that cannot be reached (the database, the content
// store) into the error a caller can act on: unavailable, retryable after a pause, and saying
// which part of the worker's storage is out, so that an operator knows where to look.
package outage

import (
	"errors"
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
