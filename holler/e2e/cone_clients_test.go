//lint:file-ignore SA1019 cone asks the client's model through MCP sampling, deprecated in 2026-07-28 but still served in both eras these clients speak.

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cone_chat through the official SDK clients that answer sampling, in every era each speaks:
// the Go SDK v1.8 in 2026-07-28 (the model's question comes as an input_required round) and
// 2025-11-25 (sampling/createMessage on the call's stream), the TypeScript SDK v2 in both, and
// v1 in 2025-11-25. Every client takes the same turn on a tree of its own and reports the same
// things, and one function judges them all:
//
//   - chat: the model is asked the tree's path, its answer becomes the assistant's node and its
//     tune an artifact; the model's handler waits for the call's first progress report before
//     it answers, so progress is seen while the model answers;
//   - cancel: the call is cancelled while the model answers (from inside the model's handler);
//     the tree is left as it was, without the user's node of the cancelled turn;
//   - plain: a client that does not declare sampling is told that cone_chat needs it.

// coneAnswer is what every client's model answers: a tune in a fenced block.
const coneAnswer = "A jig for you:\n```abc\nX:1\nT:Client jig\nM:6/8\nK:G\nGAB dBG|\n```"

// The messages of the plan; the judge looks for them in the tree.
const (
	coneSystem  = "You write jigs."
	coneMessage = "A jig in G, please."
	coneCancel  = "This turn is cancelled."
	conePlain   = "A client without a model asks."
)

// A coneReport is what a client saw taking the plan's turns.
type coneReport struct {
	Chat struct {
		Result *clientResult `json:"result"`
		Error  string        `json:"error"`
		// Progress are the progress messages the call reported, in order.
		Progress []string `json:"progress"`
		// Before is how many progress reports the client had seen when its model answered.
		Before int `json:"before"`
		// System and Messages are what the model was asked.
		System   string   `json:"system"`
		Messages []string `json:"messages"`
	} `json:"chat"`
	Cancel struct {
		Result *clientResult `json:"result"`
		Error  string        `json:"error"`
		// Asked says the model was asked before the call was cancelled.
		Asked bool `json:"asked"`
		// Withdrawn says the client was told that the question is no longer awaited (its
		// model's request was cancelled), rather than left to answer for nothing.
		Withdrawn bool `json:"withdrawn"`
	} `json:"cancel"`
	Plain struct {
		Result *clientResult `json:"result"`
		Error  string        `json:"error"`
		Code   int           `json:"code"`
	} `json:"plain"`
}

func TestConeChatClients(t *testing.T) {
	t.Parallel()
	url := startStack(t)
	s := connectHTTP(t, url)
	waitForWorker(t, s)
	c := newCaller(t, s)
	// newTree starts a tree of one system prompt for one client.
	newTree := func() (tree, root string) {
		out := c.call("tree_create", map[string]any{"role": "TURN_ROLE_SYSTEM", "text": coneSystem})
		return toString(obj(out, "tree")["id"]), toString(obj(out, "root")["id"])
	}
	for _, era := range []string{"2026-07-28", "2025-11-25"} {
		t.Run("go-sdk "+era, func(t *testing.T) {
			t.Parallel()
			tree, root := newTree()
			judgeCone(t, c, era, tree, runConeGoSDK(t, url, era, tree, root))
		})
	}
	root := repoRoot(t)
	node := filepath.Join(root, "node_modules", "node", "bin", "node")
	if _, err := os.Stat(node); err != nil {
		t.Fatalf("the pinned node is missing (%v): run npm ci", err)
	}
	for _, tc := range []struct{ name, sdk, era string }{
		{"ts-sdk v2 2026-07-28", "v2", "2026-07-28"},
		{"ts-sdk v2 2025-11-25", "v2", "2025-11-25"},
		{"ts-sdk v1 2025-11-25", "v1", "2025-11-25"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tree, treeRoot := newTree()
			judgeCone(t, c, tc.era, tree, runConeScript(t, node, root, url, tc.sdk, tc.era, tree, treeRoot))
		})
	}
}

