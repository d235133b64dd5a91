// Package e2e drives the whole system the way a user does: an MCP client over real HTTP (and
// real stdio) into holler, over real ZeroMQ into a real hootenanny process, for every tool.
package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// binaries builds holler and hootenanny once for the package's tests.
var binaries = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "hoot-e2e-bin")
	if err != nil {
		return "", err
	}
	for _, pkg := range []string{"holler/cmd/holler", "hootenanny/cmd/hootenanny"} {
		cmd := exec.Command("go", "build", "-o", dir, "github.com/hootenanny/hoot/"+pkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", &buildError{pkg: pkg, out: string(out), err: err}
		}
	}
	return dir, nil
})

type buildError struct {
	pkg, out string
	err      error
}

func (e *buildError) Error() string { return "build " + e.pkg + ": " + e.err.Error() + "\n" + e.out }

func TestMain(m *testing.M) {
	code := m.Run()
	if dir, err := binaries(); err == nil {
		os.RemoveAll(dir)
	}
	os.Exit(code)
}

func bin(t *testing.T, name string) string {
	t.Helper()
	dir, err := binaries()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, name)
}

// startStack starts an in-process gateway that runs a real hootenanny binary as its worker,
// serves HTTP on a loopback port, and returns the MCP endpoint URL.
func startStack(t *testing.T) string {
	t.Helper()
	return startStackWith(t, nil)
}

// startStackWith is startStack with a gateway configured by edit (nil leaves the defaults).
func startStackWith(t *testing.T, edit func(*gateway.Config)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return startStackOn(t, l, edit)
}

// startStackOn is startStackWith serving HTTP on l, for a test that needs the gateway's URL
// before it configures the gateway.
func startStackOn(t *testing.T, l net.Listener, edit func(*gateway.Config)) string {
	t.Helper()
	dir := t.TempDir()
	cfg := gateway.Config{
		WorkerEndpoint: "tcp://127.0.0.1:*",
		WorkerCommand:  []string{bin(t, "hootenanny"), "--data", dir, "--log-level", "warn", "--heartbeat", "500ms"},
		DataDir:        dir,
		Heartbeat:      500 * time.Millisecond,
	}
	if edit != nil {
		edit(&cfg)
	}
	g, err := gateway.Start(cfg)
	if err != nil {
		l.Close()
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- g.ServeHTTP(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
		if err := g.Close(); err != nil {
			t.Errorf("close: %v", err)
		}
	})
	wctx, wcancel := context.WithTimeout(ctx, 30*time.Second)
	defer wcancel()
	if err := g.WaitForServices(wctx, hootv1hoot.SystemServiceName, hootv1hoot.CasServiceName,
		hootv1hoot.ArtifactServiceName, hootv1hoot.JobServiceName, hootv1hoot.QueryServiceName); err != nil {
		t.Fatal(err)
	}
	return "http://" + l.Addr().String() + "/mcp"
}

func connectHTTP(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	return connectHTTPWith(t, url, nil)
}

// connectHTTPWith is connectHTTP with a client configured by opts (nil for the defaults). The
// client speaks its default protocol version (2026-07-28), except a client that answers
// elicitations: holler asks a person to confirm a call by elicitation only in the 2025
// versions, so that client speaks 2025-11-25.
func connectHTTPWith(t *testing.T, url string, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, opts)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var session *mcp.ClientSessionOptions
	if opts != nil && opts.ElicitationHandler != nil {
		session = &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	}
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, session)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func TestEveryToolOverHTTP(t *testing.T) {
	t.Parallel()
	s := connectHTTP(t, startStack(t))
	exerciseEveryTool(t, s)
}

