package mcp

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
)

// benchWriter is a ResponseWriter that keeps the last answer and reuses its storage, so that
// the allocations a benchmark reports are the handler's own.
type benchWriter struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (w *benchWriter) Header() http.Header         { return w.header }
func (w *benchWriter) WriteHeader(status int)      { w.status = status }
func (w *benchWriter) Write(b []byte) (int, error) { return w.body.Write(b) }
func (w *benchWriter) Flush()                      {}

func (w *benchWriter) reset() {
	clear(w.header)
	w.status = 0
	w.body.Reset()
}

// benchSession is an initialized HTTP session on a server, with a tools/call echo request that
// can be sent again and again.
type benchSession struct {
	s    *Server
	req  *http.Request
	body *bytes.Reader
	raw  []byte
	w    *benchWriter
}

// newBenchSession opens a session on s. It does not fail the benchmark itself, so that
// RunParallel's goroutines may use it.
func newBenchSession(s *Server) (*benchSession, error) {
	bs := &benchSession{s: s, w: &benchWriter{header: make(http.Header)}}
	newRequest := func(body []byte, session string) (*http.Request, *bytes.Reader) {
		r := bytes.NewReader(body)
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", r)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set(headerSessionID, session)
			req.Header.Set(headerProtocolVersion, era.Latest)
		}
		return req, r
	}
	post := func(body, session string) *benchWriter {
		req, _ := newRequest([]byte(body), session)
		bs.w.reset()
		s.ServeHTTP(bs.w, req)
		return bs.w
	}
	w := post(initializeRequest(era.Latest), "")
	session := w.header.Get(headerSessionID)
	if w.status != http.StatusOK || session == "" {
		return nil, fmt.Errorf("initialize: status %d, session %q: %s", w.status, session, w.body.Bytes())
	}
	if w := post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session); w.status != http.StatusAccepted {
		return nil, fmt.Errorf("notifications/initialized: status %d: %s", w.status, w.body.Bytes())
	}
	bs.raw = []byte(request(7, "tools/call", map[string]any{"name": "echo", "arguments": map[string]any{"message": "hello, bench"}}))
	bs.req, bs.body = newRequest(bs.raw, session)
	return bs, nil
}

// call sends the echo request once more and checks the answer.
func (bs *benchSession) call() error {
	bs.body.Reset(bs.raw)
	bs.req.Body = io.NopCloser(bs.body)
	bs.w.reset()
	bs.s.ServeHTTP(bs.w, bs.req)
	if bs.w.status != http.StatusOK || !bytes.Contains(bs.w.body.Bytes(), []byte(`"structuredContent":{"message":"hello, bench"`)) {
		return fmt.Errorf("tools/call: status %d: %s", bs.w.status, bs.w.body.Bytes())
	}
	return nil
}

// BenchmarkToolsCallEcho measures one tools/call of echo through the Streamable HTTP handler
// (envelope checks, session, argument decoding into protobuf, the call, the result's JSON) with
// an in-process backend: what holler itself spends per call, without the network or a worker.
// "parallel" runs one session per goroutine.
func BenchmarkToolsCallEcho(b *testing.B) {
	newServer := func(b *testing.B) *Server {
		s, err := NewServer(&Config{Backend: newFakeBackend(), MaxTier: hootv1.Tier_TIER_STANDARD})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = s.Close() })
		return s
	}

	b.Run("handler", func(b *testing.B) {
		bs, err := newBenchSession(newServer(b))
		if err != nil {
			b.Fatal(err)
		}
		if err := bs.call(); err != nil {
			b.Fatal(err)
		}
		var r rpcResponse
		if err := json.Unmarshal(bs.w.body.Bytes(), &r); err != nil || r.Error != nil || string(r.ID) != "7" {
			b.Fatalf("answer %s: %v", bs.w.body.Bytes(), err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if err := bs.call(); err != nil {
				b.Fatal(err)
			}
		}
	})

	// modern is the same call in the 2026-07-28 era: no session, the envelope in params._meta
	// and the headers that repeat it, and the result dressed for the era.
	b.Run("modern", func(b *testing.B) {
		s := newServer(b)
		raw := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hello, bench"},` +
			`"_meta":{"` + era.MetaProtocolVersion + `":"` + era.V20260728 + `","` + era.MetaClientCapabilities + `":{}}}}`)
		body := bytes.NewReader(raw)
		req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1/mcp", body)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set(headerProtocolVersion, era.V20260728)
		req.Header.Set(era.HeaderMethod, "tools/call")
		req.Header.Set(era.HeaderName, "echo")
		w := &benchWriter{header: make(http.Header)}
		call := func() error {
			body.Reset(raw)
			req.Body = io.NopCloser(body)
			w.reset()
			s.ServeHTTP(w, req)
			if w.status != http.StatusOK || !bytes.Contains(w.body.Bytes(), []byte(`"structuredContent":{"message":"hello, bench"`)) ||
				!bytes.Contains(w.body.Bytes(), []byte(`"resultType":"complete"`)) {
				return fmt.Errorf("tools/call: status %d: %s", w.status, w.body.Bytes())
			}
			return nil
		}
		if err := call(); err != nil {
			b.Fatal(err)
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if err := call(); err != nil {
				b.Fatal(err)
			}
		}
	})

	b.Run("parallel", func(b *testing.B) {
		s := newServer(b)
		b.ReportAllocs()
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			bs, err := newBenchSession(s)
			if err != nil {
				b.Error(err)
				return
			}
			for pb.Next() {
				if err := bs.call(); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
