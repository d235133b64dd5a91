package database

import "context"

// A QueryHook is told of each statement a [DB] runs, and of each write transaction: op is
// "query", "exec" or "transaction", and query the statement as the store wrote it, with ?
// placeholders and without its arguments ("" for a transaction). It returns the context to run
// the statement in and a function called with the statement's error (nil on success) once it
// has run. It runs on the caller's goroutine and must be safe for concurrent use. Tracing uses
// it (a span per statement); the stores know nothing of it.
type QueryHook func(ctx context.Context, op, query string) (context.Context, func(error))

// SetQueryHook sets the hook of db's statements. Set it before db is used: it is not safe to
// call while statements run.
func (db *DB) SetQueryHook(h QueryHook) { db.hook = h }

func noEnd(error) {}

// observe starts what the hook does with one statement or transaction.
func (db *DB) observe(ctx context.Context, op, query string) (context.Context, func(error)) {
	if db.hook == nil {
		return ctx, noEnd
	}
	return db.hook(ctx, op, query)
}
