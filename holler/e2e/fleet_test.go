package e2e

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/cas/storetest"
	"github.com/hootenanny/hoot/hootenanny/pgtest"
	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The fleet tests run workers as separate processes, each with a data directory of its own (as
// on separate machines), sharing a PostgreSQL database and an S3 prefix of the test's own on
// the servers that tools/testservers.sh starts (make test runs them there).

// fleetVars are the variables the fleet tests need; tools/testservers.sh sets them all.
var fleetVars = []string{"HOOT_TEST_POSTGRES", "HOOT_TEST_S3", "AWS_ENDPOINT_URL", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"}

// requireFleet skips t when the test servers are not there, or fails it when
// HOOT_FLEET_TESTS=required says they must be.
func requireFleet(t *testing.T) {
	t.Helper()
	var missing []string
	for _, v := range fleetVars {
		if os.Getenv(v) == "" {
			missing = append(missing, v)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := "no PostgreSQL and S3 test servers (" + strings.Join(missing, ", ") + " unset); run this test through " +
		"`make test` or `tools/testservers.sh go test ...`, which start them and set the variables"
	if os.Getenv("HOOT_FLEET_TESTS") == "required" {
		t.Fatal(msg + " (HOOT_FLEET_TESTS=required)")
	}
	t.Skip(msg)
}

// A fleet is the shared storage of a test's workers: a PostgreSQL database and an S3 store of
// the test's own.
type fleet struct {
	t *testing.T
	// db is the database's URL.
	db string
	// cas is the content store, s3://bucket/prefix.
	cas string
	// env is added to the environment of the fleet's processes.
	env []string
}

// newFleet makes a new database and S3 prefix for t, both removed when t ends.
func newFleet(t *testing.T) *fleet {
	t.Helper()
	requireFleet(t)
	return &fleet{t: t, db: pgtest.Database(t), cas: storetest.S3URL(t)}
}

// worker returns a hootenanny process (not started) that serves the gateways over the fleet's
// storage, with a data directory of its own.
func (f *fleet) worker(name string, gateways []string, extra ...string) *proc {
	args := []string{"--database", f.db, "--cas", f.cas, "--data", f.t.TempDir(), "--name", name,
		"--heartbeat", "500ms", "--log-level", "error"}
	for _, g := range gateways {
		args = append(args, "--gateway", g)
	}
	return newProc(f.t, name, bin(f.t, "hootenanny"), f.env, append(args, extra...)...)
}

// A hollerProc is a gateway process serving HTTP and a worker endpoint on loopback ports that
// stay the same when it is killed and started again.
type hollerProc struct {
	*proc
	// base is the HTTP server's URL, http://127.0.0.1:PORT.
	base string
	// workers is the worker endpoint, tcp://127.0.0.1:PORT.
	workers string
}

// holler returns a holler gateway process (not started) whose content routes read the fleet's
// store.
func (f *fleet) holler(name string, extra ...string) *hollerProc {
	httpAddr, workerAddr := freeAddr(f.t), freeAddr(f.t)
	args := append([]string{"serve", "--http-addr", httpAddr,
		"--worker-endpoint", "tcp://" + workerAddr, "--cas", f.cas, "--data", "",
		"--heartbeat", "500ms", "--call-timeout", "20s", "--log-level", "error"}, extra...)
	p := newProc(f.t, name, bin(f.t, "holler"), f.env, args...)
	return &hollerProc{proc: p, base: "http://" + httpAddr, workers: "tcp://" + workerAddr}
}

// startServing starts the gateway and waits until its HTTP server answers.
func (h *hollerProc) startServing() {
	h.t.Helper()
	h.start()
	deadline := time.Now().Add(20 * time.Second)
	for {
		resp, err := http.Get(h.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			return
		}
		if time.Now().After(deadline) || !h.running() {
			h.t.Fatalf("%s at %s does not answer: %v", h.name, h.base, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A proc is a process of the test's that can be killed and started again with the same
// arguments. The test's cleanup kills it.
type proc struct {
	t    *testing.T
	name string
	path string
	args []string
	env  []string

	mu   sync.Mutex
	cmd  *exec.Cmd
	done chan struct{} // closed once cmd has been waited for
}

func newProc(t *testing.T, name, path string, env []string, args ...string) *proc {
	p := &proc{t: t, name: name, path: path, args: args, env: env}
	t.Cleanup(p.kill)
	return p
}

// start starts the process; it must not be running.
func (p *proc) start() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil {
		p.t.Fatalf("%s runs already", p.name)
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Env = append(os.Environ(), p.env...)
	cmd.Stderr = prefixWriter{p.t, p.name + ": "}
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("starting %s: %v", p.name, err)
	}
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	p.cmd, p.done = cmd, done
}

// kill sends SIGKILL, if the process runs, and waits until it has exited (and been reaped, so
// that its pid is free: a zombie would still look alive to the workers' check on this host).
func (p *proc) kill() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGCONT) // a stopped process dies of SIGKILL too, but say it
	p.cmd.Process.Kill()
	select {
	case <-p.done:
	case <-time.After(10 * time.Second):
		p.t.Errorf("%s (pid %d) did not exit after SIGKILL", p.name, p.cmd.Process.Pid)
	}
	p.cmd = nil
}

// restart kills the process and starts it again.
func (p *proc) restart() {
	p.t.Helper()
	p.kill()
	p.start()
}

// signal sends sig to the running process.
func (p *proc) signal(sig syscall.Signal) {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		p.t.Fatalf("%s does not run", p.name)
	}
	if err := p.cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("signalling %s: %v", p.name, err)
	}
}

// pid returns the running process's id.
func (p *proc) pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// running reports whether the process is running (it may have exited by itself).
func (p *proc) running() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// prefixWriter logs a process's output to the test, a line at a time, with the process's name.
type prefixWriter struct {
	t      *testing.T
	prefix string
}

func (w prefixWriter) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		w.t.Log(w.prefix + line)
	}
	return len(b), nil
}

// serveGatewayWith starts an in-process gateway with cfg (on a free loopback worker endpoint,
// unless cfg names one) serving HTTP on a loopback port; the test's cleanup stops it.
func serveGatewayWith(t *testing.T, cfg gateway.Config) *servedGateway {
	t.Helper()
	if cfg.WorkerEndpoint == "" {
		cfg.WorkerEndpoint = "tcp://127.0.0.1:*"
	}
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = 500 * time.Millisecond
	}
	g, err := gateway.Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- g.ServeHTTP(ctx, l) }()
	sg := &servedGateway{g: g, base: "http://" + l.Addr().String()}
	stopped := false
	sg.stop = func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		<-served
		g.Close()
	}
	t.Cleanup(sg.stop)
	return sg
}

