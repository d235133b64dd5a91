package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// limits are roomy limits for commands that should not run into them.
var limits = Limits{Timeout: time.Minute, MaxOutput: 1 << 20, Memory: 512 << 20, Processes: 64}

// newSandbox makes a sandbox of cfg or fails the test, saying why the machine cannot run one.
func newSandbox(t *testing.T, cfg Config) *Sandbox {
	t.Helper()
	s, err := New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("%v (the sandbox tests need bubblewrap: apt-get install bubblewrap)", err)
	}
	return s
}

// sharedDir returns a new directory that any user may read, as a system directory is, so that
// what a sandbox cannot read there is hidden by the sandbox, not by permissions.
func sharedDir(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	for _, p := range []string{filepath.Dir(d), d} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

// marker returns a string no other process has in its command line.
func marker(*testing.T) string {
	return fmt.Sprintf("mark%d%d", os.Getpid(), time.Now().UnixNano())
}

// processesWith returns the pids of the host's processes whose command line holds m.
func processesWith(t *testing.T, m string) []int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(b, []byte(m)) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// gate makes a directory with a FIFO, seen read-only by the sandbox at the same path: a
// command that reads the FIFO waits until the test writes to it, or forever.
func gate(t *testing.T) (dir, fifo string) {
	t.Helper()
	dir = sharedDir(t)
	fifo = filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(fifo, 0o666); err != nil {
		t.Fatal(err)
	}
	return dir, fifo
}

func TestRunReportsExitStatusAndOutput(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, Config{})
	c := Command{Line: `echo out; echo err >&2; pwd; echo "$HOME $GREETING"; exit 3`, Dir: "a/b", Env: []string{"GREETING=hi"}, Limits: limits}
	o, err := s.Run(context.Background(), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Stop != StopExited || o.ExitCode != 3 {
		t.Fatalf("outcome %+v, want exited with status 3", o)
	}
	if want := "out\n/scratch/a/b\n/scratch hi\n"; string(o.Stdout) != want {
		t.Errorf("stdout %q, want %q", o.Stdout, want)
	}
	if string(o.Stderr) != "err\n" {
		t.Errorf("stderr %q, want %q", o.Stderr, "err\n")
	}
	if !strings.HasPrefix(s.Version(), "bubblewrap ") {
		t.Errorf("version %q, want bubblewrap's", s.Version())
	}
}

func TestRunStreamsLinesWhileTheCommandRuns(t *testing.T) {
	t.Parallel()
	dir, fifo := gate(t)
	s := newSandbox(t, Config{ReadOnly: append([]string{dir}, DefaultReadOnly...)})
	type line struct {
		s    Stream
		text string
	}
	lines := make(chan line, 16)
	released := make(chan error, 1)
	go func() {
		// Only once the first lines have come is the command let go on: they were streamed
		// while it still ran.
		for range 2 {
			<-lines
		}
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			_, err = f.WriteString("go on\n")
			f.Close()
		}
		released <- err
	}()
	var mu sync.Mutex
	var all []line
	c := Command{Line: `echo one; echo two >&2; read x < ` + fifo + `; echo "$x"; echo three`, Limits: limits}
	o, err := s.Run(context.Background(), c, func(s Stream, text string) {
		mu.Lock()
		all = append(all, line{s, text})
		mu.Unlock()
		select {
		case lines <- line{s, text}:
		default:
		}
	})
	// Should the command have ended without reading the FIFO, the test's writer is let go.
	if r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
		defer r.Close()
	}
	for range 2 {
		select {
		case lines <- line{}:
		default:
		}
	}
	if err != nil {
		t.Fatal(err)
	}
	if err := <-released; err != nil {
		t.Fatal(err)
	}
	if o.Stop != StopExited || o.ExitCode != 0 {
		t.Fatalf("outcome %+v", o)
	}
	mu.Lock()
	defer mu.Unlock()
	got := fmt.Sprint(all)
	if len(all) != 4 || all[2] != (line{Stdout, "go on"}) || all[3] != (line{Stdout, "three"}) {
		t.Fatalf("lines %s, want one and two, then go on and three", got)
	}
	if first := []line{all[0], all[1]}; !(first[0] == line{Stdout, "one"} && first[1] == line{Stderr, "two"}) && !(first[1] == line{Stdout, "one"} && first[0] == line{Stderr, "two"}) {
		t.Fatalf("lines %s, want one on stdout and two on stderr first", got)
	}
}

