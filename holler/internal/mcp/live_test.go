package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/loglevel"
)

// liveBackend is the fake backend with a set of live services that a test changes.
type liveBackend struct {
	*fakeBackend
	mu      sync.Mutex
	live    []string
	changed chan struct{}
}

func (b *liveBackend) Services() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return slices.Clone(b.live)
}

func (b *liveBackend) Changed() <-chan struct{} {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.changed
}

// set makes services the live ones.
func (b *liveBackend) set(services ...string) {
	b.mu.Lock()
	b.live = services
	close(b.changed)
	b.changed = make(chan struct{})
	b.mu.Unlock()
}

// toolNames lists the names of a tools/list page and returns its next cursor.
func toolNames(t *testing.T, r rpcResponse) ([]string, string) {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("tools/list failed: %d %s", r.Error.Code, r.Error.Message)
	}
	var res struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
		NextCursor string `json:"nextCursor"`
	}
	if err := json.Unmarshal(r.Result, &res); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names, res.NextCursor
}

func TestToolsListPages(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, func(c *Config) { c.PageSize = 2 })
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)
	var all []string
	cursor, pages := "", 0
	for {
		var params any
		if cursor != "" {
			params = map[string]any{"cursor": cursor}
		}
		names, next := toolNames(t, c.call(pages+1, "tools/list", params))
		if len(names) > 2 {
			t.Errorf("page of %d tools with PageSize 2", len(names))
		}
		all = append(all, names...)
		pages++
		if next == "" {
			break
		}
		cursor = next
	}
	if !slices.Equal(all, s.allowedNames) || pages != (len(s.allowedNames)+1)/2 {
		t.Errorf("paged through %v in %d pages, want %v", all, pages, s.allowedNames)
	}
	// A cursor this server did not make is refused.
	for _, bad := range []string{"x", "", cursor + "A", strings.ToUpper(cursor)} {
		r := c.call(100, "tools/list", map[string]any{"cursor": bad})
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || r.Error.Data["hint"] == nil {
			t.Errorf("cursor %q: %s %+v", bad, r.Result, r.Error)
		}
	}
	// Another gateway with the same table and settings continues the listing; one that lists
	// other tools (or pages otherwise) refuses the cursor.
	first, _ := toolNames(t, c.call(200, "tools/list", nil))
	_, next := toolNames(t, c.call(201, "tools/list", nil))
	same, _ := newTestServer(t, func(c *Config) { c.PageSize = 2 })
	cs := newMCPHTTP(t, same)
	cs.initialize(era.Latest)
	if names, _ := toolNames(t, cs.call(1, "tools/list", map[string]any{"cursor": next})); len(names) == 0 || slices.Contains(first, names[0]) {
		t.Errorf("another gateway's answer to this one's cursor = %v, want the second page", names)
	}
	other, _ := newTestServer(t, func(c *Config) { c.PageSize = 3 })
	co := newMCPHTTP(t, other)
	co.initialize(era.Latest)
	if r := co.call(1, "tools/list", map[string]any{"cursor": next}); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("a gateway paging by 3 took a cursor of one paging by 2: %s %+v", r.Result, r.Error)
	}
	// The default page holds the whole table.
	s2, _ := newTestServer(t, nil)
	c2 := newMCPHTTP(t, s2)
	c2.initialize(era.Latest)
	if names, next := toolNames(t, c2.call(1, "tools/list", nil)); next != "" || len(names) != len(s2.allowedNames) {
		t.Errorf("default page: %d tools, next %q", len(names), next)
	}
}