// waitForWorkerNamed calls echo until the worker named name answers it (the gateway picks the
// least loaded worker, at random among equals), so that name is known to serve.
func waitForWorkerNamed(t *testing.T, s *mcp.ClientSession, name string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var last string
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "who?"}})
		cancel()
		switch {
		case err != nil:
			last = err.Error()
		case res.IsError:
			last = text(res)
		default:
			if last = toString(obj(res.StructuredContent)["worker"]); last == name {
				return
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the worker %s never answered echo (last answer: %s)", name, last)
}

// A failure is how a tool call failed, in the categories the fault tests count.
type failure string

const (
	// unavailable: a tool error of category unavailable that says a retry may succeed.
	failUnavailable failure = "unavailable, retryable"
	// retryable: another tool error that says a retry may succeed (overloaded, say).
	failRetryable failure = "other retryable"
	// transport: the call got no answer over HTTP (its gateway was killed).
	failTransport failure = "transport error"
	// hung: the call did not end within its bound.
	failHung failure = "hung"
	// other: anything else, such as an internal error or one that says not to retry.
	failOther failure = "other"
)

var toolErrorCategory = regexp.MustCompile(`failed \(([a-z_]+)\)`)

// classify says how a call failed, or "" when it succeeded.
func classify(res *mcp.CallToolResult, err error) failure {
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return failHung
	case err != nil:
		return failTransport
	case !res.IsError:
		return ""
	}
	msg := text(res)
	if !strings.Contains(msg, "\nretryable: yes") {
		return failOther
	}
	if m := toolErrorCategory.FindStringSubmatch(msg); m != nil && m[1] == "unavailable" {
		return failUnavailable
	}
	return failRetryable
}