// runUntilUp runs a command whose two grandchildren (one in a session of its own) announce
// themselves and then wait forever, and calls stop, if any, once both are up and seen on the
// host. It returns the outcome and the marker in the command lines of the grandchildren.
func runUntilUp(t *testing.T, ctx context.Context, timeout time.Duration, stop func()) (Outcome, string, error) {
	t.Helper()
	dir, fifo := gate(t)
	s := newSandbox(t, Config{ReadOnly: append([]string{dir}, DefaultReadOnly...)})
	m := marker(t)
	line := fmt.Sprintf(`sh -c 'echo up; read x < %[1]s # %[2]s' & setsid sh -c 'echo up; read x < %[1]s # %[2]s' & wait`, fifo, m)
	c := Command{Line: line, Limits: limits}
	c.Timeout = timeout
	up := 0
	var seen []int
	o, err := s.Run(ctx, c, func(_ Stream, text string) {
		if text == "up" {
			if up++; up == 2 {
				seen = processesWith(t, m)
				if stop != nil {
					stop()
				}
			}
		}
	})
	if up != 2 || len(seen) < 2 {
		t.Fatalf("the grandchildren came up %d times and %d of their processes were seen, want 2 and at least 2; outcome %+v, %v", up, len(seen), o, err)
	}
	return o, m, err
}

func TestAttackGrandchildrenOutliveCancel(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o, m, err := runUntilUp(t, ctx, time.Minute, cancel)
	if !errors.Is(err, context.Canceled) || o.Stop != StopCancelled {
		t.Fatalf("outcome %+v, %v; want cancelled", o, err)
	}
	if left := processesWith(t, m); len(left) > 0 {
		t.Fatalf("processes %v of the cancelled command are still there", left)
	}
}

func TestAttackGrandchildrenOutliveTimeLimit(t *testing.T) {
	t.Parallel()
	o, m, err := runUntilUp(t, context.Background(), 5*time.Second, nil)
	if err != nil || o.Stop != StopTimeLimit {
		t.Fatalf("outcome %+v, %v; want stopped at the time limit", o, err)
	}
	if left := processesWith(t, m); len(left) > 0 {
		t.Fatalf("processes %v of the command stopped at its time limit are still there", left)
	}
}

