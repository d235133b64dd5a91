package worker

import (
	"context"
	"errors"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/hoottrace"
)

// queryHook returns the database hook that makes a client span of each statement and write
// transaction run inside a trace: named for the statement's verb ("SELECT", "INSERT"...), with
// the statement as the store wrote it (placeholders, never arguments).
func queryHook(t *hoottrace.Tracer, engine database.Engine) database.QueryHook {
	system := engine.String()
	if engine == database.Postgres {
		system = "postgresql"
	}
	return func(ctx context.Context, op, query string) (context.Context, func(error)) {
		verb := "TRANSACTION"
		attrs := []attribute.KeyValue{attribute.String("db.system.name", system)}
		if op != "transaction" {
			verb = sqlVerb(query)
			attrs = append(attrs, attribute.String("db.query.text", hoottrace.Bounded(query)))
		}
		attrs = append(attrs, attribute.String("db.operation.name", verb))
		ctx, span := t.StartChild(ctx, "db "+verb, trace.SpanKindClient, attrs...)
		return ctx, func(err error) { hoottrace.EndErr(span, err, dbClass) }
	}
}

// sqlVerb returns the first word of query in upper case, at most 16 bytes of it.
func sqlVerb(query string) string {
	q := strings.TrimSpace(query)
	if i := strings.IndexAny(q, " \t\n("); i >= 0 {
		q = q[:i]
	}
	if len(q) > 16 {
		q = q[:16]
	}
	if q == "" {
		return "UNKNOWN"
	}
	return strings.ToUpper(q)
}

// dbClass names the kind of a database error for a span.
func dbClass(err error) string {
	switch {
	case errors.Is(err, database.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, database.ErrDuplicate):
		return "duplicate"
	}
	return "error"
}

// serveHook returns the worker's hook for t: its spans of the requests served, or none (nil)
// when t is nil.
func serveHook(t *hoottrace.Tracer) hooteproto.ServeHook {
	if t == nil {
		return nil
	}
	return t.ServeHook()
}
