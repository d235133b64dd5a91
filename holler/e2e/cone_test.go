//lint:file-ignore SA1019 cone asks the client's model through MCP sampling, deprecated in 2026-07-28 but served in the 2025 versions this test speaks.

package e2e

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectSampling connects a 2025-11-25 client to url; with a non-nil handler it samples.
func connectSampling(t *testing.T, url string, handler func(context.Context, *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error)) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-cone", Version: "1"}, &mcp.ClientOptions{CreateMessageHandler: handler})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestConeChatSampling: cone_chat through the real gateway sends the tree's path to the
// client's model and keeps its tune as an artifact; a client that cannot sample is told so.
func TestConeChatSampling(t *testing.T) {
	url := startStack(t)
	var asked *mcp.CreateMessageParams
	s := connectSampling(t, url, func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		asked = req.Params
		return &mcp.CreateMessageResult{Role: "assistant", Model: "e2e-model",
			Content: &mcp.TextContent{Text: "A jig for you:\n```abc\nX:1\nT:E2E\nM:6/8\nK:G\nGAB dBG|\n```"}}, nil
	})
	waitForWorker(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	call := func(s *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	created := call(s, "tree_create", map[string]any{"role": "TURN_ROLE_SYSTEM", "text": "You write jigs."})
	if created.IsError {
		t.Fatalf("tree_create: %s", text(created))
	}
	out := created.StructuredContent.(map[string]any)
	tree := toString(out["tree"].(map[string]any)["id"])
	root := toString(out["root"].(map[string]any)["id"])

	res := call(s, "cone_chat", map[string]any{"tree_id": tree, "node_id": root, "message": "A jig in G, please."})
	if res.IsError {
		t.Fatalf("cone_chat: %s", text(res))
	}
	if asked == nil || asked.SystemPrompt != "You write jigs." || len(asked.Messages) != 1 {
		t.Fatalf("the model was asked %+v", asked)
	}
	if tc, ok := asked.Messages[0].Content.(*mcp.TextContent); !ok || tc.Text != "A jig in G, please." {
		t.Errorf("the model was asked %+v", asked.Messages[0].Content)
	}
	r := res.StructuredContent.(map[string]any)
	artifact := toString(r["artifact_id"])
	if !strings.HasPrefix(artifact, "art_") || toString(r["model"]) != "e2e-model" {
		t.Fatalf("cone_chat answered %v", r)
	}
	art := call(s, "artifact_get", map[string]any{"id": artifact})
	if art.IsError || !strings.Contains(text(art), "text/vnd.abc") {
		t.Errorf("artifact_get: %s", text(art))
	}

	plain := connectSampling(t, url, nil)
	res = call(plain, "cone_chat", map[string]any{"tree_id": tree, "node_id": root, "message": "Another?"})
	if !res.IsError || !strings.Contains(text(res), "supports MCP sampling") || strings.Contains(text(res), "retryable: yes") {
		t.Errorf("a client that cannot sample got %v: %s", res.IsError, text(res))
	}
}
