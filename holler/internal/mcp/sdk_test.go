package mcp

import (
	"context"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestSDKClient drives the server with the official Go SDK's Streamable HTTP client in both
// eras: in 2025-11-25, where it initializes and also tries a GET stream after initialize and
// must live with the 405, and in 2026-07-28, its default, where it calls server/discover and
// sends every request with _meta and the routing headers.
func TestSDKClient(t *testing.T) {
	t.Parallel()
	t.Run("2025-11-25", func(t *testing.T) {
		t.Parallel()
		testSDKClient(t, era.Latest, &sdk.ClientSessionOptions{ProtocolVersion: era.Latest})
	})
	t.Run("2026-07-28", func(t *testing.T) {
		t.Parallel()
		testSDKClient(t, era.V20260728, nil)
	})
}

// testSDKClient connects the SDK's client with opts, expects protocol version want, and uses
// the tools.
func testSDKClient(t *testing.T, want string, opts *sdk.ClientSessionOptions) {
	s, _ := newTestServer(t, nil)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)

	var mu sync.Mutex
	var progress []*sdk.ProgressNotificationParams
	gotProgress := make(chan struct{}, 8)
	client := sdk.NewClient(&sdk.Implementation{Name: "sdk-test", Version: "1.0.0"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *sdk.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params)
			mu.Unlock()
			gotProgress <- struct{}{}
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: ts.Client()}, opts)
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer cs.Close()
	init := cs.InitializeResult()
	if init.ProtocolVersion != want || init.ServerInfo == nil || init.ServerInfo.Name != DefaultName || init.Capabilities.Tools == nil {
		t.Errorf("initialize result = %+v", init)
	}

	tools, err := cs.ListTools(ctx, &sdk.ListToolsParams{})
	if err != nil {
		t.Fatalf("ListTools: %v", err)
	}
	var echo *sdk.Tool
	for _, tool := range tools.Tools {
		if tool.Name == "echo" {
			echo = tool
		}
	}
	if echo == nil || echo.Annotations == nil || !echo.Annotations.ReadOnlyHint || echo.Annotations.DestructiveHint == nil ||
		*echo.Annotations.DestructiveHint || echo.OutputSchema == nil {
		t.Fatalf("echo as listed = %+v", echo)
	}

	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello"}})
	if err != nil {
		t.Fatalf("CallTool echo: %v", err)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	if res.IsError || sc["message"] != "hello" || len(res.Content) != 1 {
		t.Errorf("echo = %+v", res)
	}
	if text, ok := res.Content[0].(*sdk.TextContent); !ok || !strings.Contains(text.Text, `"hello"`) {
		t.Errorf("echo content = %+v", res.Content[0])
	}

	// A call with a progress token receives the two progress reports.
	params := &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "progress"}}
	params.SetProgressToken("tok-1")
	res, err = cs.CallTool(ctx, params)
	if err != nil {
		t.Fatalf("CallTool with progress: %v", err)
	}
	if res.IsError {
		t.Errorf("progress call = %+v", res)
	}
	for range 2 {
		select {
		case <-gotProgress:
		case <-ctx.Done():
			t.Fatal("progress notifications did not arrive")
		}
	}
	mu.Lock()
	if len(progress) != 2 || progress[0].ProgressToken != "tok-1" || progress[0].Progress != 1 || progress[1].Progress != 2 ||
		progress[0].Total != 2 || progress[0].Message != "halfway" {
		t.Errorf("progress = %+v", progress)
	}
	mu.Unlock()

	// A tool error is a result with isError, not a protocol error.
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "fail"}})
	if err != nil {
		t.Fatalf("CallTool fail: %v", err)
	}
	if !res.IsError || res.StructuredContent != nil {
		t.Errorf("tool error = %+v", res)
	}
	if text, ok := res.Content[0].(*sdk.TextContent); !ok || !strings.Contains(text.Text, "not_found") {
		t.Errorf("tool error content = %+v", res.Content[0])
	}

	// Bad arguments reach the model as an isError result in 2025-11-25.
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"mesage": "x"}})
	if err != nil {
		t.Fatalf("CallTool with bad arguments: %v", err)
	}
	if text, ok := res.Content[0].(*sdk.TextContent); !res.IsError || !ok || !strings.Contains(text.Text, "did you mean: message") {
		t.Errorf("bad arguments = %+v", res)
	}

	// An unknown tool is a protocol error.
	if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "ech"}); err == nil || !strings.Contains(err.Error(), "echo") {
		t.Errorf("unknown tool: %v", err)
	}

	// 2026-07-28 has no ping.
	if want < era.V20260728 {
		if err := cs.Ping(ctx, nil); err != nil {
			t.Errorf("Ping: %v", err)
		}
	}
}

// TestSDKClientOlderVersion connects with 2025-06-18, where bad arguments are -32602.
func TestSDKClientOlderVersion(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "sdk-test", Version: "1.0.0"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: ts.URL, HTTPClient: ts.Client()},
		&sdk.ClientSessionOptions{ProtocolVersion: era.V20250618})
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	defer cs.Close()
	if v := cs.InitializeResult().ProtocolVersion; v != era.V20250618 {
		t.Errorf("negotiated %q", v)
	}
	_, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: map[string]any{"message": 5}})
	if err == nil || !strings.Contains(err.Error(), "message") {
		t.Errorf("bad arguments in 2025-06-18: %v", err)
	}
}
