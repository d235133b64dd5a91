package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/loglevel"
	"github.com/hootenanny/hoot/hooteproto"
)

// An sseEvent as a test reads it: its id, its data, and the comments before it.
type testEvent struct {
	id       string
	data     string
	comments int
}

// An sseStream reads the events of one open event stream.
type sseStream struct {
	t      *testing.T
	resp   *http.Response
	br     *bufio.Reader
	cancel context.CancelFunc
}

// openGet opens the session's GET stream, resuming after lastEventID if it is not empty.
func (c *mcpHTTP) openGet(lastEventID string) *sseStream {
	c.t.Helper()
	return c.openGetWith(map[string]string{"Last-Event-ID": lastEventID})
}

// openGetWith opens a GET stream with extra headers; an empty value removes a header.
func (c *mcpHTTP) openGetWith(header map[string]string) *sseStream {
	c.t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set(headerSessionID, c.session)
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	resp, err := c.client.Do(req)
	if err != nil {
		cancel()
		c.t.Fatal(err)
	}
	st := &sseStream{t: c.t, resp: resp, br: bufio.NewReader(resp.Body), cancel: cancel}
	c.t.Cleanup(st.close)
	return st
}

func (st *sseStream) close() {
	st.cancel()
	st.resp.Body.Close()
}

// body reads the rest of a stream that is not an event stream (an error answer).
func (st *sseStream) body() string {
	b, _ := io.ReadAll(st.resp.Body)
	return string(b)
}

// next reads the next event, counting the comments before it.
func (st *sseStream) next() (testEvent, error) {
	var ev testEvent
	seen := false
	for {
		line, err := st.br.ReadString('\n')
		if err != nil {
			return ev, err
		}
		line = strings.TrimRight(line, "\r\n")
		switch {
		case line == "":
			if seen {
				return ev, nil
			}
		case strings.HasPrefix(line, ":"):
			ev.comments++
		case strings.HasPrefix(line, "id: "):
			ev.id, seen = line[4:], true
		case strings.HasPrefix(line, "data: "):
			ev.data, seen = line[6:], true
		case strings.HasPrefix(line, "event: "):
			seen = true
		}
	}
}

// comment reads the stream up to its next comment (a keep-alive), giving up after d. It fails
// the test when an event comes first or none comes in time.
func (st *sseStream) comment(d time.Duration) {
	st.t.Helper()
	ch := make(chan string, 1)
	go func() {
		line, err := st.br.ReadString('\n')
		if err != nil {
			line = "error: " + err.Error()
		}
		ch <- line
	}()
	select {
	case line := <-ch:
		if !strings.HasPrefix(line, ":") {
			st.t.Fatalf("the stream sent %q, not a keep-alive comment", line)
		}
	case <-time.After(d):
		st.close()
		<-ch
		st.t.Fatal("no keep-alive comment in time")
	}
}

// message reads events until one carries a message, skipping priming events.
func (st *sseStream) message() (testEvent, rpcResponse) {
	st.t.Helper()
	for {
		ev, err := st.nextWithin(5 * time.Second)
		if err != nil {
			st.t.Fatalf("reading the stream: %v", err)
		}
		if ev.data == "" {
			continue
		}
		var r rpcResponse
		if err := json.Unmarshal([]byte(ev.data), &r); err != nil {
			st.t.Fatalf("event is not JSON-RPC: %q", ev.data)
		}
		return ev, r
	}
}

// nextWithin reads the next event, giving up after d.
func (st *sseStream) nextWithin(d time.Duration) (testEvent, error) {
	type result struct {
		ev  testEvent
		err error
	}
	ch := make(chan result, 1)
	go func() {
		ev, err := st.next()
		ch <- result{ev, err}
	}()
	select {
	case r := <-ch:
		return r.ev, r.err
	case <-time.After(d):
		st.close()
		<-ch
		return testEvent{}, errors.New("no event in time")
	}
}