// randomText returns n random lowercase letters, content that does not compress.
func randomText(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	for i := range b {
		b[i] = 'a' + b[i]%26
	}
	return string(b)
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// checkStoreWhole checks every object of the S3 store spec: its bytes hash to its key. It also
// lists the store's prefix with a plain client and fails on any key that is not an object's
// final key (objects/ab/abcd...), so that nothing partial or temporary is left anywhere. endpoint
// is the S3 server ("" for AWS_ENDPOINT_URL). It returns the objects' hashes.
func checkStoreWhole(t *testing.T, spec, endpoint string) map[cas.Hash]bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cfg, err := cas.ParseS3URL(spec)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Endpoint = endpoint
	store, err := cas.OpenS3(ctx, cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[cas.Hash]bool{}
	if err := store.Walk(ctx, func(h cas.Hash) error {
		seen[h] = true
		return nil
	}); err != nil {
		t.Fatalf("walking %s: %v", spec, err)
	}
	for h := range seen {
		if _, err := store.Verify(ctx, h); err != nil {
			t.Errorf("object %s: %v", h, err)
		}
		if _, err := store.Stat(ctx, h); err != nil {
			t.Errorf("object %s has no metadata: %v", h, err)
		}
	}

	client, err := storetest.NewS3Client(ctx, endpoint)
	if err != nil {
		t.Fatal(err)
	}
	finalKey := regexp.MustCompile(`^objects/([0-9a-f]{2})/([0-9a-f]{64})$`)
	pages := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: aws.String(cfg.Bucket), Prefix: aws.String(cfg.Prefix + "/")})
	keys := 0
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			t.Fatalf("listing %s: %v", spec, err)
		}
		for _, o := range page.Contents {
			keys++
			key := strings.TrimPrefix(aws.ToString(o.Key), cfg.Prefix+"/")
			m := finalKey.FindStringSubmatch(key)
			if m == nil || !strings.HasPrefix(m[2], m[1]) {
				t.Errorf("%s holds %q, which is no object's final key: a leftover of an interrupted write?", spec, key)
				continue
			}
			h, _ := cas.ParseHash(m[2])
			if !seen[h] {
				t.Errorf("the store's walk missed %s", key)
			}
		}
	}
	if keys != len(seen) {
		t.Errorf("%s holds %d keys and its walk found %d objects", spec, keys, len(seen))
	}
	return seen
}

// httpGet returns the status, body and headers of GET url.
func httpGet(t *testing.T, url string) (int, string, http.Header) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), resp.Header
}

