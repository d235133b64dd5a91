package load

import (
	"context"
	"encoding/json"
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

func TestAppendEchoCall(t *testing.T) {
	legacy := string(appendEchoCall(nil, "7", "load-0-7", false))
	if want := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"load-0-7"}}}`; legacy != want {
		t.Errorf("legacy request\n got %s\nwant %s", legacy, want)
	}
	modern := appendEchoCall([]byte("stale"), "7", "load-0-7", true)[len("stale"):]
	want := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"load-0-7"},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	if string(modern) != want {
		t.Errorf("modern request\n got %s\nwant %s", modern, want)
	}
	// The bytes are what a JSON encoder would say about the same request.
	var m struct {
		ID     int    `json:"id"`
		Method string `json:"method"`
		Params struct {
			Name      string            `json:"name"`
			Arguments map[string]string `json:"arguments"`
			Meta      map[string]any    `json:"_meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal(modern, &m); err != nil {
		t.Fatal(err)
	}
	caps, ok := m.Params.Meta[metaClientCapabilities].(map[string]any)
	if m.ID != 7 || m.Method != "tools/call" || m.Params.Name != "echo" || m.Params.Arguments["message"] != "load-0-7" ||
		m.Params.Meta[metaProtocolVersion] != "2026-07-28" || !ok || len(caps) != 0 {
		t.Errorf("modern request decodes to %+v", m)
	}
}

func TestHeaders(t *testing.T) {
	ctx := context.Background()
	modern := OpenModern(http.DefaultClient, "http://127.0.0.1:1/mcp", "m")
	req, err := modern.newPost(ctx, []byte("{}"), "tools/call")
	if err != nil {
		t.Fatal(err)
	}
	for h, want := range map[string]string{
		"MCP-Protocol-Version": "2026-07-28",
		"Mcp-Method":           "tools/call",
		"Mcp-Name":             "echo",
		"Mcp-Session-Id":       "",
		"Content-Type":         "application/json",
		"Accept":               "application/json, text/event-stream",
	} {
		if got := req.Header.Get(h); got != want {
			t.Errorf("modern tools/call: %s = %q, want %q", h, got, want)
		}
	}
	if req.Method != http.MethodPost || req.URL.String() != "http://127.0.0.1:1/mcp" {
		t.Errorf("modern request: %s %s", req.Method, req.URL)
	}

	legacy := &Session{client: http.DefaultClient, url: "http://127.0.0.1:1/mcp", id: "s1", protocol: ProtocolVersion}
	req, err = legacy.newPost(ctx, []byte("{}"), "tools/call")
	if err != nil {
		t.Fatal(err)
	}
	for h, want := range map[string]string{
		"MCP-Protocol-Version": ProtocolVersion,
		"Mcp-Session-Id":       "s1",
		"Mcp-Method":           "",
		"Mcp-Name":             "",
	} {
		if got := req.Header.Get(h); got != want {
			t.Errorf("legacy tools/call: %s = %q, want %q", h, got, want)
		}
	}
}

