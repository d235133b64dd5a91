package shellservice

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/membudget"
	"github.com/hootenanny/hoot/hootenanny/internal/sandbox"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/proto"
)

// newHandler returns a handler with the shell on and a sandbox, over fresh stores.
func newHandler(t *testing.T, cfg Config) (*Handler, cas.Store, *artifacts.Store) {
	t.Helper()
	store, err := cas.OpenDir(filepath.Join(t.TempDir(), "cas"), nil)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := servicetest.Database(t)
	arts := artifacts.NewStore(db)
	if cfg.Enabled && cfg.Sandbox == nil && cfg.Unavailable == nil {
		sb, err := sandbox.New(context.Background(), sandbox.Config{})
		if err != nil {
			t.Fatalf("%v (the shell tests need bubblewrap: apt-get install bubblewrap)", err)
		}
		cfg.Sandbox = sb
	}
	cfg.CAS, cfg.Artifacts, cfg.Worker = store, arts, "test-worker"
	return New(cfg), store, arts
}

func TestShellExecRunsAndReportsLinesAsProgress(t *testing.T) {
	t.Parallel()
	h, _, _ := newHandler(t, Config{Enabled: true})
	var mu sync.Mutex
	var progress []string
	ctx := hooteproto.WithProgress(context.Background(), func(p *hootv1.Progress) {
		mu.Lock()
		progress = append(progress, p.GetMessage())
		mu.Unlock()
	})
	res, err := h.ShellExec(ctx, &hootv1.ShellExecRequest{Command: "echo one; echo two >&2; exit 4", WorkingDir: "w", TimeoutSeconds: proto.Uint32(10)})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetStopped() != hootv1.ShellStop_SHELL_STOP_EXITED || res.GetExitCode() != 4 {
		t.Fatalf("result %v, want exited with status 4", res)
	}
	if res.GetStdout().GetHead() != "one\n" || res.GetStderr().GetHead() != "two\n" || res.GetStdout().GetArtifactId() != "" {
		t.Fatalf("result %v, want one on stdout and two on stderr, inline", res)
	}
	l := res.GetLimits()
	if l.GetTimeoutSeconds() != 10 || l.GetMaxOutputBytes() != uint32(DefaultLimits.MaxOutput) || l.GetMemoryMib() != 1024 || l.GetMaxProcesses() != 64 || l.GetNetwork() {
		t.Fatalf("limits %v, want the asked time limit and the defaults", l)
	}
	if !strings.HasPrefix(res.GetSandbox(), "bubblewrap") {
		t.Fatalf("sandbox %q", res.GetSandbox())
	}
	mu.Lock()
	defer mu.Unlock()
	got := strings.Join(progress, "|")
	if got != "stdout: one|stderr: two" && got != "stderr: two|stdout: one" {
		t.Fatalf("progress %q, want each line once", got)
	}
}

func TestLongOutputIsStoredWithHeadAndTail(t *testing.T) {
	t.Parallel()
	h, store, arts := newHandler(t, Config{Enabled: true})
	res, err := h.ShellExecJob(context.Background(), &hootv1.ShellExecJobRequest{Command: "seq 1 20000"})
	if err != nil {
		t.Fatal(err)
	}
	out := res.GetStdout()
	var want bytes.Buffer
	for i := 1; i <= 20000; i++ {
		want.WriteString(strconv.Itoa(i) + "\n")
	}
	if out.GetBytes() != uint64(want.Len()) || out.GetCutBytes() != uint64(want.Len()-2*headTail) {
		t.Fatalf("bytes %d, cut %d; want %d and %d", out.GetBytes(), out.GetCutBytes(), want.Len(), want.Len()-2*headTail)
	}
	if !strings.HasPrefix(out.GetHead(), "1\n2\n3\n") || !strings.HasSuffix(out.GetTail(), "19999\n20000\n") || len(out.GetHead()) != headTail {
		t.Fatalf("head %q... tail ...%q", out.GetHead()[:10], out.GetTail()[len(out.GetTail())-13:])
	}
	a, err := arts.Get(context.Background(), out.GetArtifactId())
	if err != nil {
		t.Fatalf("the artifact %q: %v", out.GetArtifactId(), err)
	}
	h2, err := cas.ParseHash(a.Hash)
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := store.Open(context.Background(), h2)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	whole, err := io.ReadAll(f)
	if err != nil || !bytes.Equal(whole, want.Bytes()) {
		t.Fatalf("the artifact holds %d bytes (%v), want the whole output, %d bytes", len(whole), err, want.Len())
	}
}

func TestAttackShellOnAWorkerWithoutIt(t *testing.T) {
	t.Parallel()
	h, _, _ := newHandler(t, Config{})
	_, err := h.ShellExec(context.Background(), &hootv1.ShellExecRequest{Command: "true"})
	servicetest.WantError(t, err, hooteproto.CodePermissionDenied, "", "--shell")

	h, _, _ = newHandler(t, Config{Enabled: true, Unavailable: errors.New("bubblewrap is not installed")})
	_, err = h.ShellExecJob(context.Background(), &hootv1.ShellExecJobRequest{Command: "true"})
	servicetest.WantError(t, err, hooteproto.CodeUnavailable, "", "bubblewrap is not installed")
}