// TestFleetWorkerKilledMidUpload kills workers with SIGKILL, at random moments, while clients
// store content of a few KiB to a megabyte (cas_store and artifact_create) through the gateway;
// each killed worker is started again at once. Afterwards every acknowledged object and
// artifact is there with the right bytes, the calls that failed said a retry may help, and
// every key under the store's prefix is a whole object at its final key.
func TestFleetWorkerKilledMidUpload(t *testing.T) {
	f := newFleet(t)
	t.Parallel()
	// The gateway is a process of its own, as the workers are, so that calls spend their time
	// there rather than in this test's process, slowed by the race detector.
	g := f.holler("upload-gateway", "--max-tier", "admin")
	g.startServing()
	workers := []*proc{
		f.worker("upload-w0", []string{g.workers}),
		f.worker("upload-w1", []string{g.workers}),
	}
	s := connectHTTP(t, g.base+"/mcp")
	for _, w := range workers {
		w.start()
		waitForWorkerNamed(t, s, w.name)
	}

	type acked struct {
		kind, id, hash string
		size           int
	}
	var (
		mu       sync.Mutex
		acks     []acked
		calls    int
		failures = map[failure]int{}
		others   []string
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 3 {
		ws := connectHTTP(t, g.base+"/mcp")
		wg.Go(func() {
			for i := 0; i < 10000; i++ { // bounded; stop ends it long before
				select {
				case <-stop:
					return
				default:
				}
				// Sizes spread evenly over the powers of two from 2 KiB to 1 MiB.
				size := 2048 << mrand.IntN(10)
				size += mrand.IntN(size)
				size = min(size, 1<<20)
				var args map[string]any
				var hash string
				kind := "cas_store"
				if i%2 == 0 {
					content := []byte(randomText(size))
					hash = sha256Hex(content)
					kind = "artifact_create"
					args = map[string]any{"content": string(content), "tags": []any{"upload"}, "creator": fmt.Sprintf("writer-%d", w)}
				} else {
					content := make([]byte, size)
					rand.Read(content)
					hash = sha256Hex(content)
					args = map[string]any{"content_base64": base64.StdEncoding.EncodeToString(content), "mime_type": "application/octet-stream"}
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := ws.CallTool(ctx, &mcp.CallToolParams{Name: kind, Arguments: args})
				cancel()
				mu.Lock()
				calls++
				if why := classify(res, err); why != "" {
					failures[why]++
					if why != failUnavailable {
						others = append(others, fmt.Sprintf("%s: %v %s", kind, err, resultText(res)))
					}
					mu.Unlock()
					time.Sleep(20 * time.Millisecond)
					continue
				}
				a := acked{kind: kind, hash: hash, size: size}
				if kind == "artifact_create" {
					art := obj(res.StructuredContent, "artifact")
					a.id = toString(art["id"])
					if art["hash"] != hash {
						t.Errorf("artifact_create answered %v for content whose hash is %s", art, hash)
					}
				} else if got := toString(obj(res.StructuredContent)["hash"]); got != hash {
					t.Errorf("cas_store answered the hash %s for content whose hash is %s", got, hash)
				}
				acks = append(acks, a)
				mu.Unlock()
			}
		})
	}
	const kills = 8
	for range kills {
		time.Sleep(time.Duration(200+mrand.IntN(600)) * time.Millisecond)
		w := workers[mrand.IntN(len(workers))]
		w.restart()
	}
	time.Sleep(500 * time.Millisecond)
	close(stop)
	wg.Wait()
	t.Logf("%d calls, %d acknowledged, failed: %v, over %d kills", calls, len(acks), failures, kills)
	for _, o := range others {
		t.Errorf("a call failed other than with a retryable unavailable error: %s", o)
	}
	if len(acks) == 0 {
		t.Fatal("no call was acknowledged")
	}

	// Every acknowledged artifact names its content, and every acknowledged object is whole.
	for _, w := range workers {
		waitForWorkerNamed(t, s, w.name)
	}
	c := newCaller(t, s)
	objects := checkStoreWhole(t, f.cas, "")
	for _, a := range acks {
		h, err := cas.ParseHash(a.hash)
		if err != nil {
			t.Fatal(err)
		}
		if !objects[h] {
			t.Errorf("the %s acknowledged %s (%d bytes) is not in the store", a.kind, a.hash, a.size)
		}
		if a.kind != "artifact_create" {
			continue
		}
		art := obj(c.call("artifact_get", map[string]any{"id": a.id}), "artifact")
		if art["hash"] != a.hash || jsonNumber(art["size"]) != a.size {
			t.Errorf("artifact %s = %v, want hash %s and size %d", a.id, art, a.hash, a.size)
		}
	}
	// storage_gc sees the store as it is: every object examined, those of the acknowledged
	// artifacts named, and the rest (the objects of cas_store and of interrupted
	// artifact_create calls) young, so that nothing is removed yet; what it removes once they
	// are old is the tool's own test, on both backends.
	admin := newCaller(t, connectHTTPWith(t, g.base+"/mcp", &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
		}}))
	gcJob := toString(admin.call("storage_gc", map[string]any{})["job_id"])
	gcDone := list(admin.call("job_await", map[string]any{"ids": []any{gcJob}, "timeout_ms": 40000})["jobs"])
	if len(gcDone) != 1 || obj(gcDone[0])["status"] != "JOB_STATUS_SUCCEEDED" {
		t.Fatalf("storage_gc = %v", gcDone)
	}
	gc := obj(gcDone[0], "result", "storage_gc")
	namedHashes := map[string]bool{}
	for _, a := range acks {
		if a.kind == "artifact_create" {
			namedHashes[a.hash] = true
		}
	}
	examined, named, young := jsonNumber(gc["objects_examined"]), jsonNumber(gc["objects_named"]), jsonNumber(gc["objects_young"])
	if examined != len(objects) || named < len(namedHashes) || named+young != examined || jsonNumber(gc["objects_removed"]) > 0 {
		t.Errorf("storage_gc over %d objects (%d named by acknowledged artifacts) = %v", len(objects), len(namedHashes), gc)
	}
	if again := checkStoreWhole(t, f.cas, ""); len(again) != len(objects) {
		t.Errorf("after storage_gc the store holds %d objects, before %d", len(again), len(objects))
	}

	// Its bytes, through the gateway's content route, for a few of them.
	n := 0
	for _, a := range acks {
		if a.kind != "artifact_create" || n == 3 {
			continue
		}
		n++
		status, body, _ := httpGet(t, g.base+"/artifacts/"+a.id+"/content")
		if status != http.StatusOK || sha256Hex([]byte(body)) != a.hash {
			t.Errorf("GET /artifacts/%s/content = %d and %d bytes, want the content of hash %s", a.id, status, len(body), a.hash)
		}
	}
}