func TestCheckEcho(t *testing.T) {
	const msg = "load-1-3"
	decode := func(s string) *echoResult {
		var r echoResult
		if err := json.Unmarshal([]byte(s), &r); err != nil {
			t.Fatal(err)
		}
		return &r
	}
	good := `{"content":[{"type":"text","text":"{\"message\":\"load-1-3\",\"worker\":\"w\"}"}],"structuredContent":{"message":"load-1-3","worker":"w"},"resultType":"complete"}`
	tests := []struct {
		name    string
		result  string
		modern  bool
		wantErr string // "" for no error
	}{
		{"legacy good", good, false, ""},
		{"modern good", good, true, ""},
		{"legacy needs no resultType", `{"content":[{"type":"text","text":"x"}],"structuredContent":{"message":"load-1-3"}}`, false, ""},
		{"modern without resultType", `{"content":[{"type":"text","text":"{\"message\":\"load-1-3\"}"}],"structuredContent":{"message":"load-1-3"}}`, true, "resultType"},
		{"modern incomplete", strings.Replace(good, `"complete"`, `"input_required"`, 1), true, "resultType"},
		{"modern text of another message", strings.Replace(good, `\"load-1-3\"`, `\"load-1-2\"`, 1), true, "the text"},
		{"modern text not JSON", `{"content":[{"type":"text","text":"load-1-3"}],"structuredContent":{"message":"load-1-3"},"resultType":"complete"}`, true, "the text"},
		{"tool error", `{"content":[{"type":"text","text":"no"}],"isError":true,"resultType":"complete"}`, true, "isError"},
		{"another message", strings.Replace(good, `"message":"load-1-3"`, `"message":"load-1-4"`, 1), false, "structuredContent.message"},
		{"no content", `{"structuredContent":{"message":"load-1-3"},"resultType":"complete"}`, true, "no text content"},
	}
	for _, tc := range tests {
		err := checkEcho(decode(tc.result), msg, tc.modern)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one about %q", tc.name, err, tc.wantErr)
		}
	}
}

// fakeModern answers like a server of the 2026-07-28 era: it refuses initialize and any
// request whose _meta or routing headers are missing or disagree with the body, and answers
// tools/call echo with resultType "complete", as JSON or as an event stream in turn; bad,
// when set, leaves resultType out. It counts the requests it refused.
func fakeModern(bad *atomic.Bool, refused *atomic.Int64) *httptest.Server {
	var calls atomic.Int64
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string            `json:"name"`
				Arguments map[string]string `json:"arguments"`
				Meta      map[string]any    `json:"_meta"`
			} `json:"params"`
		}
		err := json.NewDecoder(r.Body).Decode(&m)
		caps, ok := m.Params.Meta[metaClientCapabilities].(map[string]any)
		if err != nil || m.Method != "tools/call" || m.Params.Meta[metaProtocolVersion] != ModernProtocolVersion || !ok || len(caps) != 0 ||
			r.Header.Get("MCP-Protocol-Version") != ModernProtocolVersion || r.Header.Get("Mcp-Method") != m.Method ||
			r.Header.Get("Mcp-Name") != m.Params.Name || r.Header.Get("Mcp-Session-Id") != "" {
			refused.Add(1)
			http.Error(w, "not a 2026-07-28 tools/call", http.StatusBadRequest)
			return
		}
		msg := m.Params.Arguments["message"]
		rt := `,"resultType":"complete"`
		if bad.Load() {
			rt = ""
		}
		text, _ := json.Marshal(fmt.Sprintf(`{"message":%q,"worker":"f"}`, msg))
		answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":%s}],"structuredContent":{"message":%q,"worker":"f"}%s}}`, m.ID, text, msg, rt)
		if calls.Add(1)%2 == 0 {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: message\ndata: %s\n\n", answer)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, answer)
	}))
}

func TestRunModern(t *testing.T) {
	var bad atomic.Bool
	var refused atomic.Int64
	srv := fakeModern(&bad, &refused)
	defer srv.Close()
	r, err := Run(context.Background(), Options{URL: srv.URL, Concurrency: 3, Requests: 300, Modern: true})
	if err != nil {
		t.Fatal(err)
	}
	if r.Failed() || r.Requests != 300 || refused.Load() != 0 {
		t.Fatalf("result %v, %d refused", r, refused.Load())
	}

	bad.Store(true)
	r, err = Run(context.Background(), Options{URL: srv.URL, Concurrency: 2, Requests: 10, Modern: true})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Failed() || r.Errors != 10 || !strings.Contains(r.FirstErrors[0], "resultType") {
		t.Fatalf("answers without resultType were not counted: %v", r)
	}

	// A legacy client is refused by this server: every initialize fails the run's setup.
	if _, err := Run(context.Background(), Options{URL: srv.URL, Concurrency: 1, Requests: 1}); err == nil {
		t.Fatal("a legacy run against a modern-only server did not fail")
	}
}
