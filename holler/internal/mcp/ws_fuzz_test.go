package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/stdio"
	"github.com/hootenanny/hoot/holler/internal/mcp/ws"
)

// FuzzWebSocketFrame feeds any text frame to a socket's handling: it never panics, everything
// it writes back is JSON-RPC objects, one per frame, and a frame that is not JSON is answered
// with one parse error that says what the socket speaks.
func FuzzWebSocketFrame(f *testing.F) {
	for _, seed := range []string{
		"hello",
		"",
		"{",
		"[]",
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"f","version":"0"}}}`,
		`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"message":"hi"}}}`,
		string(era.TryDiscover()),
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}`,
		`{"jsonrpc":"2.0","id":5,"result":{}}`,
		`{"params":{"_meta":{"` + era.MetaProtocolVersion + `":"x"`,
	} {
		f.Add(seed)
	}
	b := newFakeBackend()
	s, err := NewServer(&Config{Backend: b})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = s.Close() })
	f.Fuzz(func(t *testing.T, frame string) {
		var out lockedBuffer
		ctx, cancel := context.WithCancel(context.Background())
		sess := sessions.NewSession(sessions.NewID())
		w := stdio.NewWriter(&out, nil)
		sess.Out = w
		sock := ws.NewSocket(connHost{s}, sess, w, 4)
		sock.Frame(ctx, websocket.MessageText, []byte(frame))
		// What runs on its own ends with the socket.
		cancel()
		sess.End()
		sock.Wait()
		got := out.lines()
		for _, l := range got {
			var m map[string]json.RawMessage
			if json.Unmarshal([]byte(l), &m) != nil || string(m["jsonrpc"]) != `"2.0"` {
				t.Fatalf("frame %q: wrote %q, not a JSON-RPC object", frame, l)
			}
		}
		if !json.Valid([]byte(frame)) {
			if len(got) != 1 || !strings.Contains(got[0], "This server speaks JSON-RPC 2.0 over WebSocket") || !strings.Contains(got[0], `"try"`) {
				t.Fatalf("frame %q, not JSON: answered %q, want one guided parse error", frame, got)
			}
		}
	})
}

// lockedBuffer collects lines written from any goroutine.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) lines() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.FieldsFunc(b.buf.String(), func(r rune) bool { return r == '\n' })
}