func TestAttackWriteOutsideScratch(t *testing.T) {
	t.Parallel()
	shown := sharedDir(t)
	if err := os.Chmod(shown, 0o777); err != nil {
		t.Fatal(err)
	}
	s := newSandbox(t, Config{ReadOnly: append([]string{shown}, DefaultReadOnly...)})
	var line strings.Builder
	for _, p := range []string{"/etc/hoot-sandbox-test", "/usr/hoot-sandbox-test", "/hoot-sandbox-test", shown + "/written", "/proc/sys/kernel/hostname"} {
		fmt.Fprintf(&line, "if echo x > %s; then echo wrote %s; fi 2>/dev/null; ", p, p)
	}
	line.WriteString("echo x > /scratch/f && echo x > /tmp/f && echo scratch written")
	o, err := s.Run(context.Background(), Command{Line: line.String(), Limits: limits}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if out := string(o.Stdout); strings.Contains(out, "wrote") || !strings.Contains(out, "scratch written") {
		t.Fatalf("stdout %q, stderr %q: want nothing written outside the scratch directory and /tmp, and those written", out, o.Stderr)
	}
	if _, err := os.Stat(filepath.Join(shown, "written")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file was written in a directory shown read-only: %v", err)
	}
}

func TestAttackReadWorkerDataTokensAndEnvironment(t *testing.T) {
	shown := sharedDir(t)
	data := filepath.Join(shown, "data")
	tokens := filepath.Join(shown, "tokens")
	if err := os.MkdirAll(filepath.Join(data, "cas"), 0o755); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		filepath.Join(shown, "visible"):   "visible-content",
		filepath.Join(data, "hoot.db"):    "database-content",
		filepath.Join(data, "cas", "obj"): "object-content",
		tokens:                            "root admin sha256:token-content",
	}
	for p, content := range files {
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("HOOT_SECRET_FOR_TEST", "secret-content")
	s := newSandbox(t, Config{ReadOnly: append([]string{shown}, DefaultReadOnly...), Hidden: []string{data, tokens}})
	line := fmt.Sprintf("cat %s/visible; cat %s/hoot.db %s/cas/obj %s; ls -a %s; env; ls /", shown, data, data, tokens, data)
	o, err := s.Run(context.Background(), Command{Line: line, Limits: limits}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := string(o.Stdout)
	if !strings.Contains(out, "visible-content") {
		t.Fatalf("stdout %q: the visible file next to the hidden ones was not read, so the test shows nothing", out)
	}
	for _, secret := range []string{"database-content", "object-content", "token-content", "secret-content", "hoot.db"} {
		if strings.Contains(out, secret) {
			t.Errorf("the command read %q; stdout %q", secret, out)
		}
	}
	if wd, _ := os.Getwd(); strings.Contains(out, filepath.Base(wd)+"\n") && !strings.Contains(strings.Join(DefaultReadOnly, " "), filepath.Base(wd)) {
		t.Errorf("the worker's working directory %s shows in the sandbox: %q", wd, out)
	}
}

func TestAttackNetwork(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	s := newSandbox(t, Config{})
	line := fmt.Sprintf("bash -c 'echo hi > /dev/tcp/127.0.0.1/%d' && echo connected; ls /sys/class/net 2>/dev/null; cat /proc/net/dev", port)
	o, err := s.Run(context.Background(), Command{Line: line, Limits: limits}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(o.Stdout), "connected") {
		t.Fatalf("the command reached the host's loopback: %q", o.Stdout)
	}
	if !strings.Contains(string(o.Stdout), "lo:") || strings.Count(string(o.Stdout), ":") > 3 {
		t.Fatalf("the command sees network devices other than its own loopback: %q", o.Stdout)
	}
	l.(*net.TCPListener).SetDeadline(time.Now())
	if c, err := l.Accept(); err == nil {
		c.Close()
		t.Fatal("the listener took a connection from the sandbox")
	}
}

func TestAttackForkBomb(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, Config{})
	m := marker(t)
	c := Command{Line: `bomb() { bomb | bomb & }; bomb 2>/dev/null
i=0; most=0
while [ $i -lt 300 ]; do set -- /proc/[0-9]*; [ $# -gt $most ] && most=$#; i=$((i+1)); done
echo "most $most" # ` + m, Limits: limits}
	c.Processes = 16
	o, err := s.Run(context.Background(), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	var most int
	if _, err := fmt.Sscanf(string(o.Stdout), "most %d", &most); err != nil {
		t.Fatalf("outcome %+v: %v", o, err)
	}
	// The sandbox's first process runs before the limit is set.
	if most < 4 || most > c.Processes+1 {
		t.Fatalf("at most %d processes were seen in the sandbox, want some and no more than %d", most, c.Processes+1)
	}
	if left := processesWith(t, m); len(left) > 0 {
		t.Fatalf("processes %v of the fork bomb are still there", left)
	}
}

func TestAttackEndlessOutput(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, Config{})
	c := Command{Line: "head -c 10G /dev/zero; echo done", Limits: limits}
	c.MaxOutput = 1 << 20
	o, err := s.Run(context.Background(), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	if o.Stop != StopOutputLimit || len(o.Stdout) != 1<<20 {
		t.Fatalf("stopped %v with %d bytes kept, want stopped at the output limit with %d", o.Stop, len(o.Stdout), 1<<20)
	}
}

func TestScratchAndMemoryAreBounded(t *testing.T) {
	t.Parallel()
	s := newSandbox(t, Config{ScratchBytes: 4 << 20})
	c := Command{Line: "head -c 10G /dev/zero > big; echo status $?; ls -l big; dd if=/dev/zero of=/dev/null bs=300M count=1 2>&1 >/dev/null | head -c 200; echo; echo dd done", Limits: limits}
	c.Memory = 64 << 20
	o, err := s.Run(context.Background(), c, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := string(o.Stdout)
	if !strings.Contains(out, "status 1") || !strings.Contains(out, "4194304 ") {
		t.Errorf("stdout %q: want the 10 GB file stopped at the scratch directory's 4 MiB", out)
	}
	if !strings.Contains(out, "memory exhausted") {
		t.Errorf("stdout %q: want dd's 300 MB buffer refused by the 64 MiB memory limit", out)
	}
}

func TestCommandCheck(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		c     Command
		field string
	}{
		{"empty", Command{Line: " ", Limits: limits}, "command"},
		{"long", Command{Line: strings.Repeat("x", MaxCommandLength+1), Limits: limits}, "command"},
		{"nul", Command{Line: "a\x00b", Limits: limits}, "command"},
		{"absolute dir", Command{Line: "true", Dir: "/etc", Limits: limits}, "working_dir"},
		{"dir out", Command{Line: "true", Dir: "a/../../x", Limits: limits}, "working_dir"},
		{"env form", Command{Line: "true", Env: []string{"NOVALUE"}, Limits: limits}, "env"},
		{"env name", Command{Line: "true", Env: []string{"1A=x"}, Limits: limits}, "env"},
		{"env count", Command{Line: "true", Env: make([]string, MaxEnv+1), Limits: limits}, "env"},
		{"no time", Command{Line: "true"}, "timeout_seconds"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var ce *CommandError
			if err := tc.c.Check(); !errors.As(err, &ce) || ce.Field != tc.field {
				t.Fatalf("Check() = %v, want an error about %s", err, tc.field)
			}
		})
	}
	if err := (Command{Line: "true", Dir: "a/./b", Env: []string{"A_1=x=y"}, Limits: limits}).Check(); err != nil {
		t.Fatalf("a good command: %v", err)
	}
}

func TestNewRefusesWithoutBubblewrap(t *testing.T) {
	t.Parallel()
	_, err := New(context.Background(), Config{Bwrap: "/nonexistent/bwrap"})
	if !errors.Is(err, ErrUnavailable) || !strings.Contains(err.Error(), "apt-get install bubblewrap") {
		t.Fatalf("New without bubblewrap: %v, want it refused with how to install it", err)
	}
}

func TestNetworkWhenTheOperatorAllowsIt(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			c.Close()
		}
		accepted <- err
	}()
	s := newSandbox(t, Config{Network: true})
	line := fmt.Sprintf("bash -c 'echo hi > /dev/tcp/127.0.0.1/%d' && echo connected", l.Addr().(*net.TCPAddr).Port)
	o, err := s.Run(context.Background(), Command{Line: line, Limits: limits}, nil)
	if err != nil || !strings.Contains(string(o.Stdout), "connected") || !s.Network() {
		t.Fatalf("with the network allowed: %+v, %v (stderr %q)", o, err, o.Stderr)
	}
	if err := <-accepted; err != nil {
		t.Fatal(err)
	}
}

// BenchmarkRun measures a run of a command that does nothing: the cost of setting a sandbox
// up and tearing it down.
func BenchmarkRun(b *testing.B) {
	s, err := New(context.Background(), Config{})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		o, err := s.Run(context.Background(), Command{Line: "exit 0", Limits: limits}, nil)
		if err != nil || o.ExitCode != 0 {
			b.Fatalf("%+v, %v", o, err)
		}
	}
}