func TestLiveTools(t *testing.T) {
	t.Parallel()
	b := &liveBackend{fakeBackend: newFakeBackend(), live: []string{hootv1hoot.SystemServiceName}, changed: make(chan struct{})}
	s, err := NewServer(&Config{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c := newMCPHTTP(t, s)
	init := c.post(initializeRequest(era.Latest), nil)
	if !strings.Contains(string(init.body), `"tools":{"listChanged":true}`) || !strings.Contains(string(init.body), `"logging":{}`) {
		t.Errorf("capabilities: %s", init.body)
	}
	c.session = init.header.Get(headerSessionID)
	c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil)

	names, _ := toolNames(t, c.call(1, "tools/list", nil))
	if !slices.Contains(names, "echo") || slices.Contains(names, "cas_store") {
		t.Fatalf("with only the system service live: %v", names)
	}

	// stdio sessions hear of changes too.
	inR, inW := io.Pipe()
	var out syncBuffer
	stdioDone := make(chan error, 1)
	go func() { stdioDone <- s.ServeStdio(context.Background(), inR, &out) }()
	io.WriteString(inW, initializeRequest(era.Latest)+"\n")
	waitFor(t, func() bool { return strings.Contains(out.String(), `"id":"init"`) })

	get := c.openGet("")
	b.set(hootv1hoot.CasServiceName, hootv1hoot.SystemServiceName)
	_, msg := get.message()
	if msg.Method != notifyToolsChange {
		t.Errorf("GET stream got %q", msg.Method)
	}
	waitFor(t, func() bool { return strings.Contains(out.String(), notifyToolsChange) })
	names, _ = toolNames(t, c.call(2, "tools/list", nil))
	if !slices.Contains(names, "cas_store") {
		t.Errorf("after the CAS service came: %v", names)
	}

	// A service that goes away takes its tools along; a call still reaches the backend,
	// whose error names the service.
	b.set(hootv1hoot.CasServiceName)
	get.message()
	names, _ = toolNames(t, c.call(3, "tools/list", nil))
	if slices.Contains(names, "echo") {
		t.Errorf("echo listed while its service is down: %v", names)
	}
	delete(b.services, hootv1hoot.SystemServiceName)
	a := c.post(request(4, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hi"}}), nil)
	// The session hears of it as a log message on the call's stream, before the result.
	if len(a.messages) != 2 || a.messages[0].Method != notifyMessage || !strings.Contains(string(a.messages[0].Params), `"service":"system"`) {
		t.Errorf("no log message for an unavailable service: %s", a.body)
	}
	tr := toolResultOf(t, a.last(t))
	if !tr.IsError || !strings.Contains(tr.text(), "unavailable") || !strings.Contains(tr.text(), "system") {
		t.Errorf("call to a tool whose service is down: %q", tr.text())
	}
	inW.Close()
	if err := <-stdioDone; err != nil {
		t.Errorf("ServeStdio: %v", err)
	}
}

func TestSetLogLevel(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)
	if r := c.call(1, "logging/setLevel", map[string]any{"level": "error"}); r.Error != nil || string(r.Result) != "{}" {
		t.Fatalf("setLevel: %s %+v", r.Result, r.Error)
	}
	for _, bad := range []any{"loud", 3, nil} {
		r := c.call(2, "logging/setLevel", map[string]any{"level": bad})
		if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("level %v: %s %+v", bad, r.Result, r.Error)
		}
	}
	sess, _ := s.sessions.Get(c.session)
	get := c.openGet("")
	sess.Log(nil, loglevel.Warning, "test", "below the level")
	sess.Log(nil, loglevel.Critical, "test", map[string]any{"worker": "gone"})
	_, msg := get.message()
	if msg.Method != notifyMessage || !strings.Contains(string(msg.Params), `"level":"critical"`) || !strings.Contains(string(msg.Params), `"worker":"gone"`) {
		t.Errorf("log message %s", msg.Params)
	}
}

func TestHostAllowList(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, func(c *Config) { c.AllowedHosts = []string{"holler.example", "other.example:9000"} })
	for host, want := range map[string]int{
		"localhost":              http.StatusOK,
		"LOCALHOST:1234":         http.StatusOK,
		"127.0.0.1:8080":         http.StatusOK,
		"[::1]:8080":             http.StatusOK,
		"holler.example:443":     http.StatusOK,
		"other.example:9000":     http.StatusOK,
		"other.example:9001":     http.StatusForbidden,
		"evil.example":           http.StatusForbidden,
		"localhost.evil.example": http.StatusForbidden,
		"192.168.1.5:8080":       http.StatusForbidden,
	} {
		req, _ := http.NewRequest(http.MethodPost, "http://x/mcp", bytes.NewReader([]byte(initializeRequest(era.Latest))))
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		rec := newRecorder()
		s.ServeHTTP(rec, req)
		if rec.status != want {
			t.Errorf("Host %q: status %d, want %d", host, rec.status, want)
		}
		if want == http.StatusForbidden && !strings.Contains(rec.body.String(), "not allowed") {
			t.Errorf("Host %q: %s", host, rec.body.String())
		}
	}
}

// recorder is a minimal ResponseWriter.
type recorder struct {
	h      http.Header
	status int
	body   bytes.Buffer
}

func newRecorder() *recorder                    { return &recorder{h: make(http.Header)} }
func (r *recorder) Header() http.Header         { return r.h }
func (r *recorder) Write(b []byte) (int, error) { return r.body.Write(b) }
func (r *recorder) WriteHeader(status int)      { r.status = status }

// syncBuffer is a bytes.Buffer safe for one writer and one reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// waitFor waits up to 5s for cond.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in time")
		}
	}
}

func TestToolsListDoesNotTrailTheBackend(t *testing.T) {
	t.Parallel()
	b := &liveBackend{fakeBackend: newFakeBackend(), changed: make(chan struct{})}
	s, err := NewServer(&Config{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)
	// A worker arrives, and the change is not signalled yet (as when a client asks in the
	// moment between a worker's READY and the server's watcher waking up).
	b.mu.Lock()
	b.live = []string{hootv1hoot.SystemServiceName}
	b.mu.Unlock()
	if names, _ := toolNames(t, c.call(2, "tools/list", nil)); !slices.Contains(names, "echo") {
		t.Fatalf("tools/list = %v just after the system service came; want echo listed", names)
	}
}

// A cursor belongs to its listing: once the live tools change, a cursor of the listing before
// is refused rather than skipping or repeating tools.
func TestCursorOfAnotherListing(t *testing.T) {
	t.Parallel()
	b := &liveBackend{fakeBackend: newFakeBackend(), live: []string{hootv1hoot.SystemServiceName, hootv1hoot.CasServiceName}, changed: make(chan struct{})}
	s, err := NewServer(&Config{Backend: b, PageSize: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)
	_, next := toolNames(t, c.call(1, "tools/list", nil))
	if next == "" {
		t.Fatal("no second page with two services live and pages of 2")
	}
	if names, _ := toolNames(t, c.call(2, "tools/list", map[string]any{"cursor": next})); len(names) == 0 {
		t.Fatal("the cursor of the same listing was refused")
	}
	b.set(hootv1hoot.SystemServiceName, hootv1hoot.CasServiceName, hootv1hoot.ArtifactServiceName)
	waitFor(t, func() bool {
		r := c.call(3, "tools/list", map[string]any{"cursor": next})
		return r.Error != nil && r.Error.Code == jsonrpc.CodeInvalidParams
	})
}
