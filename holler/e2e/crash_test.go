package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestCrashRecovery kills the worker with SIGKILL, again and again, while clients store content
// and create artifacts in a loop. After a restart every artifact that was acknowledged is there
// with its lineage, and every stored object's bytes match its hash.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("skipped in the short tier: it waits for a killed worker to be restarted; make test runs it")
	}
	t.Parallel()
	dir := t.TempDir()
	g, err := gateway.Start(gateway.Config{WorkerEndpoint: "tcp://127.0.0.1:*", DataDir: dir, Heartbeat: 500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- g.ServeHTTP(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		<-served
		g.Close()
	})
	s := connectHTTP(t, "http://"+l.Addr().String()+"/mcp")

	startWorker := func() *exec.Cmd {
		t.Helper()
		cmd := exec.Command(bin(t, "hootenanny"), "--gateway", g.WorkerEndpoint(), "--data", dir, "--heartbeat", "500ms", "--log-level", "error")
		cmd.Stderr = testWriter{t}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer wcancel()
		if err := g.WaitForServices(wctx, hootv1hoot.ArtifactServiceName, hootv1hoot.CasServiceName); err != nil {
			cmd.Process.Kill()
			t.Fatal(err)
		}
		return cmd
	}

	type acked struct{ id, content, parent string }
	var (
		mu    sync.Mutex
		acks  []acked
		tries int
	)
	const rounds, writers = 4, 3
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range rounds {
		cmd := startWorker()
		rctx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range writers {
			wg.Go(func() {
				parent := ""
				for i := 0; rctx.Err() == nil; i++ {
					// Content of a few KiB to a few hundred KiB, so that some kills land mid-write.
					content := fmt.Sprintf("round %d writer %d item %d\n", round, w, i) + strings.Repeat("la ", 1000*(1+i%60))
					args := map[string]any{"content": content, "tags": []any{"crash"}}
					if parent != "" {
						args["parent_ids"] = []any{parent}
					}
					mu.Lock()
					tries++
					mu.Unlock()
					res, err := s.CallTool(rctx, &mcp.CallToolParams{Name: "artifact_create", Arguments: args})
					if err != nil || res.IsError {
						// The worker is gone (or going): unacknowledged, so promised nothing.
						time.Sleep(20 * time.Millisecond)
						continue
					}
					id := toString(obj(res.StructuredContent, "artifact")["id"])
					mu.Lock()
					acks = append(acks, acked{id, content, parent})
					mu.Unlock()
					parent = id
				}
			})
		}
		time.Sleep(time.Duration(300+rng.IntN(700)) * time.Millisecond)
		if err := cmd.Process.Kill(); err != nil { // SIGKILL: no chance to clean up
			t.Fatal(err)
		}
		_ = cmd.Wait()
		// Calls in flight fail once the gateway sees the worker gone; then the writers stop.
		waitGone(t, g)
		stop()
		wg.Wait()
	}
	t.Logf("%d artifacts acknowledged of %d tried over %d kills", len(acks), tries, rounds)
	if len(acks) == 0 {
		t.Fatal("no artifact was acknowledged")
	}

	// Jobs survive a crash: queue several, kill the worker at once, and the next worker on the
	// data directory takes them up and finishes them. A tune book's conversion, killed once it
	// has made some of its MIDI artifacts, makes none of them twice when it runs again.
	cmd := startWorker()
	c := newCaller(t, s)
	var book strings.Builder
	const bookTunes = 300
	for x := 1; x <= bookTunes; x++ {
		fmt.Fprintf(&book, "X:%d\nT:Reel %d\nM:4/4\nL:1/8\nK:D\n", x, x)
		book.WriteString(strings.Repeat("|:DFAF dFAF|GBdB AFEF|DFAF dfed|cdec d2d2:|\n", 6) + "\n")
	}
	bookArt := toString(obj(c.call("artifact_create", map[string]any{"content": book.String(), "mime_type": "text/vnd.abc"}), "artifact")["id"])
	var jobIDs []string
	for range 8 {
		// A retryable "unavailable" is retried, as a client should. It was seen, rarely and only
		// under heavy load: the jobs queued here re-hash everything stored, four at a time, and
		// under the race detector on two cores the worker can then miss its heartbeat window,
		// be dropped, and announce itself again a moment later (the likely cause, not proven).
		var res *mcp.CallToolResult
		var err error
		for attempt := 0; ; attempt++ {
			res, err = s.CallTool(context.Background(), &mcp.CallToolParams{Name: "cas_verify"})
			if err != nil || !res.IsError || attempt == 20 || !strings.Contains(text(res), "retryable: yes") {
				break
			}
			t.Logf("cas_verify attempt %d: %s", attempt, text(res))
			time.Sleep(100 * time.Millisecond)
		}
		if err != nil || res.IsError {
			t.Fatalf("cas_verify = %v, %v: %s", res, err, text(res))
		}
		jobIDs = append(jobIDs, toString(obj(res.StructuredContent)["job_id"]))
	}
	bookJob := toString(c.call("abc_book_to_midi", map[string]any{"artifact_id": bookArt})["job_id"])
	jobIDs = append(jobIDs, bookJob)
	// Kill once the book's job has made some progress (or, on a fast machine, ended).
	deadline := time.Now().Add(30 * time.Second)
	var atKill map[string]any
	for time.Now().Before(deadline) {
		atKill = obj(c.call("job_status", map[string]any{"id": bookJob}), "job")
		if p, _ := atKill["progress"].(float64); p > 0 || atKill["status"] != "JOB_STATUS_PENDING" && atKill["status"] != "JOB_STATUS_RUNNING" {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	cmd.Wait()
	t.Logf("the book's job at the kill: %v, progress %v of %v", atKill["status"], atKill["progress"], atKill["total"])
	waitGone(t, g)

	cmd = startWorker()
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	}()
	for _, a := range acks {
		got := c.call("artifact_get", map[string]any{"id": a.id})
		art := obj(got, "artifact")
		sum := sha256.Sum256([]byte(a.content))
		if art["hash"] != hex.EncodeToString(sum[:]) || jsonNumber(art["size"]) != len(a.content) {
			t.Errorf("artifact %s = %v, want the hash of its content", a.id, art)
		}
		if a.parent != "" && !equalStrings(toStrings(art["parent_ids"]), []string{a.parent}) {
			t.Errorf("artifact %s has parents %v, want %s", a.id, art["parent_ids"], a.parent)
		}
	}
	ids := make([]any, len(jobIDs))
	for i, id := range jobIDs {
		ids[i] = id
	}
	for _, j := range list(c.call("job_await", map[string]any{"ids": ids, "timeout_ms": 50000})["jobs"]) {
		if j := j.(map[string]any); j["status"] != "JOB_STATUS_SUCCEEDED" {
			t.Errorf("job %v after the restart = %v, want it taken up and finished", j["id"], j)
		}
	}
	tunes := list(obj(c.call("job_status", map[string]any{"id": bookJob}), "job", "result", "abc_book_to_midi")["tunes"])
	made := map[string]bool{}
	for _, tune := range tunes {
		made[toString(tune.(map[string]any)["artifact_id"])] = true
	}
	children := list(c.call("artifact_list", map[string]any{"parent_id": bookArt, "limit": 500})["artifacts"])
	if len(tunes) != bookTunes || len(made) != bookTunes || len(children) != bookTunes {
		t.Errorf("the book of %d tunes gave %d tunes, %d distinct artifacts, and its artifact has %d children; want %d of each",
			bookTunes, len(tunes), len(made), len(children), bookTunes)
	}
	for _, ch := range children {
		if id := toString(ch.(map[string]any)["id"]); !made[id] {
			t.Errorf("the book's artifact has a child %s that the finished job does not name: made twice?", id)
		}
	}
	if n := jsonNumber(c.call("storage_stats", nil)["artifacts"]); n < len(acks) {
		t.Errorf("storage_stats counts %d artifacts, fewer than the %d acknowledged", n, len(acks))
	}

	// Every object on disk is whole: its bytes hash to its name.
	objects := 0
	err = filepath.WalkDir(filepath.Join(dir, "cas", "objects"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasSuffix(path, ".meta") {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		h := sha256.New()
		if _, err := io.Copy(h, f); err != nil {
			return err
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != d.Name() {
			t.Errorf("object %s holds bytes whose hash is %s", d.Name(), got)
		}
		objects++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The worker agrees, checking every object as a job.
	job := toString(c.call("cas_verify", nil)["job_id"])
	v := obj(list(c.call("job_await", map[string]any{"ids": []any{job}})["jobs"])[0], "result", "cas_verify")
	if jsonNumber(v["checked"]) != objects || len(list(v["problems"])) != 0 {
		t.Errorf("cas_verify after the crashes = %v, want %d objects without problems", v, objects)
	}
}

func equalStrings(a, b []string) bool {
	return strings.Join(a, "\x00") == strings.Join(b, "\x00")
}

// waitGone waits until the gateway has noticed that no worker is left.
func waitGone(t *testing.T, g *gateway.Gateway) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for len(g.Services()) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the gateway still sees workers for %v", g.Services())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
