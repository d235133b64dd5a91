package workermetrics

import (
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/membudget"
)

func TestBudgetMetrics(t *testing.T) {
	b := membudget.New(100 << 20)
	release, err := b.Acquire("midi_info", 30<<20, "")
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	if _, err := b.Acquire("audio_info", 80<<20, ""); err == nil {
		t.Fatal("a call over what is free was taken")
	}
	rec := httptest.NewRecorder()
	Handler(Sources{Budget: b}, slog.New(slog.DiscardHandler)).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{
		"hootenanny_memory_budget_bytes 1.048576e+08",
		"hootenanny_memory_reserved_bytes 3.145728e+07",
		"hootenanny_memory_busy_total 1",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}