// judgeCone checks a client's report against the plan, and the tree the client worked on.
func judgeCone(t *testing.T, c *caller, era, tree string, r coneReport) {
	t.Helper()
	// chat: the path was asked, the answer appended, the tune kept, progress seen on the way.
	if r.Chat.Error != "" || r.Chat.Result == nil || r.Chat.Result.IsError {
		t.Fatalf("chat: %s %+v", r.Chat.Error, r.Chat.Result)
	}
	if r.Chat.System != coneSystem || !slices.Equal(r.Chat.Messages, []string{coneMessage}) {
		t.Errorf("the model was asked system %q, messages %q", r.Chat.System, r.Chat.Messages)
	}
	out, _ := r.Chat.Result.StructuredContent.(map[string]any)
	user, assistant, attachment := obj(out, "user"), obj(out, "assistant"), obj(out, "attachment")
	if toString(obj(assistant, "text")["text"]) != coneAnswer || toString(assistant["parent_id"]) != toString(user["id"]) {
		t.Errorf("the assistant's node %v under the user's %v", assistant, user)
	}
	artifact := toString(out["artifact_id"])
	if !strings.HasPrefix(artifact, "art_") || toString(obj(attachment, "external")["identifier"]) != artifact || toString(out["model"]) != "client-model" {
		t.Errorf("cone_chat answered %v", out)
	}
	if r.Chat.Before < 1 {
		t.Errorf("the model answered before any progress was seen (progress %q)", r.Chat.Progress)
	}
	if len(r.Chat.Progress) == 0 || r.Chat.Progress[0] != "asking the client's model" {
		t.Errorf("progress %q, want it to start with the question to the model", r.Chat.Progress)
	}
	if got := toString(obj(c.call("artifact_get", map[string]any{"id": artifact}), "artifact")["mime_type"]); got != "text/vnd.abc" {
		t.Errorf("the tune's artifact is %q", got)
	}

	// cancel: the model was asked, and the call ended without a result.
	if !r.Cancel.Asked {
		t.Errorf("cancel: the model was never asked")
	}
	if r.Cancel.Result != nil && !r.Cancel.Result.IsError {
		t.Errorf("cancel: the cancelled call answered %+v", r.Cancel.Result)
	}
	if !r.Cancel.Withdrawn {
		t.Errorf("cancel: the client's model was not told that its answer is no longer awaited")
	}

	// plain: a client that cannot sample is told so. In 2026-07-28 the gateway answers -32021
	// (missing client capability) naming sampling; in 2025-11-25 the tool's error says so.
	if era == "2026-07-28" {
		if r.Plain.Code != -32021 || !strings.Contains(r.Plain.Error, "sampling") {
			t.Errorf("plain: a client without sampling got %d %q %+v", r.Plain.Code, r.Plain.Error, r.Plain.Result)
		}
	} else if r.Plain.Result == nil || !r.Plain.Result.IsError || !strings.Contains(r.Plain.Result.text(), "supports MCP sampling") ||
		strings.Contains(r.Plain.Result.text(), "retryable: yes") {
		t.Errorf("plain: a client without sampling got %q %+v", r.Plain.Error, r.Plain.Result)
	}

	// The tree holds the one whole turn: the system prompt, the user's node, the answer and its
	// tune. The cancelled and the refused turns left nothing, not even their user's node.
	nodes := list(c.call("tree_get", map[string]any{"tree_id": tree})["nodes"])
	var drawn []string
	for _, n := range nodes {
		m := obj(n)
		if ext := obj(m, "external"); ext != nil {
			drawn = append(drawn, toString(ext["source"]))
			continue
		}
		drawn = append(drawn, toString(obj(m, "text")["role"])+"="+toString(obj(m, "text")["text"]))
	}
	want := []string{"TURN_ROLE_SYSTEM=" + coneSystem, "TURN_ROLE_USER=" + coneMessage, "TURN_ROLE_ASSISTANT=" + coneAnswer, "artifact"}
	slices.Sort(drawn)
	slices.Sort(want)
	if !slices.Equal(drawn, want) {
		t.Errorf("the tree holds\n%q\nwant\n%q", drawn, want)
	}
}