// resultText is the text of a tool result, or "" for none.
func resultText(res *mcp.CallToolResult) string {
	if res == nil {
		return ""
	}
	return text(res)
}

// tuneBook returns an ABC tune book of n reels.
func tuneBook(n int) string {
	var b strings.Builder
	for x := 1; x <= n; x++ {
		fmt.Fprintf(&b, "X:%d\nT:Reel %d\nM:4/4\nL:1/8\nK:D\n", x, x)
		b.WriteString(strings.Repeat("|:DFAF dFAF|GBdB AFEF|DFAF dfed|cdec d2d2:|\n", 4) + "\n")
	}
	return b.String()
}

// A jobRow is a job's record, read from the database around the tools: who owns it, how many
// runs it has had, and the times (Unix nanoseconds) its lease ends and its run started.
type jobRow struct {
	owner      string
	attempts   int
	leaseUntil int64
	startedAt  int64
	status     int
	progress   float64
}

func readJob(t *testing.T, dsn, id string) jobRow {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var r jobRow
	var started *int64
	if err := conn.QueryRow(ctx, `SELECT owner, attempts, lease_until, started_at, status, progress FROM jobs WHERE id = $1`, id).
		Scan(&r.owner, &r.attempts, &r.leaseUntil, &started, &r.status, &r.progress); err != nil {
		t.Fatalf("reading job %s: %v", id, err)
	}
	if started != nil {
		r.startedAt = *started
	}
	return r
}

// ownedBy reports whether a job's owner ("host/pid/nonce") is the process p.
func (r jobRow) ownedBy(p *proc) bool {
	return strings.Contains(r.owner, fmt.Sprintf("/%d/", p.pid()))
}

// TestFleetJobWorkerKilled kills, with SIGKILL, the worker that runs a tune book's conversion;
// the other worker on the same database and store finds at once that the owner's process is
// gone (they share a host), takes the job up before its lease has lapsed, and finishes it with
// one artifact per tune, none made twice.
func TestFleetJobWorkerKilled(t *testing.T) { testJobTakeover(t, false) }

// TestFleetJobWorkerFrozen stops the worker that runs a tune book's conversion with SIGSTOP: its
// process lives on, so only its lapsed lease (--job-lease 2s) lets the other worker take the
// job up. The frozen worker is then let go on while the other runs the job: it must find the job
// no longer its own and stop, and the book still ends with one artifact per tune.
func TestFleetJobWorkerFrozen(t *testing.T) { testJobTakeover(t, true) }

