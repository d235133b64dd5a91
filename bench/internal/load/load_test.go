package load

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	var s []time.Duration
	for i := 1; i <= 100; i++ {
		s = append(s, time.Duration(i))
	}
	for _, c := range []struct{ p, want int }{{50, 50}, {99, 99}, {100, 100}, {1, 1}} {
		if got := percentile(s, c.p); got != time.Duration(c.want) {
			t.Errorf("p%d = %d, want %d", c.p, got, c.want)
		}
	}
	if got := percentile(nil, 50); got != 0 {
		t.Errorf("p50 of nothing = %d", got)
	}
}

func TestResponseEvent(t *testing.T) {
	stream := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n" +
		"id: 4\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\n" +
		"data: \"result\":{}}\n\n"
	got, err := responseEvent([]byte(stream), "7")
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\"jsonrpc\":\"2.0\",\"id\":7,\n\"result\":{}}"; string(got) != want {
		t.Errorf("event = %q, want %q", got, want)
	}
	if _, err := responseEvent([]byte(stream), "8"); err == nil {
		t.Error("found a response with an id that is not there")
	}
}

// fakeMCP answers like a Streamable HTTP server: a session from initialize, JSON answers, and
// an event stream for every other tools/call; wrong, when set, breaks the answer.
func fakeMCP(wrong *atomic.Bool) *httptest.Server {
	var calls atomic.Int64
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		msg := string(body)
		switch {
		case strings.Contains(msg, `"initialize"`):
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"f","version":"1"}}}`)
		case strings.Contains(msg, "notifications/initialized"):
			w.WriteHeader(http.StatusAccepted)
		default:
			if r.Header.Get("Mcp-Session-Id") != "s1" || r.Header.Get("MCP-Protocol-Version") != "2025-11-25" {
				http.Error(w, "no session", http.StatusBadRequest)
				return
			}
			rest := msg[strings.Index(msg, `"id":`)+len(`"id":`):]
			id := rest[:strings.IndexByte(rest, ',')]
			i := strings.Index(msg, `"message":"`) + len(`"message":"`)
			text := msg[i : i+strings.IndexByte(msg[i:], '"')]
			if wrong.Load() {
				text += "!"
			}
			answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"message":%q,"worker":"f"}}}`, id, text)
			if calls.Add(1)%2 == 0 {
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprintf(w, "event: message\ndata: %s\n\n", answer)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, answer)
		}
	}))
}

func TestRun(t *testing.T) {
	var wrong atomic.Bool
	srv := fakeMCP(&wrong)
	defer srv.Close()
	r, err := Run(context.Background(), Options{URL: srv.URL, Concurrency: 3, Requests: 300})
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed() || r.Requests != 300 || r.P50 <= 0 || r.P99 < r.P50 || r.RPS <= 0 {
		t.Fatalf("result %v", r)
	}

	wrong.Store(true)
	r, err = Run(context.Background(), Options{URL: srv.URL, Concurrency: 2, Requests: 10})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Failed() || r.Errors != 10 || !strings.Contains(r.FirstErrors[0], "structuredContent.message") {
		t.Fatalf("wrong answers were not counted: %v", r)
	}
}