// runConeGoSDK takes the plan's turns with the Go SDK's client at version era.
func runConeGoSDK(t *testing.T, url, era, tree, root string) coneReport {
	t.Helper()
	var r coneReport
	var (
		mu       sync.Mutex
		progress []string
		seen     = make(chan struct{}, 64) // one token a progress report
		block    bool                      // the model cancels its call and waits to be withdrawn
		cancel   context.CancelFunc        // cancels the call the model answers
		gaveUp   = make(chan struct{})     // closed when the model of the cancelled call returns
		giveUp   = sync.OnceFunc(func() { close(gaveUp) })
	)
	model := func(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
		mu.Lock()
		blocking, cancelCall := block, cancel
		mu.Unlock()
		if blocking {
			defer giveUp()
			mu.Lock()
			r.Cancel.Asked = true
			mu.Unlock()
			cancelCall()
			// The question is withdrawn: in 2026-07-28 by the SDK itself, whose call ended; in
			// 2025-11-25 by the gateway's notifications/cancelled. The bound only keeps a
			// failing test from hanging.
			select {
			case <-ctx.Done():
				mu.Lock()
				r.Cancel.Withdrawn = true
				mu.Unlock()
			case <-time.After(10 * time.Second):
			}
			return nil, errors.New("the call was cancelled")
		}
		// Answer once the call's first progress report is in: it says the model is asked.
		select {
		case <-seen:
		case <-time.After(10 * time.Second):
		}
		mu.Lock()
		defer mu.Unlock()
		r.Chat.Before = len(progress)
		r.Chat.System = req.Params.SystemPrompt
		for _, m := range req.Params.Messages {
			if tc, ok := m.Content.(*mcp.TextContent); ok {
				r.Chat.Messages = append(r.Chat.Messages, tc.Text)
			}
		}
		return &mcp.CreateMessageResult{Role: "assistant", Model: "client-model", Content: &mcp.TextContent{Text: coneAnswer}}, nil
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-cone", Version: "1"}, &mcp.ClientOptions{
		CreateMessageHandler: model,
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, req.Params.Message)
			mu.Unlock()
			select {
			case seen <- struct{}{}:
			default:
			}
		},
	})
	ctx, stop := context.WithTimeout(context.Background(), 90*time.Second)
	defer stop()
	connect := func(c *mcp.Client) *mcp.ClientSession {
		s, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: era})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		if got := s.InitializeResult().ProtocolVersion; got != era {
			t.Fatalf("go-sdk speaks %s, want %s", got, era)
		}
		return s
	}
	s := connect(client)
	result := func(res *mcp.CallToolResult) *clientResult {
		b, _ := json.Marshal(res)
		var out clientResult
		_ = json.Unmarshal(b, &out)
		return &out
	}

	params := &mcp.CallToolParams{Name: "cone_chat", Arguments: map[string]any{"tree_id": tree, "node_id": root, "message": coneMessage}}
	params.SetProgressToken("cone-" + era)
	res, err := s.CallTool(ctx, params)
	if err != nil {
		r.Chat.Error = err.Error()
	} else {
		r.Chat.Result = result(res)
	}
	mu.Lock()
	r.Chat.Progress = slices.Clone(progress)
	mu.Unlock()

	cctx, cancelCall := context.WithCancel(ctx)
	mu.Lock()
	block, cancel = true, cancelCall
	mu.Unlock()
	res, err = s.CallTool(cctx, &mcp.CallToolParams{Name: "cone_chat", Arguments: map[string]any{"tree_id": tree, "node_id": root, "message": coneCancel}})
	cancelCall()
	mu.Lock()
	asked := r.Cancel.Asked
	mu.Unlock()
	if !asked {
		giveUp() // the call ended before its model was asked: there is no model to wait for
	}
	<-gaveUp
	if err != nil {
		r.Cancel.Error = err.Error()
	} else {
		r.Cancel.Result = result(res)
	}

	plain := connect(mcp.NewClient(&mcp.Implementation{Name: "go-sdk-plain", Version: "1"}, nil))
	res, err = plain.CallTool(ctx, &mcp.CallToolParams{Name: "cone_chat", Arguments: map[string]any{"tree_id": tree, "node_id": root, "message": conePlain}})
	var werr *jsonrpc.Error
	switch {
	case errors.As(err, &werr):
		r.Plain.Code, r.Plain.Error = int(werr.Code), werr.Message
	case err != nil:
		r.Plain.Error = err.Error()
	default:
		r.Plain.Result = result(res)
	}
	mu.Lock()
	defer mu.Unlock()
	return r
}

// runConeScript takes the plan's turns with clients/cone.mjs on the TypeScript SDK sdk (v1 or
// v2) at version era.
func runConeScript(t *testing.T, node, root, url, sdk, era, tree, treeRoot string) coneReport {
	t.Helper()
	plan, _ := json.Marshal(map[string]string{"tree": tree, "root": treeRoot, "message": coneMessage, "cancel": coneCancel, "plain": conePlain, "answer": coneAnswer})
	out := runNode(t, node, root, filepath.Join(root, "holler", "e2e", "clients", "cone.mjs"), url, sdk, era, string(plan))
	var r coneReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("cone.mjs printed %q: %v", out, err)
	}
	return r
}

// runNode runs a node script with args and returns what it printed.
func runNode(t *testing.T, node, root, script string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{script}, args...)...)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s: %v\n%s", filepath.Base(script), err, stderr.String())
	}
	return out
}
