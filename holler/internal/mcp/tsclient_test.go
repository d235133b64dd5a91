package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
)

// repoRoot returns the directory of the repository's package.json.
func repoRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "package.json")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no package.json above the test's directory")
		}
		dir = parent
	}
}

// nodeTools finds node and npm, installing the locked packages with npm ci when they are
// missing. Without node the test is skipped, except in CI, where it fails.
func nodeTools(t *testing.T, root string) (node string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("node is not installed; the TypeScript SDK test needs it (and fails without it when CI is set)")
		}
		t.Fatal("node is not installed, and CI needs the TypeScript SDK test")
	}
	sdk := filepath.Join(root, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(sdk); err != nil {
		npm, err := exec.LookPath("npm")
		if err != nil {
			t.Fatal("node_modules lacks the TypeScript SDK and npm is not installed to run npm ci")
		}
		cmd := exec.Command(npm, "ci", "--no-audit", "--no-fund")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm ci: %v\n%s", err, out)
		}
	}
	return node
}

// TestTypeScriptSDKClient runs the official TypeScript SDK client against the server: it
// connects over Streamable HTTP, pages through the tools, calls a tool with a progress
// callback and cancels a call, which the backend must see.
func TestTypeScriptSDKClient(t *testing.T) {
	root := repoRoot(t)
	node := nodeTools(t, root)
	s, b := newTestServer(t, func(c *Config) { c.PageSize = 2; c.CallTimeout = 30 * time.Second })
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "holler", "e2e", "tsclient", "client.mjs"), ts.URL+"/mcp")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewScanner(stdout)
	out.Buffer(nil, 1<<20)
	if !out.Scan() || out.Text() != "blocking" {
		t.Fatalf("the client did not reach the blocking call: %q %v", out.Text(), cmd.Wait())
	}
	select {
	case <-b.started:
	case <-ctx.Done():
		t.Fatal("the blocking call never reached the backend")
	}
	if _, err := stdin.Write([]byte("cancel\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case cause := <-b.ended:
		if !errors.Is(cause, sessions.ErrCancelledByClient) {
			t.Errorf("the blocking call ended with %v, not the client's cancellation", cause)
		}
	case <-ctx.Done():
		t.Fatal("the cancelled call never ended")
	}
	if _, err := stdin.Write([]byte("end\n")); err != nil {
		t.Fatal(err)
	}
	if !out.Scan() {
		t.Fatalf("no report from the client: %v", cmd.Wait())
	}
	report := out.Bytes()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("client: %v", err)
	}

	var got struct {
		ProtocolVersion string   `json:"protocolVersion"`
		Pages           int      `json:"pages"`
		Names           []string `json:"names"`
		Progress        []struct {
			Progress float64 `json:"progress"`
			Total    float64 `json:"total"`
			Message  string  `json:"message"`
		} `json:"progress"`
		Echo      toolResult `json:"echo"`
		Cancelled string     `json:"cancelled"`
	}
	if err := json.Unmarshal(report, &got); err != nil {
		t.Fatalf("report %s: %v", report, err)
	}
	if got.ProtocolVersion != era.Latest {
		t.Errorf("negotiated %q", got.ProtocolVersion)
	}
	if !slices.Equal(got.Names, s.allowedNames) || got.Pages != (len(s.allowedNames)+1)/2 {
		t.Errorf("paged through %v in %d pages, want %v", got.Names, got.Pages, s.allowedNames)
	}
	if len(got.Progress) != 2 || got.Progress[0].Message != "halfway" || got.Progress[1].Progress != 2 {
		t.Errorf("progress = %+v", got.Progress)
	}
	if got.Echo.IsError || got.Echo.StructuredContent == nil {
		t.Errorf("echo = %+v", got.Echo)
	}
	if !strings.Contains(got.Cancelled, "cancels") {
		t.Errorf("the cancelled call ended with %q", got.Cancelled)
	}
}