func TestEveryToolOverStdio(t *testing.T) {
	t.Parallel()
	// A free port for this gateway's worker endpoint, so parallel tests do not collide.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "tcp://" + l.Addr().String()
	l.Close()

	cmd := exec.Command(bin(t, "holler"), "mcp",
		"--worker-endpoint", endpoint,
		"--worker-command", bin(t, "hootenanny")+" --data "+t.TempDir(),
		"--log-level", "warn")
	cmd.Stderr = testWriter{t}
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-stdio", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 5 * time.Second}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The worker needs a moment to announce itself; until then calls say the service is unavailable.
	waitForWorker(t, s)
	exerciseEveryTool(t, s)
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

func waitForWorker(t *testing.T, s *mcp.ClientSession) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "cas_inspect", Arguments: map[string]any{"hash": strings.Repeat("0", 64)}})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text(res), "unavailable") {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the worker never came: %s", text(res))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func exerciseEveryTool(t *testing.T, s *mcp.ClientSession) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	list, err := s.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.InputSchema == nil || tool.OutputSchema == nil || tool.Annotations == nil || tool.Description == "" {
			t.Errorf("tool %s lacks a schema, annotations or a description", tool.Name)
		}
	}
	for _, want := range hootv1hoot.Tools {
		// Prompts and resources are not tools; the conformance fixtures are served only by a
		// worker started with them, and tools/conformance.sh runs the suite on them.
		if want.Surface != hootv1.Surface_SURFACE_UNSPECIFIED || strings.HasPrefix(want.Service, conformancev1hoot.ConformanceServiceName) {
			continue
		}
		// Admin tools are hidden unless the gateway allows them (admin_test.go).
		if want.Tier > hootv1.Tier_TIER_STANDARD {
			if slices.Contains(names, want.Name) {
				t.Errorf("tools/list shows %s, of tier %v, on a gateway that allows up to STANDARD", want.Name, want.Tier)
			}
			continue
		}
		if !slices.Contains(names, want.Name) {
			t.Errorf("tools/list lacks %s (has %v)", want.Name, names)
		}
	}

	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s: tool error: %s", name, text(res))
		}
		m, ok := res.StructuredContent.(map[string]any)
		if !ok {
			t.Fatalf("%s: structured content %T", name, res.StructuredContent)
		}
		// The text block carries the same result, for clients that read only text.
		var fromText map[string]any
		if err := json.Unmarshal([]byte(text(res)), &fromText); err != nil || fromText["hash"] != m["hash"] {
			t.Errorf("%s: text block %q does not match the structured content", name, text(res))
		}
		return m
	}

	if got := call("echo", map[string]any{"message": "hello, hootenanny"}); got["message"] != "hello, hootenanny" || got["worker"] == "" {
		t.Errorf("echo = %v", got)
	}

	tune := "X:1\nT:Speed the Plough\nM:4/4\nK:G\nGABc dedB|\n"
	stored := call("cas_store", map[string]any{"content": tune, "mime_type": "text/vnd.abc"})
	hash, _ := stored["hash"].(string)
	if len(hash) != 64 || stored["existed"] != false || stored["mime_type"] != "text/vnd.abc" {
		t.Fatalf("cas_store = %v", stored)
	}
	if again := call("cas_store", map[string]any{"content": tune, "mime_type": "text/vnd.abc"}); again["hash"] != hash || again["existed"] != true {
		t.Errorf("storing again = %v, want the same hash and existed", again)
	}
	if got := call("cas_get", map[string]any{"hash": hash}); got["content"] != tune || got["truncated"] != false {
		t.Errorf("cas_get = %v, want the tune back", got)
	}
	if got := call("cas_get", map[string]any{"hash": hash, "offset": 2, "length": 4}); got["content"] != tune[2:6] || got["truncated"] != true {
		t.Errorf("cas_get part = %v, want %q", got, tune[2:6])
	}
	if got := call("cas_inspect", map[string]any{"hash": hash}); jsonNumber(got["size"]) != len(tune) || got["mime_type"] != "text/vnd.abc" || got["stored_at"] == "" {
		t.Errorf("cas_inspect = %v", got)
	}

	// A stored object is also a resource, read through the same wire.
	rr, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "hoot://cas/" + hash})
	if err != nil {
		t.Fatalf("resources/read hoot://cas/%s: %v", hash, err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].Text != tune || rr.Contents[0].MIMEType != "text/vnd.abc" {
		t.Errorf("resources/read of the stored tune = %+v", rr.Contents)
	}
	if _, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "hoot://cas/" + strings.Repeat("ab", 32)}); err == nil {
		t.Error("resources/read of an object that was never stored succeeded")
	}

	binary := []byte{0x4d, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, 1, 0, 2, 0x01, 0xe0, 0xff, 0xfe}
	bs := call("cas_store", map[string]any{"content_base64": base64.StdEncoding.EncodeToString(binary), "mime_type": "audio/midi"})
	if rr, err := s.ReadResource(ctx, &mcp.ReadResourceParams{URI: "hoot://cas/" + toString(bs["hash"])}); err != nil || len(rr.Contents) != 1 || string(rr.Contents[0].Blob) != string(binary) {
		t.Errorf("resources/read of the binary object = %+v, %v; want its bytes as a blob", rr, err)
	}
	got := call("cas_get", map[string]any{"hash": bs["hash"]})
	if dec, _ := base64.StdEncoding.DecodeString(toString(got["content_base64"])); string(dec) != string(binary) || got["content"] != nil {
		t.Errorf("binary round trip = %v", got)
	}

	// Mistakes are answered with the next step, as tool errors the model can read.
	for _, tc := range []struct {
		name string
		args map[string]any
		want []string
	}{
		{"cas_get", map[string]any{"hash": strings.Repeat("ab", 32)}, []string{"not_found", "cas_store"}},
		{"cas_get", map[string]any{"hsh": hash}, []string{"hsh", "hash", "cas_get("}},
		{"cas_get", map[string]any{"hash": "XYZ"}, []string{"hash", "[0-9a-f]{64}"}},
		{"cas_store", map[string]any{"content": "a", "content_base64": "YQ=="}, []string{"content"}},
		{"echo", map[string]any{}, []string{"message", "required"}},
	} {
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tc.name, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s %v: %v", tc.name, tc.args, err)
		}
		if !res.IsError {
			t.Errorf("%s %v: want a tool error, got %s", tc.name, tc.args, text(res))
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(text(res), w) {
				t.Errorf("%s %v: error %q does not mention %q", tc.name, tc.args, text(res), w)
			}
		}
	}
}

func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func toString(v any) string { s, _ := v.(string); return s }

// jsonNumber reads a 64-bit integer that protojson writes as a string, or a plain number.
func jsonNumber(v any) int {
	switch x := v.(type) {
	case float64:
		return int(x)
	case string:
		var n int
		for _, c := range x {
			n = n*10 + int(c-'0')
		}
		return n
	}
	return -1
}