func TestLimitsAreBoundedByTheOperatorsMaxima(t *testing.T) {
	t.Parallel()
	h, _, _ := newHandler(t, Config{Enabled: true, Maxima: sandbox.Limits{Timeout: 30_000_000_000, Processes: 8}})
	cases := []struct {
		req   *hootv1.ShellExecRequest
		field string
	}{
		{&hootv1.ShellExecRequest{Command: "true", TimeoutSeconds: proto.Uint32(31)}, "timeout_seconds"},
		{&hootv1.ShellExecRequest{Command: "true", MaxProcesses: proto.Uint32(9)}, "max_processes"},
		{&hootv1.ShellExecRequest{Command: "true", MemoryMib: proto.Uint32(8 << 10)}, "memory_mib"},
		{&hootv1.ShellExecRequest{Command: "true", MaxOutputBytes: proto.Uint32(1 << 30)}, "max_output_bytes"},
		{&hootv1.ShellExecRequest{Command: "true", WorkingDir: "../etc"}, "working_dir"},
		{&hootv1.ShellExecRequest{Command: "true", Env: []string{"A B=1"}}, "env"},
	}
	for _, tc := range cases {
		_, err := h.ShellExec(context.Background(), tc.req)
		var e *hooteproto.Error
		if !errors.As(err, &e) || e.Code() != hooteproto.CodeInvalidArgument || e.Field() != tc.field {
			t.Errorf("%v: error %v, want invalid %s", tc.req, err, tc.field)
		}
	}
	// Without a time limit of its own, a call gets the lower of the default and the maximum.
	res, err := h.ShellExec(context.Background(), &hootv1.ShellExecRequest{Command: "true"})
	if err != nil || res.GetLimits().GetTimeoutSeconds() != 30 || res.GetLimits().GetMaxProcesses() != 8 {
		t.Fatalf("result %v, %v; want the limits capped at the maxima", res, err)
	}
}

func TestOutputLimitEndsTheCommand(t *testing.T) {
	t.Parallel()
	h, _, _ := newHandler(t, Config{Enabled: true})
	res, err := h.ShellExec(context.Background(), &hootv1.ShellExecRequest{Command: "yes", MaxOutputBytes: proto.Uint32(100_000)})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetStopped() != hootv1.ShellStop_SHELL_STOP_OUTPUT_LIMIT || res.GetStdout().GetBytes() != 100_000 || res.GetStdout().GetArtifactId() == "" {
		t.Fatalf("result stopped %v with %d bytes, artifact %q; want the output limit, 100000 bytes kept and stored",
			res.GetStopped(), res.GetStdout().GetBytes(), res.GetStdout().GetArtifactId())
	}
}

// TestAttackCancelLeavesNothingRunning cancels a call whose command started a process in a
// session of its own: the call ends as cancelled, and no process of the command is left.
func TestAttackCancelLeavesNothingRunning(t *testing.T) {
	t.Parallel()
	h, _, _ := newHandler(t, Config{Enabled: true})
	mark := "shellservice-cancel-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 10)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ctx = hooteproto.WithProgress(ctx, func(p *hootv1.Progress) {
		if p.GetMessage() == "stdout: up" {
			cancel()
		}
	})
	// The grandchild waits on a pipe nobody writes, announcing itself from that same process.
	line := "setsid sh -c 'mkfifo /tmp/f; echo up; read x < /tmp/f # " + mark + "' & wait"
	_, err := h.ShellExec(ctx, &hootv1.ShellExecRequest{Command: line})
	if e := hooteproto.AsError(err); e == nil || e.Code() != hooteproto.CodeCanceled {
		t.Fatalf("the cancelled call: %v, want it cancelled", err)
	}
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline")); err == nil && bytes.Contains(b, []byte(mark)) {
			t.Fatalf("process %s of the cancelled command is still there: %q", e.Name(), b)
		}
	}
}

func TestOutputIsReservedFromTheMemoryBudget(t *testing.T) {
	t.Parallel()
	budget := membudget.New(64 << 20)
	h, _, _ := newHandler(t, Config{Enabled: true, Budget: budget})
	_, err := h.ShellExec(context.Background(), &hootv1.ShellExecRequest{Command: "true", MaxOutputBytes: proto.Uint32(40 << 20)})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "", "budget")
	res, err := h.ShellExec(context.Background(), &hootv1.ShellExecRequest{Command: "echo fits", MaxOutputBytes: proto.Uint32(16 << 20)})
	if err != nil || res.GetStdout().GetHead() != "fits\n" || budget.InUse() != 0 {
		t.Fatalf("a call that fits: %v, %v, %d bytes still reserved", res, err, budget.InUse())
	}
}

// TestCallDeadlineStopsTheCommandFirst gives the call a deadline shorter than the command's
// time limit: the command is stopped before it, and the result, with the output so far, comes
// back instead of the call's timeout.
func TestCallDeadlineStopsTheCommandFirst(t *testing.T) {
	t.Parallel()
	h, _, _ := newHandler(t, Config{Enabled: true})
	ctx, cancel := context.WithTimeout(context.Background(), deadlineMargin+3*time.Second)
	defer cancel()
	res, err := h.ShellExec(ctx, &hootv1.ShellExecRequest{Command: "echo started; mkfifo /tmp/f; read x < /tmp/f", TimeoutSeconds: proto.Uint32(600)})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetStopped() != hootv1.ShellStop_SHELL_STOP_TIME_LIMIT || res.GetStdout().GetHead() != "started\n" || res.GetLimits().GetTimeoutSeconds() > 3 {
		t.Fatalf("result %v, want stopped at a time limit cut to the call's deadline, with the output so far", res)
	}
}
