package e2e

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// servedGateway is an in-process gateway serving HTTP on a loopback port.
type servedGateway struct {
	g    *gateway.Gateway
	base string // http://127.0.0.1:PORT
	stop func()
}

func serveGateway(t *testing.T, dir string) *servedGateway {
	t.Helper()
	return serveGatewayWith(t, gateway.Config{DataDir: dir})
}

// TestOneWorkerSeveralGateways runs one worker connected to two gateways over one data
// directory: what is made through one gateway is read, awaited and cancelled through the other,
// content is served by both, and when one gateway goes away the other goes on serving.
func TestOneWorkerSeveralGateways(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := serveGateway(t, dir), serveGateway(t, dir)
	startSharedWorker(t, []*servedGateway{a, b}, []string{"--data", dir, "--heartbeat", "500ms", "--log-level", "warn"},
		hootv1hoot.ArtifactServiceName, hootv1hoot.JobServiceName, hootv1hoot.MusicServiceName)
	ca, cb := newCaller(t, connectHTTP(t, a.base+"/mcp")), newCaller(t, connectHTTP(t, b.base+"/mcp"))

	// An artifact made through one gateway is read through the other, and its bytes are
	// served by both.
	const content = "X:1\nT:Two doors\nK:G\nGABc dedB|\n"
	id := toString(obj(ca.call("artifact_create", map[string]any{"content": content, "mime_type": "text/vnd.abc"}), "artifact")["id"])
	if got := toString(obj(cb.call("artifact_get", map[string]any{"id": id}), "artifact")["id"]); got != id {
		t.Fatalf("artifact_get through the second gateway = %q, want %s", got, id)
	}
	for _, g := range []*servedGateway{a, b} {
		resp, err := http.Get(g.base + "/artifacts/" + id + "/content")
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(body) != content {
			t.Errorf("GET %s/artifacts/%s/content = %d %q, want the content", g.base, id, resp.StatusCode, body)
		}
	}

	// A job started through one gateway is awaited through the other.
	job := toString(ca.call("abc_book_to_midi", map[string]any{"artifact_id": id})["job_id"])
	done := list(cb.call("job_await", map[string]any{"ids": []any{job}, "timeout_ms": 30000})["jobs"])
	if len(done) != 1 || done[0].(map[string]any)["status"] != "JOB_STATUS_SUCCEEDED" {
		t.Fatalf("job_await through the second gateway = %v", done)
	}

	// A long job started through one gateway is cancelled through the other.
	var book strings.Builder
	for x := 1; x <= 400; x++ {
		fmt.Fprintf(&book, "X:%d\nT:Reel %d\nM:4/4\nL:1/8\nK:D\n%s\n", x, x, strings.Repeat("|:DFAF dFAF|GBdB AFEF|DFAF dfed|cdec d2d2:|\n", 8))
	}
	long := toString(cb.call("abc_book_to_midi", map[string]any{"abc": book.String()})["job_id"])
	cancelled := obj(ca.call("job_cancel", map[string]any{"id": long}), "job")
	if s := cancelled["status"]; s != "JOB_STATUS_CANCELLED" && s != "JOB_STATUS_SUCCEEDED" {
		t.Errorf("job_cancel through the other gateway = %v, want cancelled (or done, had it ended first)", cancelled)
	}

	// One gateway goes away; the other goes on serving the same worker.
	a.stop()
	res, err := cb.s.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "still here"}})
	if err != nil || res.IsError || obj(res.StructuredContent)["message"] != "still here" {
		t.Fatalf("echo through the gateway left = %v, %v", res, err)
	}
}

