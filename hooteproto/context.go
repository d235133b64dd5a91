package hooteproto

import (
	"context"
	"crypto/rand"
	"encoding/hex"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

type traceparentKey struct{}

func (traceparentKey) String() string { return "hooteproto.traceparent" }

type progressKey struct{}

func (progressKey) String() string { return "hooteproto.progress" }

// WithTraceparent returns a context that carries the W3C traceparent tp; the broker sends it
// along with the request, and the worker puts it into the handler's context.
func WithTraceparent(ctx context.Context, tp string) context.Context {
	return context.WithValue(ctx, traceparentKey{}, tp)
}

// TraceparentFrom returns the traceparent ctx carries, or "".
func TraceparentFrom(ctx context.Context) string {
	tp, _ := ctx.Value(traceparentKey{}).(string)
	return tp
}

// A ProgressFunc reports how far a request has come.
type ProgressFunc func(p *hootv1.Progress)

// withProgress returns a context whose ReportProgress calls go to f.
func withProgress(ctx context.Context, f ProgressFunc) context.Context {
	return context.WithValue(ctx, progressKey{}, f)
}

// ReportProgress sends a progress report for the request a handler is serving: progress so far,
// total when known (0 when not) and a message for a person. Outside a request it does nothing.
func ReportProgress(ctx context.Context, progress, total float64, message string) {
	if f, ok := ctx.Value(progressKey{}).(ProgressFunc); ok {
		f(&hootv1.Progress{Progress: progress, Total: total, Message: message})
	}
}

// WithProgress returns a context whose ReportProgress calls go to f. The worker sets one for
// every request it serves; code that runs a handler's work elsewhere, such as a job runner in
// the background, sets its own.
func WithProgress(ctx context.Context, f ProgressFunc) context.Context {
	return withProgress(ctx, f)
}

// NextTraceparent returns the traceparent for a call made on behalf of parent: the same trace
// with a new span id, or a new sampled trace when parent is empty or malformed.
func NextTraceparent(parent string) string {
	var b [24]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms.
	span := hex.EncodeToString(b[16:])
	if span == "0000000000000000" {
		span = "0000000000000001"
	}
	if ValidTraceparent(parent) {
		return parent[:36] + span + parent[52:]
	}
	trace := hex.EncodeToString(b[:16])
	return "00-" + trace + "-" + span + "-01"
}
