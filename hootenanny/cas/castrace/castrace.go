// Package castrace wraps a cas.Store so that each of its calls is an OpenTelemetry span, the
// child of the span of the context it is called with. The store and its callers know nothing
// of tracing.
package castrace

import (
	"context"
	"errors"
	"io"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hooteproto/hoottrace"
)

// Wrap returns s with a span for each call made inside a trace (see hoottrace.StartChild). With a nil t it returns s itself. The
// wrapped store is a cas.TempCleaner when s is one. Spans carry sizes and media types, never
// hashes or content.
func Wrap(s cas.Store, t *hoottrace.Tracer) cas.Store {
	if t == nil {
		return s
	}
	w := &store{s: s, t: t}
	if c, ok := s.(cas.TempCleaner); ok {
		return &cleaningStore{store: w, c: c}
	}
	return w
}

type store struct {
	s cas.Store
	t *hoottrace.Tracer
}

var _ cas.Store = (*store)(nil)

func (w *store) start(ctx context.Context, op string) (context.Context, trace.Span) {
	return w.t.StartChild(ctx, "cas."+op, trace.SpanKindInternal, attribute.String("hoot.cas.operation", op))
}

func (w *store) Put(ctx context.Context, r io.Reader, mimeType string) (cas.Object, bool, error) {
	ctx, span := w.start(ctx, "Put")
	obj, existed, err := w.s.Put(ctx, r, mimeType)
	if err == nil {
		span.SetAttributes(attribute.Int64("hoot.cas.size", obj.Size), attribute.Bool("hoot.cas.existed", existed),
			attribute.String("hoot.cas.media_type", hoottrace.Bounded(obj.MimeType)))
	}
	hoottrace.EndErr(span, err, Class)
	return obj, existed, err
}

func (w *store) Stat(ctx context.Context, h cas.Hash) (cas.Object, error) {
	ctx, span := w.start(ctx, "Stat")
	obj, err := w.s.Stat(ctx, h)
	sized(span, obj, err)
	hoottrace.EndErr(span, err, Class)
	return obj, err
}

func (w *store) Open(ctx context.Context, h cas.Hash) (io.ReadSeekCloser, cas.Object, error) {
	ctx, span := w.start(ctx, "Open")
	rc, obj, err := w.s.Open(ctx, h)
	sized(span, obj, err)
	hoottrace.EndErr(span, err, Class)
	return rc, obj, err
}

func (w *store) ReadRange(ctx context.Context, h cas.Hash, offset int64, length int) ([]byte, cas.Object, error) {
	ctx, span := w.start(ctx, "ReadRange")
	b, obj, err := w.s.ReadRange(ctx, h, offset, length)
	if err == nil {
		span.SetAttributes(attribute.Int("hoot.cas.read", len(b)))
	}
	sized(span, obj, err)
	hoottrace.EndErr(span, err, Class)
	return b, obj, err
}

func (w *store) Verify(ctx context.Context, h cas.Hash) (int64, error) {
	ctx, span := w.start(ctx, "Verify")
	n, err := w.s.Verify(ctx, h)
	hoottrace.EndErr(span, err, Class)
	return n, err
}

func (w *store) Walk(ctx context.Context, fn func(h cas.Hash) error) error {
	ctx, span := w.start(ctx, "Walk")
	err := w.s.Walk(ctx, fn)
	hoottrace.EndErr(span, err, Class)
	return err
}

func (w *store) Stats(ctx context.Context) (int64, int64, error) {
	ctx, span := w.start(ctx, "Stats")
	objects, bytes, err := w.s.Stats(ctx)
	hoottrace.EndErr(span, err, Class)
	return objects, bytes, err
}

func (w *store) Remove(ctx context.Context, h cas.Hash) error {
	ctx, span := w.start(ctx, "Remove")
	err := w.s.Remove(ctx, h)
	hoottrace.EndErr(span, err, Class)
	return err
}

func (w *store) MaxObjectSize() int64 { return w.s.MaxObjectSize() }
func (w *store) String() string       { return w.s.String() }

// cleaningStore is the wrapper of a store that is a cas.TempCleaner.
type cleaningStore struct {
	*store
	c cas.TempCleaner
}

func (w *cleaningStore) CleanTemps(ctx context.Context, cutoff time.Time, dryRun bool) (int64, int64, error) {
	ctx, span := w.start(ctx, "CleanTemps")
	files, bytes, err := w.c.CleanTemps(ctx, cutoff, dryRun)
	hoottrace.EndErr(span, err, Class)
	return files, bytes, err
}

func sized(span trace.Span, obj cas.Object, err error) {
	if err == nil {
		span.SetAttributes(attribute.Int64("hoot.cas.size", obj.Size))
	}
}

// Class names the kind of a store's error for a span: "not_found", "too_large",
// "invalid_media_type", "out_of_range", "corrupt", "unavailable", "canceled" or "error".
func Class(err error) string {
	switch {
	case errors.Is(err, cas.ErrNotFound):
		return "not_found"
	case errors.Is(err, cas.ErrTooLarge):
		return "too_large"
	case errors.Is(err, cas.ErrInvalidMediaType):
		return "invalid_media_type"
	case errors.Is(err, cas.ErrOutOfRange):
		return "out_of_range"
	case errors.Is(err, cas.ErrCorrupt):
		return "corrupt"
	case errors.Is(err, cas.ErrUnavailable):
		return "unavailable"
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return "canceled"
	}
	return "error"
}