func TestHTTPGetStream(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)

	get := c.openGet("")
	if get.resp.StatusCode != http.StatusOK {
		t.Fatalf("GET: status %d: %s", get.resp.StatusCode, get.body())
	}
	// 2025-11-25 primes the stream with an id and no data.
	prime, err := get.nextWithin(5 * time.Second)
	if err != nil || prime.id != "0-0" || prime.data != "" {
		t.Fatalf("priming event = %+v, %v", prime, err)
	}
	// One GET stream per session.
	if second := c.openGet(""); second.resp.StatusCode != http.StatusConflict {
		t.Errorf("a second GET: status %d", second.resp.StatusCode)
	}

	sess, _ := s.sessions.Get(c.session)
	sess.Log(nil, loglevel.Warning, "test", "first")
	ev, msg := get.message()
	if ev.id != "0-1" || msg.Method != notifyMessage || !strings.Contains(string(msg.Params), `"first"`) {
		t.Fatalf("event %+v, message %s %s", ev, msg.Method, msg.Params)
	}
	// Below the session's level nothing is sent.
	sess.Log(nil, loglevel.Debug, "test", "quiet")

	// The connection drops; what comes meanwhile waits in the buffer.
	get.close()
	sess.Log(nil, loglevel.Error, "test", "second")
	sess.Log(nil, loglevel.Error, "test", "third")

	// Resuming after 0-1 replays 0-2 and 0-3.
	again := c.openGet("0-1")
	if again.resp.StatusCode != http.StatusOK {
		t.Fatalf("resuming GET: status %d: %s", again.resp.StatusCode, again.body())
	}
	for _, want := range []string{"second", "third"} {
		_, msg := again.message()
		if !strings.Contains(string(msg.Params), want) {
			t.Errorf("replayed %s, want %q", msg.Params, want)
		}
	}
	again.close()
	// Once the server has seen that connection go (nobody holds the GET stream),
	waitFor(t, func() bool { return sess.Events.OwnsGet(nil) })

	// a fresh GET gets what no GET delivered yet, and nothing twice.
	sess.Log(nil, loglevel.Error, "test", "fourth")
	fresh := c.openGet("")
	if fresh.resp.StatusCode != http.StatusOK {
		t.Fatalf("fresh GET: status %d: %s", fresh.resp.StatusCode, fresh.body())
	}
	ev, msg = fresh.message()
	if ev.id != "0-4" || !strings.Contains(string(msg.Params), "fourth") {
		t.Errorf("fresh GET began with %+v", ev)
	}
}

func TestHTTPResumePostStream(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)
	// A call with progress answers with an event stream whose events carry ids.
	a := c.post(request(7, "tools/call", map[string]any{
		"name": "echo", "arguments": map[string]any{"message": "progress"}, "_meta": map[string]any{"progressToken": "p"},
	}), nil)
	if !strings.HasPrefix(a.header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("Content-Type %q", a.header.Get("Content-Type"))
	}
	body := string(a.body)
	if !strings.Contains(body, "id: 1-0\ndata: \n\n") || !strings.Contains(body, "id: 1-1\n") {
		t.Fatalf("stream without ids: %q", body)
	}
	// Resuming after the first progress event replays the rest, ending with the response.
	st := c.openGet("1-1")
	if st.resp.StatusCode != http.StatusOK {
		t.Fatalf("resume: status %d: %s", st.resp.StatusCode, st.body())
	}
	var last rpcResponse
	for {
		ev, err := st.nextWithin(5 * time.Second)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.data != "" {
			if err := json.Unmarshal([]byte(ev.data), &last); err != nil {
				t.Fatal(err)
			}
		}
	}
	if string(last.ID) != "7" || last.Result == nil {
		t.Errorf("the resumed stream ended with %+v", last)
	}
	// Ids that name nothing resumable are refused.
	for _, id := range []string{"x", "9-1", "1-999", "-1"} {
		if st := c.openGet(id); st.resp.StatusCode != http.StatusBadRequest {
			t.Errorf("Last-Event-ID %q: status %d", id, st.resp.StatusCode)
		}
	}
}

func TestHTTPKeepAlive(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, func(c *Config) { c.KeepAlive = 20 * time.Millisecond })
	c := newMCPHTTP(t, s)
	c.initialize(era.V20250618)
	get := c.openGet("")
	// No priming event before 2025-11-25; keep-alive comments while nothing happens.
	sess, _ := s.sessions.Get(c.session)
	get.comment(5 * time.Second)
	sess.Log(nil, loglevel.Error, "test", "x")
	ev, msg := get.message()
	if ev.id != "0-1" || msg.Method != notifyMessage {
		t.Errorf("event %+v after quiet time", ev)
	}
}

func TestHTTPGetErrors(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)
	for _, tc := range []struct {
		name       string
		header     map[string]string
		wantStatus int
		wantText   string
	}{
		{"missing session id", map[string]string{headerSessionID: ""}, http.StatusBadRequest, headerSessionID},
		{"unknown session id", map[string]string{headerSessionID: "feedface"}, http.StatusNotFound, "unknown or expired session"},
		{"JSON only", map[string]string{"Accept": "application/json"}, http.StatusNotAcceptable, "text/event-stream"},
		{"unsupported protocol version", map[string]string{"MCP-Protocol-Version": "1999-01-01"}, http.StatusBadRequest, "unsupported"},
		{"malformed Last-Event-ID", map[string]string{"Last-Event-ID": "yesterday"}, http.StatusBadRequest, "Last-Event-ID"},
		{"Last-Event-ID of a future event", map[string]string{"Last-Event-ID": "0-7"}, http.StatusBadRequest, "Last-Event-ID"},
		{"foreign origin", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden, "origin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := c.openGetWith(tc.header)
			body := st.body()
			if st.resp.StatusCode != tc.wantStatus || !strings.Contains(body, tc.wantText) || !strings.Contains(body, `"hint"`) {
				t.Errorf("status %d, want %d: %s", st.resp.StatusCode, tc.wantStatus, body)
			}
		})
	}
}

