package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolcall"
)

// mcpStdio drives ServeStdio through pipes.
type mcpStdio struct {
	t     *testing.T
	in    *io.PipeWriter
	lines chan rpcResponse
	done  chan error
}

func newMCPStdio(t *testing.T, s *Server) *mcpStdio {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &mcpStdio{t: t, in: inW, lines: make(chan rpcResponse, 64), done: make(chan error, 1)}
	go func() {
		err := s.ServeStdio(context.Background(), inR, outW)
		outW.Close()
		c.done <- err
	}()
	go func() {
		defer close(c.lines)
		sc := bufio.NewScanner(outR)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var r rpcResponse
			if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
				t.Errorf("stdout line is not JSON-RPC: %v: %q", err, sc.Text())
				continue
			}
			c.lines <- r
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case err := <-c.done:
			if err != nil {
				t.Errorf("ServeStdio: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return at the end of its input")
		}
	})
	return c
}

// send writes one line.
func (c *mcpStdio) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		c.t.Fatal(err)
	}
}

// recv reads the next message.
func (c *mcpStdio) recv() rpcResponse {
	c.t.Helper()
	select {
	case r, ok := <-c.lines:
		if !ok {
			c.t.Fatal("stdout ended")
		}
		return r
	case <-time.After(10 * time.Second):
		c.t.Fatal("no message on stdout")
	}
	return rpcResponse{}
}

// initialize initializes the session with protocol version v.
func (c *mcpStdio) initialize(v string) {
	c.t.Helper()
	c.send(initializeRequest(v))
	if r := c.recv(); r.Error != nil {
		c.t.Fatalf("initialize: %+v", r.Error)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func TestStdioSession(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	c := newMCPStdio(t, s)

	c.send(initializeRequest("2024-11-05"))
	r := c.recv()
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		Capabilities    struct {
			Tools *struct {
				ListChanged *bool `json:"listChanged"`
			} `json:"tools"`
		} `json:"capabilities"`
		ServerInfo   struct{ Name, Title, Version string } `json:"serverInfo"`
		Instructions string                                `json:"instructions"`
	}
	if err := json.Unmarshal(r.Result, &init); err != nil {
		t.Fatal(err)
	}
	if init.ProtocolVersion != era.Latest {
		t.Errorf("an unsupported version negotiated %q, want %q", init.ProtocolVersion, era.Latest)
	}
	if init.Capabilities.Tools == nil || init.Capabilities.Tools.ListChanged == nil || *init.Capabilities.Tools.ListChanged {
		t.Errorf("capabilities = %s", r.Result)
	}
	if init.ServerInfo.Name != DefaultName || init.ServerInfo.Title == "" || init.ServerInfo.Version == "" {
		t.Errorf("serverInfo = %+v", init.ServerInfo)
	}
	if !strings.Contains(init.Instructions, "tools/list") {
		t.Errorf("instructions do not point to tools/list: %q", init.Instructions)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	// Progress notifications come before the response, on their own lines.
	c.send(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"echo","arguments":{"message":"progress"},"_meta":{"progressToken":"p1"}}}`)
	var progress []toolcall.ProgressParams
	for {
		m := c.recv()
		if m.Method == notifyProgress {
			var p toolcall.ProgressParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				t.Fatal(err)
			}
			progress = append(progress, p)
			continue
		}
		if string(m.ID) != "7" {
			t.Fatalf("response id = %s", m.ID)
		}
		tr := toolResultOf(t, m)
		if tr.IsError || tr.StructuredContent["message"] != "progress" {
			t.Errorf("result = %+v", tr)
		}
		break
	}
	if len(progress) != 2 || string(progress[0].ProgressToken) != `"p1"` || progress[0].Progress != 1 ||
		progress[0].Total != 2 || progress[0].Message != "halfway" || progress[1].Progress != 2 {
		t.Errorf("progress = %+v", progress)
	}

	c.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
	if r := c.recv(); string(r.ID) != `"p"` || string(r.Result) != "{}" {
		t.Errorf("ping = %+v", r)
	}
}

func TestStdioCancel(t *testing.T) {
	t.Parallel()
	s, b := newTestServer(t, nil)
	c := newMCPStdio(t, s)
	c.initialize(era.Latest)

	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"block"}}}`)
	<-b.started
	// A ping is answered while the call runs.
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if r := c.recv(); string(r.ID) != "2" {
		t.Fatalf("want the ping's answer, got %+v", r)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1,"reason":"test"}}`)
	if cause := <-b.ended; !errors.Is(cause, sessions.ErrCancelledByClient) {
		t.Errorf("the call ended with %v", cause)
	}
	// A cancelled request gets no response: the next message is the answer to the next request.
	c.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	if r := c.recv(); string(r.ID) != "3" {
		t.Errorf("want the ping's answer, got %+v", r)
	}
}

func TestStdioTooLong(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, func(c *Config) { c.MaxBodyBytes = 256 })
	c := newMCPStdio(t, s)
	c.initialize(era.Latest)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"` + strings.Repeat("x", 1000) + `"}}}`)
	r := c.recv()
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidRequest || !strings.Contains(r.Error.Message, "limit") {
		t.Fatalf("want -32600 about the limit, got %+v", r)
	}
	// The session goes on.
	c.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`)
	if r := c.recv(); string(r.ID) != "2" || r.Error != nil {
		t.Errorf("ping after an oversized line = %+v", r)
	}
}

func TestStdioEndWaitsForCalls(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	in := strings.NewReader(strings.Join([]string{
		initializeRequest(era.Latest),
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		``,
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"piped"}}}`,
	}, "\r\n"))
	var out strings.Builder
	if err := s.ServeStdio(context.Background(), in, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], `\"piped\"`) {
		t.Errorf("output:\n%s", out.String())
	}
}

func TestStdioContextAndClose(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.ServeStdio(ctx, inR, io.Discard) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("ServeStdio after cancel = %v", err)
	}

	go func() { done <- s.ServeStdio(context.Background(), inR, io.Discard) }()
	s.Close()
	if err := <-done; !errors.Is(err, ErrServerClosed) {
		t.Errorf("ServeStdio after Close = %v", err)
	}
	if err := s.ServeStdio(context.Background(), inR, io.Discard); !errors.Is(err, ErrServerClosed) {
		t.Errorf("ServeStdio on a closed server = %v", err)
	}
}
