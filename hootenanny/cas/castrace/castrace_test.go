package castrace_test

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/cas/castrace"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/hoottrace"
)

const parent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"

func wrapped(t *testing.T) (cas.Store, *tracetest.InMemoryExporter) {
	t.Helper()
	dir, err := cas.OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	exp := tracetest.NewInMemoryExporter()
	return castrace.Wrap(dir, hoottrace.New(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)))), exp
}

// TestSpans checks a span per call inside a trace, the child of the caller's, with sizes and
// not hashes; failures with the store's class of error; and none outside a trace.
func TestSpans(t *testing.T) {
	s, exp := wrapped(t)
	ctx := hooteproto.WithTraceparent(context.Background(), parent)
	obj, _, err := s.Put(ctx, strings.NewReader("twelve bytes"), "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	rc, _, err := s.Open(ctx, obj.Hash)
	if err != nil {
		t.Fatal(err)
	}
	rc.Close()
	if _, err := s.Stat(ctx, cas.Hash{1}); !errors.Is(err, cas.ErrNotFound) {
		t.Fatalf("stat of nothing: %v", err)
	}
	spans := exp.GetSpans()
	if len(spans) != 3 || spans[0].Name != "cas.Put" || spans[1].Name != "cas.Open" || spans[2].Name != "cas.Stat" {
		t.Fatalf("spans %v, want cas.Put, cas.Open, cas.Stat", spans)
	}
	for _, sp := range spans {
		if sp.Parent.SpanID().String() != parent[36:52] || sp.SpanContext.TraceID().String() != parent[3:35] {
			t.Errorf("span %q is not the child of the caller's span", sp.Name)
		}
		for _, kv := range sp.Attributes {
			if strings.Contains(kv.Value.String(), obj.Hash.String()) {
				t.Errorf("span %q holds the hash in %s", sp.Name, kv.Key)
			}
		}
	}
	if st := spans[2].Status; st.Code != codes.Error || st.Description != "not_found" {
		t.Errorf("stat of nothing: status %v, want error not_found", st)
	}

	exp.Reset()
	if _, err := s.Stat(context.Background(), obj.Hash); err != nil {
		t.Fatal(err)
	}
	if n := len(exp.GetSpans()); n != 0 {
		t.Errorf("%d spans outside a trace, want none", n)
	}
	if _, ok := s.(cas.TempCleaner); !ok {
		t.Error("the wrapped Dir is no longer a TempCleaner")
	}
	if _, _, err := s.(cas.TempCleaner).CleanTemps(ctx, time.Now(), true); err != nil {
		t.Error(err)
	}
}

func TestClass(t *testing.T) {
	for err, want := range map[error]string{
		cas.ErrNotFound:          "not_found",
		cas.ErrTooLarge:          "too_large",
		cas.ErrInvalidMediaType:  "invalid_media_type",
		cas.ErrOutOfRange:        "out_of_range",
		cas.ErrCorrupt:           "corrupt",
		cas.ErrUnavailable:       "unavailable",
		context.DeadlineExceeded: "canceled",
		io.ErrUnexpectedEOF:      "error",
	} {
		if got := castrace.Class(err); got != want {
			t.Errorf("Class(%v) = %q, want %q", err, got, want)
		}
	}
}