// freeAddr returns a loopback TCP address that was free a moment ago.
func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startHoller runs a holler process serving HTTP and a worker endpoint of its own.
func startHoller(t *testing.T, dir string) (cmd *exec.Cmd, base, workers string) {
	t.Helper()
	httpAddr, workerAddr := freeAddr(t), freeAddr(t)
	cmd = exec.Command(bin(t, "holler"), "serve", "--http-addr", httpAddr, "--worker-endpoint", "tcp://"+workerAddr,
		"--data", dir, "--heartbeat", "500ms", "--log-level", "warn")
	cmd.Stderr = testWriter{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	base = "http://" + httpAddr
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(base + "/healthz")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("holler at %s did not answer: %v", base, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return cmd, base, "tcp://" + workerAddr
}

// TestGatewayKilled kills one of two gateway processes with SIGKILL while clients call through
// both: the calls through the other gateway all succeed, the worker stays, and a job started
// through the killed gateway finishes and is read through the other.
func TestGatewayKilled(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	doomed, baseA, workersA := startHoller(t, dir)
	_, baseB, workersB := startHoller(t, dir)
	worker := exec.Command(bin(t, "hootenanny"), "--gateway", workersA, "--gateway", workersB,
		"--data", dir, "--heartbeat", "500ms", "--log-level", "warn")
	worker.Stderr = testWriter{t}
	if err := worker.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		worker.Process.Signal(os.Interrupt)
		worker.Wait()
	})
	sa, sb := connectHTTP(t, baseA+"/mcp"), connectHTTP(t, baseB+"/mcp")
	ca, cb := newCaller(t, sa), newCaller(t, sb)
	// Both gateways reach the worker.
	for _, c := range []*caller{ca, cb} {
		deadline := time.Now().Add(30 * time.Second)
		for {
			res, err := c.s.CallTool(c.ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "ready?"}})
			if err == nil && !res.IsError {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("no worker behind a gateway: %v %v", res, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	var book strings.Builder
	for x := 1; x <= 200; x++ {
		fmt.Fprintf(&book, "X:%d\nT:Jig %d\nM:6/8\nL:1/8\nK:G\n%s\n", x, x, strings.Repeat("|:GAG GAB|dBG GAB|c2e dBG|AGF G3:|\n", 6))
	}
	job := toString(ca.call("abc_book_to_midi", map[string]any{"abc": book.String()})["job_id"])

	// Calls through B run on while A is killed.
	stop := make(chan struct{})
	type outcome struct {
		n    int
		errs []string
	}
	results := make(chan outcome)
	var made atomic.Int64 // calls made through B so far, by all callers
	for w := range 3 {
		go func() {
			var o outcome
			for i := 0; i < 100000; i++ { // bounded; stop ends it long before
				select {
				case <-stop:
					results <- o
					return
				default:
				}
				msg := fmt.Sprintf("b/%d/%d", w, i)
				res, err := sb.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": msg}})
				o.n++
				made.Add(1)
				if err != nil || res.IsError || obj(res.StructuredContent)["message"] != msg {
					o.errs = append(o.errs, fmt.Sprintf("%s: %v %v", msg, err, res))
				}
			}
			results <- o
		}()
	}
	// The calls flow before the kill: some for every caller.
	for deadline := time.Now().Add(20 * time.Second); made.Load() < 30; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d calls through the gateway B in 20 s, want 30 before the kill", made.Load())
		}
	}
	if err := doomed.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	doomed.Wait()
	// A call through the killed gateway fails; the client may try again elsewhere.
	if res, err := sa.CallTool(context.Background(), &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "a"}}); err == nil && !res.IsError {
		t.Error("a call through the killed gateway succeeded")
	}
	time.Sleep(1500 * time.Millisecond) // past the worker's liveness for the dead gateway
	close(stop)
	total := 0
	for range 3 {
		o := <-results
		total += o.n
		for _, e := range o.errs {
			t.Errorf("a call through the gateway left failed: %s", e)
		}
	}
	t.Logf("%d calls through the gateway left while the other was killed", total)
	if err := worker.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("the worker is gone since a gateway died: %v", err)
	}
	done := list(cb.call("job_await", map[string]any{"ids": []any{job}, "timeout_ms": 30000})["jobs"])
	if len(done) != 1 || done[0].(map[string]any)["status"] != "JOB_STATUS_SUCCEEDED" {
		t.Fatalf("the job started through the killed gateway = %v, want it finished", done)
	}
}

// startSharedWorker starts one hootenanny worker with args, connected to every gateway of gws,
// stops it when the test ends, and waits until each gateway sees the services live.
func startSharedWorker(t *testing.T, gws []*servedGateway, args []string, services ...string) {
	t.Helper()
	var all []string
	for _, g := range gws {
		all = append(all, "--gateway", g.g.WorkerEndpoint())
	}
	cmd := exec.Command(bin(t, "hootenanny"), append(all, args...)...)
	cmd.Stderr = testWriter{t}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	for _, g := range gws {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := g.g.WaitForServices(ctx, services...)
		cancel()
		if err != nil {
			t.Fatal(err)
		}
	}
}
