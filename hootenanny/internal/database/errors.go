package database

import "errors"

// ErrUnavailable matches the errors of a database that cannot be reached now: a PostgreSQL
// server that refuses the connection, ends it, is shutting down or starting up. A call that
// failed so may succeed when made again later.
var ErrUnavailable = errors.New("database: unavailable")

// ErrDuplicate matches the errors of a write that a unique key refused, on either engine.
var ErrDuplicate = errors.New("database: duplicate key")

// A classified error is an engine's error marked with what it means to callers.
type classified struct {
	kind error // ErrUnavailable or ErrDuplicate
	err  error
}

func (e *classified) Error() string {
	if e.kind == ErrUnavailable {
		return "database unavailable: " + e.err.Error()
	}
	return e.err.Error()
}

func (e *classified) Unwrap() []error { return []error{e.kind, e.err} }