// stepBackend reports one progress, waits for release, reports another and answers echo.
type stepBackend struct {
	release chan struct{}
}

func (b *stepBackend) Call(ctx context.Context, c hooteproto.Call) (*hootv1.Result, error) {
	onProgress := c.Progress
	onProgress(&hootv1.Progress{Progress: 1, Total: 2})
	select {
	case <-b.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	onProgress(&hootv1.Progress{Progress: 2, Total: 2})
	return &hootv1.Result{Result: &hootv1.Result_Echo{Echo: &hootv1.EchoResult{Message: "stepped"}}}, nil
}

func TestHTTPPostStreamLive(t *testing.T) {
	t.Parallel()
	b := &stepBackend{release: make(chan struct{})}
	s, err := NewServer(&Config{Backend: b, KeepAlive: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)

	req, _ := http.NewRequest(http.MethodPost, c.url, strings.NewReader(request(3, "tools/call", map[string]any{
		"name": "echo", "arguments": map[string]any{"message": "x"}, "_meta": map[string]any{"progressToken": 1},
	})))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(headerSessionID, c.session)
	resp, err := c.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	post := &sseStream{t: t, resp: resp, br: bufio.NewReader(resp.Body), cancel: func() {}}
	if ev, msg := post.message(); ev.id != "1-1" || msg.Method != notifyProgress {
		t.Fatalf("first event %+v %s", ev, msg.Method)
	}
	// While the call waits, the stream gets keep-alive comments.
	post.comment(5 * time.Second)

	// A second connection resumes the stream after its first event and follows it live.
	resumed := c.openGet("1-1")
	if resumed.resp.StatusCode != http.StatusOK {
		t.Fatalf("resume: status %d: %s", resumed.resp.StatusCode, resumed.body())
	}
	close(b.release)
	ev, msg := post.message()
	if ev.id != "1-2" || msg.Method != notifyProgress {
		t.Errorf("second event %+v %s", ev, msg.Method)
	}
	if _, msg := post.message(); string(msg.ID) != "3" || msg.Result == nil {
		t.Errorf("POST stream ended with %+v", msg)
	}
	var got []string
	for {
		ev, err := resumed.nextWithin(5 * time.Second)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.id)
	}
	// The resumed stream starts with a priming event at the resume point.
	if strings.Join(got, " ") != "1-1 1-2 1-3" {
		t.Errorf("resumed stream events %v", got)
	}
}

// newMCPHTTPWatched is newMCPHTTP with a channel that receives a value each time the server
// sees a client go away: a request's context ends while its handler still runs.
func newMCPHTTPWatched(t *testing.T, s *Server) (*mcpHTTP, <-chan struct{}) {
	gone := make(chan struct{}, 16)
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var returned atomic.Bool
		stop := context.AfterFunc(r.Context(), func() {
			if !returned.Load() {
				gone <- struct{}{}
			}
		})
		s.ServeHTTP(w, r)
		returned.Store(true)
		stop()
	}))
	t.Cleanup(ts.Close)
	return &mcpHTTP{t: t, url: ts.URL, client: ts.Client()}, gone
}

func TestHTTPDisconnectIsNotCancel(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, nil)
	c, gone := newMCPHTTPWatched(t, s)
	c.initialize(era.Latest)

	ctx, disconnect := context.WithCancel(context.Background())
	defer disconnect()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.url, strings.NewReader(request(9, "tools/call", map[string]any{
		"name": "echo", "arguments": map[string]any{"message": "hold"}, "_meta": map[string]any{"progressToken": "p"},
	})))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set(headerSessionID, c.session)
	resp, err := c.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	// Read up to the progress event, then drop the connection mid-call.
	r := bufio.NewReader(resp.Body)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			t.Fatalf("the stream ended before its progress event: %v", err)
		}
		if strings.HasPrefix(line, "id: 1-1") {
			break
		}
	}
	<-b.started
	disconnect()
	resp.Body.Close()
	// Once the server has seen the connection go, had it cancelled the call, the held call would
	// end with its context's error when released instead of answering.
	select {
	case <-gone:
	case <-time.After(10 * time.Second):
		t.Fatal("the server never saw the client go away")
	}
	b.release <- struct{}{}

	st := c.openGet("1-1")
	if st.resp.StatusCode != http.StatusOK {
		t.Fatalf("resume: status %d: %s", st.resp.StatusCode, st.body())
	}
	var last rpcResponse
	for {
		ev, err := st.nextWithin(5 * time.Second)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if ev.data != "" {
			if err := json.Unmarshal([]byte(ev.data), &last); err != nil {
				t.Fatal(err)
			}
		}
	}
	if tr := toolResultOf(t, last); string(last.ID) != "9" || tr.IsError {
		t.Fatalf("after the reconnect the call answered %+v (%s); want its result", last, tr.text())
	}
	select {
	case cause := <-b.ended:
		t.Fatalf("the call was cancelled by the disconnect: %v", cause)
	default:
	}
}
