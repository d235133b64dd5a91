package netlimit

import (
	"net/http"
	"testing"
	"time"
)

// deadlineWriter is a ResponseWriter that records the write deadlines set on it, as
// http.ResponseController sets them.
type deadlineWriter struct {
	header http.Header
	set    []time.Time
}

func (w *deadlineWriter) Header() http.Header         { return w.header }
func (w *deadlineWriter) WriteHeader(int)             {}
func (w *deadlineWriter) Write(b []byte) (int, error) { return len(b), nil }
func (w *deadlineWriter) SetWriteDeadline(t time.Time) error {
	w.set = append(w.set, t)
	return nil
}

// TestWriteDeadlineKeptWhileRecent: the header, the writes and the final flush of a response
// that follow one another set the write deadline once; a write after the deadline has aged
// past rearmAfter moves it, so that no write gets less than the timeout less rearmAfter.
func TestWriteDeadlineKeptWhileRecent(t *testing.T) {
	t.Parallel()
	const timeout = time.Minute
	var gw *guardedWriter
	h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		gw = w.(*guardedWriter)
		for range 3 {
			if _, err := w.Write([]byte("part")); err != nil {
				t.Fatal(err)
			}
		}
	}), HandlerOptions{WriteTimeout: timeout})
	dw := &deadlineWriter{header: make(http.Header)}
	before := time.Now()
	h.ServeHTTP(dw, &http.Request{Method: http.MethodGet, Body: http.NoBody})
	if len(dw.set) != 1 {
		t.Fatalf("a response written at once set its write deadline %d times, want 1", len(dw.set))
	}
	if d := dw.set[0].Sub(before); d < timeout || d > timeout+time.Minute {
		t.Fatalf("the deadline is %v after the request began, want the timeout %v", d, timeout)
	}

	// The same writer, its deadline set longer ago than rearmAfter: the next write moves it.
	gw.armed = time.Now().Add(timeout - rearmAfter(timeout) - time.Millisecond)
	if _, err := gw.Write([]byte("later")); err != nil {
		t.Fatal(err)
	}
	if len(dw.set) != 2 || time.Until(dw.set[1]) < timeout-time.Second {
		t.Fatalf("an aged deadline was not moved to the timeout from now: %v", dw.set)
	}
	// Aged less than rearmAfter: kept.
	gw.armed = time.Now().Add(timeout - rearmAfter(timeout) + time.Second)
	if _, err := gw.Write([]byte("soon")); err != nil {
		t.Fatal(err)
	}
	if len(dw.set) != 2 {
		t.Fatalf("a deadline set less than rearmAfter ago was moved: %v", dw.set)
	}
}

func TestRearmAfter(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ d, want time.Duration }{
		{time.Minute, time.Second},
		{8 * time.Second, time.Second},
		{100 * time.Millisecond, 12500 * time.Microsecond},
	} {
		if got := rearmAfter(c.d); got != c.want {
			t.Errorf("rearmAfter(%v) = %v, want %v", c.d, got, c.want)
		}
	}
}
