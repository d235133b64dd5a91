package worker

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/codes"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/hoottrace"
)

// TestQueryHookSpans checks the database's spans: one per statement made inside a trace, the
// children of the caller's span, with the statement and never its arguments; a transaction's
// statements are the children of its span; and no span for work outside a trace.
func TestQueryHookSpans(t *testing.T) {
	ctx := context.Background()
	db, err := database.Open(ctx, filepath.Join(t.TempDir(), "hoot.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	tracer := hoottrace.New(tp)
	db.SetQueryHook(queryHook(tracer, db.Engine()))
	store := artifacts.NewStore(db)

	// Outside a trace: nothing.
	if _, err := store.Get(ctx, "no-such-artifact"); err == nil {
		t.Fatal("got an artifact that does not exist")
	}
	if n := len(exp.GetSpans()); n != 0 {
		t.Fatalf("%d spans outside a trace, want none", n)
	}

	// Inside a trace that came over the wire (a traceparent in the context).
	const tp0 = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	tctx := hooteproto.WithTraceparent(ctx, tp0)
	a, err := store.Create(tctx, artifacts.New{Hash: strings.Repeat("ab", 32), Size: 3, MimeType: "text/plain", Creator: "secret-creator", Tags: []string{"private-tag"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := store.Get(tctx, a.ID); err != nil {
		t.Fatal(err)
	}
	spans := exp.GetSpans()
	if len(spans) < 3 {
		t.Fatalf("spans %v, want a transaction with statements, and a query", spans)
	}
	var txn *tracetest.SpanStub
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for i, s := range spans {
		byID[s.SpanContext.SpanID()] = s
		if s.Name == "db TRANSACTION" {
			txn = &spans[i]
		}
	}
	if txn == nil {
		t.Fatalf("no transaction span among %d spans", len(spans))
	}
	sawInsert, sawSelect := false, false
	for _, s := range spans {
		if s.SpanContext.TraceID().String() != tp0[3:35] {
			t.Errorf("span %q in trace %v, want the caller's", s.Name, s.SpanContext.TraceID())
		}
		if s.SpanKind != trace.SpanKindClient {
			t.Errorf("span %q is %v, want client", s.Name, s.SpanKind)
		}
		text := ""
		for _, kv := range s.Attributes {
			if strings.Contains(kv.Value.String(), "secret-creator") || strings.Contains(kv.Value.String(), "private-tag") {
				t.Errorf("span %q holds an argument: %s=%s", s.Name, kv.Key, kv.Value.String())
			}
			if kv.Key == "db.query.text" {
				text = kv.Value.String()
				if len(text) > hoottrace.MaxAttributeLength {
					t.Errorf("db.query.text of %d bytes", len(text))
				}
			}
			if kv.Key == "db.system.name" && kv.Value.String() != "sqlite" {
				t.Errorf("db.system.name %q", kv.Value.String())
			}
		}
		switch {
		case s.Name == "db INSERT":
			sawInsert = true
			if s.Parent.SpanID() != txn.SpanContext.SpanID() {
				t.Errorf("an INSERT outside its transaction's span")
			}
		case s.Name == "db SELECT" && s.Parent.SpanID().String() == tp0[36:52]:
			sawSelect = text != ""
		}
	}
	if !sawInsert || !sawSelect {
		t.Errorf("insert %v, select with its text %v, in %d spans", sawInsert, sawSelect, len(spans))
	}

	// A failing statement marks its span.
	exp.Reset()
	if _, err := db.ExecContext(tctx, "INSERT INTO no_such_table VALUES (?)", 1); err == nil {
		t.Fatal("an insert into no table succeeded")
	}
	if s := exp.GetSpans(); len(s) != 1 || s[0].Status.Code != codes.Error || s[0].Status.Description != "error" {
		t.Errorf("failed statement spans %v, want one with an error status", s)
	}
}

func TestSQLVerb(t *testing.T) {
	for in, want := range map[string]string{
		"SELECT 1":               "SELECT",
		"\n\t insert into x":     "INSERT",
		"WITH(x) AS":             "WITH",
		"":                       "UNKNOWN",
		strings.Repeat("a", 100): strings.Repeat("A", 16),
	} {
		if got := sqlVerb(in); got != want {
			t.Errorf("sqlVerb(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestServeHookNilWithoutTracer(t *testing.T) {
	if serveHook(nil) != nil {
		t.Error("a serve hook without a tracer")
	}
	if serveHook(hoottrace.New(sdktrace.NewTracerProvider())) == nil {
		t.Error("no serve hook with a tracer")
	}
}