func testJobTakeover(t *testing.T, freeze bool) {
	f := newFleet(t)
	t.Parallel()
	g := serveGatewayWith(t, gateway.Config{CAS: f.cas})
	name, lease := "killed", []string{}
	if freeze {
		name, lease = "frozen", []string{"--job-lease", "2s"}
	}
	first := f.worker(name+"-w1", []string{g.g.WorkerEndpoint()}, lease...)
	second := f.worker(name+"-w2", []string{g.g.WorkerEndpoint()}, lease...)
	s := connectHTTP(t, g.base+"/mcp")
	c := newCaller(t, s)
	// The first worker alone: the job is its.
	first.start()
	waitForWorkerNamed(t, s, first.name)

	const tunes = 800
	book := toString(obj(c.call("artifact_create", map[string]any{"content": tuneBook(tunes), "mime_type": "text/vnd.abc"}), "artifact")["id"])
	job := toString(c.call("abc_book_to_midi", map[string]any{"artifact_id": book})["job_id"])
	started := time.Now()
	var progressed float64
	for {
		j := obj(c.call("job_status", map[string]any{"id": job}), "job")
		if j["status"] != "JOB_STATUS_PENDING" && j["status"] != "JOB_STATUS_RUNNING" {
			t.Fatalf("the job ended before it could be interrupted (%v); give it a larger book", j)
		}
		if progressed, _ = j["progress"].(float64); progressed > 0 {
			break
		}
		if time.Since(started) > 30*time.Second {
			t.Fatalf("the job made no progress in 30 s: %v", j)
		}
		time.Sleep(10 * time.Millisecond)
	}
	// The fault comes as soon as the job is under way, before the second worker starts: a
	// quick machine could otherwise finish the whole book while the second one comes up.
	firstPID := first.pid() // a killed process's pid is forgotten
	if freeze {
		first.signal(syscall.SIGSTOP)
	} else {
		first.kill()
	}
	faulted := time.Now()
	// Frozen or gone, the first worker renews its lease no more: the record is as the fault left it.
	before := readJob(t, f.db, job)
	if !strings.Contains(before.owner, fmt.Sprintf("/%d/", firstPID)) || before.attempts != 1 || before.status != 2 {
		t.Fatalf("the job's record at the fault = %+v, want it running, owned by %s (pid %d), in its first run", before, first.name, firstPID)
	}
	second.start()
	waitForWorkerNamed(t, s, second.name)

	// The second worker takes the job up: a second run, its own.
	var after jobRow
	for {
		after = readJob(t, f.db, job)
		if after.attempts > 1 && after.startedAt != 0 {
			break
		}
		if time.Since(faulted) > 30*time.Second {
			t.Fatalf("nobody took the job up in 30 s: %+v", after)
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("the job was taken up %v after the fault, which came after some %v tunes of %d",
		time.Since(faulted).Round(time.Millisecond), progressed, tunes)
	if !after.ownedBy(second) || after.attempts != 2 {
		t.Errorf("the job's record after the takeover = %+v, want it owned by %s (pid %d), in its second run", after, second.name, second.pid())
	}
	if freeze {
		// Only the lapsed lease could let the second worker in: the owner's process is alive.
		if after.startedAt < before.leaseUntil {
			t.Errorf("the job was taken up at %d, before the lease it had then (%d) lapsed", after.startedAt, before.leaseUntil)
		}
		first.signal(syscall.SIGCONT)
	} else if after.startedAt >= before.leaseUntil {
		// A lapsed lease could have let it in as well: the dead owner was not noticed.
		t.Errorf("the job was taken up at %d, after its lease (%d) lapsed: the dead owner on this host went unnoticed", after.startedAt, before.leaseUntil)
	}

	done := list(c.call("job_await", map[string]any{"ids": []any{job}, "timeout_ms": 50000})["jobs"])
	if len(done) != 1 || obj(done[0])["status"] != "JOB_STATUS_SUCCEEDED" {
		t.Fatalf("job_await = %v, want the job finished", done)
	}
	if freeze {
		// The first worker, let go on, has given the job up without writing to it, and serves
		// again.
		waitForWorkerNamed(t, s, first.name)
	}
	if end := readJob(t, f.db, job); !end.ownedBy(second) || end.attempts != 2 {
		t.Errorf("the finished job's record = %+v, want it owned by %s in its second run", end, second.name)
	}
	result := list(obj(c.call("job_status", map[string]any{"id": job}), "job", "result", "abc_book_to_midi")["tunes"])
	made := map[string]bool{}
	for _, tune := range result {
		made[toString(obj(tune)["artifact_id"])] = true
	}
	var children []any
	cursor := ""
	for range 10 {
		args := map[string]any{"parent_id": book, "limit": 500}
		if cursor != "" {
			args["cursor"] = cursor
		}
		page := c.call("artifact_list", args)
		children = append(children, list(page["artifacts"])...)
		if cursor = toString(page["next_cursor"]); cursor == "" {
			break
		}
	}
	if len(result) != tunes || len(made) != tunes || len(children) != tunes {
		t.Errorf("the book of %d tunes gave %d tunes naming %d distinct artifacts, and its artifact has %d children; want %d of each",
			tunes, len(result), len(made), len(children), tunes)
	}
	for _, ch := range children {
		if id := toString(obj(ch)["id"]); !made[id] {
			t.Errorf("the book's artifact has a child %s that the job's result does not name: made twice?", id)
		}
	}
}

// A callRecord is one tool call of a load: when it was sent and ended, and how it failed.
type callRecord struct {
	tool       string
	start, end time.Time
	failed     failure
	detail     string
}

// TestFleetDatabaseRestart cuts the workers off their PostgreSQL for two seconds (through a
// proxy of the test's own: open connections dropped, new ones refused), under continuous
// artifact_create and artifact_get load. Calls during the outage fail as unavailable and
// retryable, calls after it succeed, and every acknowledged artifact is there afterwards.
func TestFleetDatabaseRestart(t *testing.T) {
	f := newFleet(t)
	t.Parallel()
	proxy, dsn := pgtest.NewProxy(t, f.db)
	f.db = dsn
	g := serveGatewayWith(t, gateway.Config{CAS: f.cas})
	s := connectHTTP(t, g.base+"/mcp")
	var workers []*proc
	for i := range 2 {
		w := f.worker(fmt.Sprintf("pg-w%d", i), []string{g.g.WorkerEndpoint()})
		w.start()
		waitForWorkerNamed(t, s, w.name)
		workers = append(workers, w)
	}

	type acked struct{ id, hash string }
	var (
		mu      sync.Mutex
		records []callRecord
		acks    []acked
	)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range 3 {
		ws := connectHTTP(t, g.base+"/mcp")
		wg.Go(func() {
			call := func(tool string, args map[string]any) map[string]any {
				ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
				defer cancel()
				r := callRecord{tool: tool, start: time.Now()}
				res, err := ws.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
				r.end, r.failed = time.Now(), classify(res, err)
				if r.failed != "" {
					r.detail = fmt.Sprint(err, resultText(res))
				}
				mu.Lock()
				records = append(records, r)
				mu.Unlock()
				if r.failed != "" {
					return nil
				}
				return obj(res.StructuredContent)
			}
			for i := 0; i < 100000; i++ { // bounded; stop ends it long before
				select {
				case <-stop:
					return
				default:
				}
				content := fmt.Sprintf("client %d call %d %s", w, i, randomText(64))
				if got := call("artifact_create", map[string]any{"content": content, "tags": []any{"pg"}}); got != nil {
					mu.Lock()
					acks = append(acks, acked{toString(obj(got, "artifact")["id"]), sha256Hex([]byte(content))})
					mu.Unlock()
				}
				mu.Lock()
				var a acked
				if len(acks) > 0 {
					a = acks[mrand.IntN(len(acks))]
				}
				mu.Unlock()
				if a.id != "" {
					if got := call("artifact_get", map[string]any{"id": a.id}); got != nil && obj(got, "artifact")["hash"] != a.hash {
						t.Errorf("artifact_get %s = %v, want hash %s", a.id, got, a.hash)
					}
				}
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	time.Sleep(time.Second)
	cut := time.Now()
	proxy.Cut()
	time.Sleep(2 * time.Second)
	restored := time.Now()
	proxy.Restore(t)
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()

	var before, during, after, failedDuring int
	failures := map[failure]int{}
	for _, r := range records {
		if r.failed != "" {
			failures[r.failed]++
			if r.failed != failUnavailable {
				t.Errorf("%s failed other than as unavailable and retryable (%s): %s", r.tool, r.failed, r.detail)
			}
		}
		switch {
		case r.end.Before(cut):
			before++
			if r.failed != "" {
				t.Errorf("%s failed before the outage: %s", r.tool, r.detail)
			}
		case r.start.After(cut) && r.end.Before(restored):
			during++
			if r.failed != "" {
				failedDuring++
			}
		case r.start.After(restored):
			after++
			if r.failed != "" {
				t.Errorf("%s sent %v after the database came back failed: %s", r.tool, r.start.Sub(restored).Round(time.Millisecond), r.detail)
			}
		}
	}
	t.Logf("%d calls before the outage, %d during (%d failed), %d after; failures: %v", before, during, failedDuring, after, failures)
	if failedDuring == 0 || before == 0 || after == 0 {
		t.Errorf("want calls before, during and after the outage, and failures during it")
	}

	// Nothing acknowledged was lost.
	c := newCaller(t, s)
	for _, a := range acks {
		if got := obj(c.call("artifact_get", map[string]any{"id": a.id}), "artifact"); got["hash"] != a.hash {
			t.Errorf("artifact %s = %v after the outage, want hash %s", a.id, got, a.hash)
		}
	}
	for _, w := range workers {
		if !w.running() {
			t.Errorf("%s exited during the outage", w.name)
		}
	}
}

// TestFleetObjectStoreStopped runs a gateway and a worker on an S3 server of the test's own and
// stops it: the content routes answer 503 with a body that says what to do, the tools that
// need the store answer a retryable unavailable error, and the ones that need only the database
// go on. Started again over the same directory, everything works, and nothing acknowledged is
// lost.
func TestFleetObjectStoreStopped(t *testing.T) {
	requireFleet(t) // with the AWS keys set, StartS3Server uses them rather than set its own
	t.Parallel()
	srv := storetest.StartS3Server(t)
	f := &fleet{t: t, db: pgtest.Database(t), cas: srv.URL("t-" + strings.ToLower(rand.Text()[:12])),
		env: []string{"AWS_ENDPOINT_URL=" + srv.Endpoint}}
	gw := f.holler("s3-gateway")
	gw.startServing()
	w := f.worker("s3-w0", []string{gw.workers})
	w.start()
	s := connectHTTP(t, gw.base+"/mcp")
	waitForWorkerNamed(t, s, w.name)
	c := newCaller(t, s)

	const before = "X:1\nT:Before the outage\nK:G\nGABc dedB|\n"
	art := obj(c.call("artifact_create", map[string]any{"content": before, "mime_type": "text/vnd.abc"}), "artifact")
	id, artHash := toString(art["id"]), toString(art["hash"])
	blob := randomText(300 << 10)
	blobHash := toString(c.call("cas_store", map[string]any{"content": blob})["hash"])

	srv.Stop()

	for _, path := range []string{"/cas/" + blobHash, "/artifacts/" + id + "/content"} {
		status, body, header := httpGet(t, gw.base+path)
		if status != http.StatusServiceUnavailable || !strings.Contains(body, "again") || header.Get("Retry-After") == "" {
			t.Errorf("GET %s with the object store stopped = %d (Retry-After %q) %q; want 503, when to try again, and what to do",
				path, status, header.Get("Retry-After"), body)
		}
	}
	req, _ := http.NewRequest(http.MethodPut, gw.base+"/cas", strings.NewReader("uploaded during the outage"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(body), "again") {
		t.Errorf("PUT /cas with the object store stopped = %d %q; want 503 saying to try again", resp.StatusCode, body)
	}
	for _, call := range []struct {
		tool string
		args map[string]any
	}{
		{"cas_store", map[string]any{"content": "stored during the outage"}},
		{"artifact_create", map[string]any{"content": "created during the outage"}},
		{"cas_get", map[string]any{"hash": blobHash}},
	} {
		res, err := s.CallTool(c.ctx, &mcp.CallToolParams{Name: call.tool, Arguments: call.args})
		if why := classify(res, err); why != failUnavailable || !strings.Contains(resultText(res), "content store") {
			t.Errorf("%s with the object store stopped = %v %s; want a retryable unavailable error naming the content store", call.tool, err, resultText(res))
		}
	}
	// What lives in the database alone is still served.
	if got := obj(c.call("artifact_get", map[string]any{"id": id}), "artifact"); got["hash"] != artHash {
		t.Errorf("artifact_get with the object store stopped = %v", got)
	}

	srv.Start()

	status, got, _ := httpGet(t, gw.base+"/artifacts/"+id+"/content")
	if status != http.StatusOK || got != before {
		t.Errorf("GET /artifacts/%s/content after the restart = %d %q, want the content", id, status, got)
	}
	status, got, _ = httpGet(t, gw.base+"/cas/"+blobHash)
	if status != http.StatusOK || got != blob {
		t.Errorf("GET /cas/%s after the restart = %d and %d bytes, want the %d stored", blobHash, status, len(got), len(blob))
	}
	after := obj(c.call("artifact_create", map[string]any{"content": "created after the outage"}), "artifact")
	if after["hash"] != sha256Hex([]byte("created after the outage")) {
		t.Errorf("artifact_create after the restart = %v", after)
	}
	if got := c.call("cas_get", map[string]any{"hash": blobHash}); got["content"] != blob[:min(len(blob), 1<<20)] {
		t.Errorf("cas_get after the restart did not give the stored content back")
	}
	req, _ = http.NewRequest(http.MethodPut, gw.base+"/cas", strings.NewReader("uploaded after the outage"))
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Errorf("PUT /cas after the restart = %d, want 201", resp.StatusCode)
	}
	objects := checkStoreWhole(t, f.cas, srv.Endpoint)
	for _, h := range []string{artHash, blobHash, toString(after["hash"]), sha256Hex([]byte("uploaded after the outage"))} {
		if hh, _ := cas.ParseHash(h); !objects[hh] {
			t.Errorf("object %s is not in the store", h)
		}
	}
}
