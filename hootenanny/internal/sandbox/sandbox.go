// Package sandbox runs a command line confined by bubblewrap (bwrap): its own user, PID, IPC,
// UTS and network namespaces, a read-only view of the system's directories, a fresh tmpfs as
// its only writable scratch directory, a clean environment, resource limits set by prlimit
// inside the sandbox, a time limit and an output limit. When the command ends, runs too long,
// writes too much or is cancelled, the sandbox's first process is killed, and with it every
// process of its PID namespace, however they were started.
//
// A [Sandbox] is checked when it is made: [New] runs a probe command in it and fails, saying
// why, when the sandbox cannot be set up on this machine. Nothing here ever runs a command
// outside the sandbox.
package sandbox

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Defaults of Config.
const (
	// DefaultUser is the host user id (nobody) the sandbox runs as when the worker is root, so
	// that the process limit holds (the kernel does not count processes of root) and the
	// files of the host are seen as another user sees them.
	DefaultUser = 65534
	// DefaultScratchBytes bounds the scratch directory and /tmp, each a tmpfs.
	DefaultScratchBytes = 256 << 20
)

// DefaultReadOnly are the host directories a command sees, read-only. Symbolic links among
// them (/bin on a merged /usr) are made again as links.
var DefaultReadOnly = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/etc"}

// Where the command finds things inside the sandbox.
const (
	// ScratchDir is the command's writable directory, a fresh tmpfs for each run.
	ScratchDir = "/scratch"
	// prlimitPath is the program that sets the limits before it runs the shell.
	prlimitPath = "/usr/bin/prlimit"
	shellPath   = "/bin/sh"
)

// Bounds of a Command.
const (
	MaxCommandLength = 8192
	MaxDirLength     = 256
	MaxEnv           = 32
	MaxEnvNameLength = 128
	MaxEnvValue      = 4096
)

// Config says how sandboxes are made.
type Config struct {
	// Bwrap is the bubblewrap program (default: "bwrap" on PATH).
	Bwrap string
	// ReadOnly are the host directories the command sees read-only (default DefaultReadOnly);
	// those that do not exist are left out.
	ReadOnly []string
	// Hidden are host paths the command must never read, such as the worker's data directory,
	// its keys and token files: where one lies inside a ReadOnly directory, an empty directory
	// or an empty file is put over it.
	Hidden []string
	// Network lets the command reach the host's network. Off, the command has a network
	// namespace of its own with nothing but a loopback device.
	Network bool
	// User is the host user id the sandbox runs as when the worker runs as root (default
	// DefaultUser). A worker of another user runs the sandbox as itself.
	User int
	// ScratchBytes bounds the scratch directory and /tmp (default DefaultScratchBytes).
	ScratchBytes int64
}

// Limits bound one run.
type Limits struct {
	// Timeout is how long the command may run.
	Timeout time.Duration
	// MaxOutput is how many bytes of stdout and stderr together the command may write.
	MaxOutput int64
	// Memory is the address space, in bytes, each process may have.
	Memory int64
	// Processes is how many processes the command may have at once.
	Processes int
}

// A Command is one command line to run.
type Command struct {
	// Line is run by /bin/sh -c.
	Line string
	// Dir is the working directory relative to ScratchDir; "" is ScratchDir itself.
	Dir string
	// Env are NAME=value pairs added to the sandbox's own environment.
	Env []string
	Limits
}

// A Stream is where a line was written.
type Stream int

// The streams.
const (
	Stdout Stream = 1
	Stderr Stream = 2
)

// String names s as a person does: "stdout" or "stderr".
func (s Stream) String() string {
	if s == Stderr {
		return "stderr"
	}
	return "stdout"
}

// A Stop says why a command ended.
type Stop int

// The ways a command ends.
const (
	StopExited Stop = iota + 1
	StopSignaled
	StopTimeLimit
	StopOutputLimit
	StopCancelled
)

// An Outcome is how a run ended and what it wrote.
type Outcome struct {
	Stop Stop
	// ExitCode is the exit status when Stop is StopExited, else -1.
	ExitCode int
	// Signal names the signal that ended the command when Stop is StopSignaled.
	Signal string
	// Duration is how long the command ran.
	Duration time.Duration
	// Stdout and Stderr are what the command wrote, at most MaxOutput bytes in all.
	Stdout, Stderr []byte
}

// A Sandbox runs commands confined.
type Sandbox struct {
	cfg     Config
	version string
	// view are the bwrap arguments that build the command's view of the system.
	view []string
}

// ErrUnavailable wraps every reason why New cannot set a sandbox up.
var ErrUnavailable = errors.New("the sandbox cannot be set up")

// New checks cfg, finds bubblewrap and runs a probe command in a sandbox: the Sandbox is
// returned only when the probe ran confined. The error says what is missing.
func New(ctx context.Context, cfg Config) (*Sandbox, error) {
	if cfg.Bwrap == "" {
		cfg.Bwrap = "bwrap"
	}
	if cfg.ReadOnly == nil {
		cfg.ReadOnly = DefaultReadOnly
	}
	if cfg.User == 0 {
		cfg.User = DefaultUser
	}
	if cfg.ScratchBytes <= 0 {
		cfg.ScratchBytes = DefaultScratchBytes
	}
	bwrap, err := exec.LookPath(cfg.Bwrap)
	if err != nil {
		return nil, fmt.Errorf("%w: bubblewrap (%s) is not installed: install it (Debian: apt-get install bubblewrap): %v", ErrUnavailable, cfg.Bwrap, err)
	}
	cfg.Bwrap = bwrap
	view, err := viewArgs(cfg.ReadOnly, cfg.Hidden)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnavailable, err)
	}
	s := &Sandbox{cfg: cfg, view: view}
	out, err := exec.CommandContext(ctx, bwrap, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("%w: %s --version: %v", ErrUnavailable, bwrap, err)
	}
	s.version = strings.TrimSpace(string(out))
	if _, err := os.Stat(prlimitPath); err != nil {
		return nil, fmt.Errorf("%w: %s (util-linux), which sets the limits, is missing: %v", ErrUnavailable, prlimitPath, err)
	}
	probe, err := s.Run(ctx, Command{Line: "exit 0", Limits: Limits{Timeout: 30 * time.Second, MaxOutput: 64 << 10, Memory: 256 << 20, Processes: 8}}, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: the probe command did not run: %v", ErrUnavailable, err)
	}
	if probe.Stop != StopExited || probe.ExitCode != 0 {
		return nil, fmt.Errorf("%w: the probe command failed in bubblewrap (%s); does this kernel allow user namespaces to the user %d? %s",
			ErrUnavailable, probe.describe(), s.hostUser(), strings.TrimSpace(string(probe.Stderr)))
	}
	return s, nil
}

// Version names the sandbox, such as "bubblewrap 0.8.0".
func (s *Sandbox) Version() string { return s.version }

// Network reports whether commands can reach the network.
func (s *Sandbox) Network() bool { return s.cfg.Network }

// hostUser is the host user the sandbox runs as.
func (s *Sandbox) hostUser() int {
	if os.Geteuid() == 0 {
		return s.cfg.User
	}
	return os.Geteuid()
}

// viewArgs returns the bwrap arguments that show the directories of readOnly and hide the
// paths of hidden inside them.
func viewArgs(readOnly, hidden []string) ([]string, error) {
	var args []string
	for _, d := range readOnly {
		if !filepath.IsAbs(d) {
			return nil, fmt.Errorf("read-only path %q is not absolute", d)
		}
		fi, err := os.Lstat(d)
		switch {
		case errors.Is(err, os.ErrNotExist):
			continue
		case err != nil:
			return nil, err
		case fi.Mode()&os.ModeSymlink != 0:
			target, err := os.Readlink(d)
			if err != nil {
				return nil, err
			}
			args = append(args, "--symlink", target, d)
		default:
			args = append(args, "--ro-bind", d, d)
		}
	}
	for _, h := range hidden {
		if h == "" {
			continue
		}
		abs, err := filepath.Abs(h)
		if err != nil {
			return nil, err
		}
		// Symbolic links are resolved so that a hidden path reached through one is hidden
		// where the bind shows it.
		for _, p := range uniq(abs, resolved(abs)) {
			if !within(p, readOnly) {
				continue
			}
			fi, err := os.Stat(p)
			switch {
			case errors.Is(err, os.ErrNotExist):
				continue
			case err != nil:
				return nil, err
			case fi.IsDir():
				args = append(args, "--perms", "0000", "--tmpfs", p, "--remount-ro", p)
			default:
				args = append(args, "--ro-bind", "/dev/null", p)
			}
		}
	}
	return args, nil
}

func resolved(p string) string {
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		return p
	}
	return r
}

func uniq(a, b string) []string {
	if a == b {
		return []string{a}
	}
	return []string{a, b}
}

// within reports whether p is one of dirs or inside one.
func within(p string, dirs []string) bool {
	for _, d := range dirs {
		for _, d := range uniq(d, resolved(d)) {
			if p == d || strings.HasPrefix(p, strings.TrimSuffix(d, "/")+"/") {
				return true
			}
		}
	}
	return false
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// A CommandError is a command that cannot run as given: which field, and what is wrong.
type CommandError struct {
	Field   string
	Problem string
}

func (e *CommandError) Error() string { return e.Field + ": " + e.Problem }

// Check reports what is wrong with c, if anything.
func (c Command) Check() error {
	switch {
	case strings.TrimSpace(c.Line) == "":
		return &CommandError{"command", "the command line is empty"}
	case len(c.Line) > MaxCommandLength:
		return &CommandError{"command", fmt.Sprintf("the command line has %d bytes, more than %d", len(c.Line), MaxCommandLength)}
	case strings.ContainsRune(c.Line, 0):
		return &CommandError{"command", "the command line holds a NUL byte"}
	}
	if _, err := scratchPath(c.Dir); err != nil {
		return err
	}
	if len(c.Env) > MaxEnv {
		return &CommandError{"env", fmt.Sprintf("%d variables, more than %d", len(c.Env), MaxEnv)}
	}
	for _, kv := range c.Env {
		name, value, ok := strings.Cut(kv, "=")
		switch {
		case !ok:
			return &CommandError{"env", fmt.Sprintf("%q is not NAME=value", short(kv))}
		case len(name) > MaxEnvNameLength || !envName.MatchString(name):
			return &CommandError{"env", fmt.Sprintf("%q is not a variable name: letters, digits and _, not starting with a digit, at most %d", short(name), MaxEnvNameLength)}
		case len(value) > MaxEnvValue:
			return &CommandError{"env", fmt.Sprintf("the value of %s has %d bytes, more than %d", name, len(value), MaxEnvValue)}
		case strings.ContainsRune(value, 0):
			return &CommandError{"env", fmt.Sprintf("the value of %s holds a NUL byte", name)}
		}
	}
	switch {
	case c.Timeout <= 0:
		return &CommandError{"timeout_seconds", "the time limit must be positive"}
	case c.MaxOutput <= 0:
		return &CommandError{"max_output_bytes", "the output limit must be positive"}
	case c.Memory < 16<<20:
		return &CommandError{"memory_mib", "the memory limit must be at least 16 MiB"}
	case c.Processes <= 0:
		return &CommandError{"max_processes", "the process limit must be positive"}
	}
	return nil
}

func short(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// scratchPath returns the sandbox path of the working directory dir.
func scratchPath(dir string) (string, error) {
	if dir == "" || dir == "." {
		return ScratchDir, nil
	}
	clean := path.Clean(dir)
	switch {
	case len(dir) > MaxDirLength:
		return "", &CommandError{"working_dir", fmt.Sprintf("%d bytes, more than %d", len(dir), MaxDirLength)}
	case path.IsAbs(dir):
		return "", &CommandError{"working_dir", fmt.Sprintf("%q is absolute; give a directory relative to the scratch directory, such as build", short(dir))}
	case clean == ".." || strings.HasPrefix(clean, "../"):
		return "", &CommandError{"working_dir", fmt.Sprintf("%q leads out of the scratch directory; give a directory inside it, such as build", short(dir))}
	case strings.ContainsAny(dir, "\x00\n"):
		return "", &CommandError{"working_dir", "the directory holds a NUL byte or a line break"}
	}
	return ScratchDir + "/" + clean, nil
}

// baseEnv is the environment every command starts with.
var baseEnv = []string{
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"HOME=" + ScratchDir,
	"TMPDIR=/tmp",
	"LANG=C.UTF-8",
}

// args returns bwrap's arguments for c; infoFD is the descriptor bwrap writes its child's pid to.
func (s *Sandbox) args(c Command, dir string, infoFD int) []string {
	a := []string{
		"--unshare-user", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try",
		"--disable-userns", "--die-with-parent", "--new-session",
		"--hostname", "sandbox",
		"--info-fd", strconv.Itoa(infoFD),
	}
	if !s.cfg.Network {
		a = append(a, "--unshare-net")
	}
	size := strconv.FormatInt(s.cfg.ScratchBytes, 10)
	a = append(a,
		"--proc", "/proc", "--dev", "/dev",
		"--size", size, "--tmpfs", "/tmp",
		"--size", size, "--tmpfs", ScratchDir,
	)
	if dir != ScratchDir {
		a = append(a, "--dir", dir)
	}
	// The view comes after /tmp, so that a directory shown from under the host's /tmp is not
	// covered by the sandbox's; the root, which bwrap makes as a tmpfs, is then made read-only.
	a = append(a, s.view...)
	a = append(a, "--remount-ro", "/", "--chdir", dir, "--clearenv")
	for _, kv := range append(append([]string{}, baseEnv...), c.Env...) {
		name, value, _ := strings.Cut(kv, "=")
		a = append(a, "--setenv", name, value)
	}
	// prlimit sets the limits on itself inside the sandbox's user namespace and then runs the
	// shell: the process limit counts the processes of the sandbox's user there, nothing else.
	fsize := max(c.MaxOutput, s.cfg.ScratchBytes)
	a = append(a, "--", prlimitPath,
		"--nproc="+strconv.Itoa(c.Processes),
		"--as="+strconv.FormatInt(c.Memory, 10),
		"--fsize="+strconv.FormatInt(fsize, 10),
		"--core=0",
		"--nofile=1024",
		"--", shellPath, "-c", c.Line)
	return a
}

// Run runs c in a new sandbox and returns how it ended. onLine, when not nil, is called with
// each line the command writes, in the order the lines arrive, while it runs; a line longer
// than MaxLine is passed in pieces. The error is for a run that could not start or be
// watched, and for a ctx that ended (the command is then stopped, and the Outcome says so).
func (s *Sandbox) Run(ctx context.Context, c Command, onLine func(Stream, string)) (Outcome, error) {
	if err := c.Check(); err != nil {
		return Outcome{}, err
	}
	dir, _ := scratchPath(c.Dir)
	infoR, infoW, err := os.Pipe()
	if err != nil {
		return Outcome{}, err
	}
	defer infoR.Close()
	cmd := exec.Command(s.cfg.Bwrap, s.args(c, dir, 3)...)
	cmd.ExtraFiles = []*os.File{infoW}
	cmd.Env = []string{} // bwrap's own environment: nothing of the worker's
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() == 0 {
		u := uint32(s.cfg.User)
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: u, Gid: u, Groups: []uint32{}}
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		infoW.Close()
		return Outcome{}, err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		infoW.Close()
		return Outcome{}, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		infoW.Close()
		return Outcome{}, fmt.Errorf("starting bubblewrap: %w", err)
	}
	infoW.Close()
	run := &running{cmd: cmd, infoR: infoR, limit: c.MaxOutput, onLine: onLine, overflow: make(chan struct{})}
	go run.readInfo()

	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); run.read(Stdout, stdout) }()
	go func() { defer wg.Done(); run.read(Stderr, stderr) }()
	readDone := make(chan struct{})
	go func() { wg.Wait(); close(readDone) }()

	timer := time.NewTimer(c.Timeout)
	defer timer.Stop()
	var stopped Stop
	select {
	case <-readDone:
	case <-run.overflow:
		stopped = StopOutputLimit
	case <-timer.C:
		stopped = StopTimeLimit
	case <-ctx.Done():
		stopped = StopCancelled
	}
	var waitErr error
	waited := false
	if stopped != 0 {
		run.kill()
		// The pipes end once every process that held them is gone. Should a process of the
		// sandbox have escaped the kill (bwrap killed before it could report its child, in the
		// instant before the child is bound to die with it), the wait is bounded: Wait closes
		// the pipes once bwrap is gone, which ends the readers.
		select {
		case <-readDone:
		case <-time.After(killGrace):
			waitErr, waited = cmd.Wait(), true
			<-readDone
		}
	}
	if !waited {
		waitErr = cmd.Wait()
	}
	run.flush()
	o := Outcome{Stop: stopped, ExitCode: -1, Duration: time.Since(start)}
	o.Stdout, o.Stderr = run.out[Stdout].Bytes(), run.out[Stderr].Bytes()
	if stopped == 0 {
		var exitErr *exec.ExitError
		switch {
		case waitErr == nil:
			o.Stop, o.ExitCode = StopExited, 0
		case errors.As(waitErr, &exitErr):
			o.Stop, o.ExitCode = StopExited, exitErr.ExitCode()
			// bwrap passes on a signal that ended the command as the status 128+n, as shells
			// do; it is read back the same way.
			if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
				o.Stop, o.ExitCode, o.Signal = StopSignaled, -1, signalName(ws.Signal())
			} else if n := o.ExitCode - 128; n > 0 && n < 65 {
				o.Stop, o.ExitCode, o.Signal = StopSignaled, -1, signalName(syscall.Signal(n))
			}
		default:
			return o, fmt.Errorf("waiting for bubblewrap: %w", waitErr)
		}
	}
	if stopped == StopCancelled {
		return o, ctx.Err()
	}
	return o, nil
}

// describe says in a few words how o ended.
func (o Outcome) describe() string {
	switch o.Stop {
	case StopExited:
		return "exit status " + strconv.Itoa(o.ExitCode)
	case StopSignaled:
		return "killed by " + o.Signal
	case StopTimeLimit:
		return "stopped at its time limit"
	case StopOutputLimit:
		return "stopped at its output limit"
	default:
		return "cancelled"
	}
}

func signalName(s syscall.Signal) string {
	names := map[syscall.Signal]string{
		syscall.SIGKILL: "SIGKILL", syscall.SIGTERM: "SIGTERM", syscall.SIGSEGV: "SIGSEGV", syscall.SIGABRT: "SIGABRT",
		syscall.SIGXFSZ: "SIGXFSZ", syscall.SIGXCPU: "SIGXCPU", syscall.SIGPIPE: "SIGPIPE", syscall.SIGINT: "SIGINT",
		syscall.SIGHUP: "SIGHUP", syscall.SIGBUS: "SIGBUS", syscall.SIGILL: "SIGILL", syscall.SIGFPE: "SIGFPE",
	}
	if n, ok := names[s]; ok {
		return n
	}
	return "signal " + strconv.Itoa(int(s))
}

// killGrace bounds the wait for a killed sandbox's output pipes to close.
const killGrace = 10 * time.Second

// MaxLine bounds a line passed to onLine; a longer one is passed in pieces.
const MaxLine = 4096

// running is one command while it runs.
type running struct {
	cmd   *exec.Cmd
	infoR *os.File
	limit int64

	mu      sync.Mutex
	onLine  func(Stream, string)
	out     [3]bytes.Buffer
	partial [3][]byte
	total   int64
	// overflow is closed when the output passes the limit.
	overflow     chan struct{}
	overflowOnce sync.Once

	// child is the pid of the sandbox's first process, once bwrap reported it.
	childMu sync.Mutex
	child   int
	killed  bool
}

// readInfo reads the pid of the sandbox's first process from bwrap's info pipe.
func (r *running) readInfo() {
	// bwrap may keep the pipe open while the command runs: the first object is read as soon
	// as it is complete.
	var info struct {
		ChildPid int `json:"child-pid"`
	}
	if json.NewDecoder(io.LimitReader(r.infoR, 64<<10)).Decode(&info) == nil && info.ChildPid > 0 {
		r.childMu.Lock()
		r.child = info.ChildPid
		if r.killed {
			_ = syscall.Kill(r.child, syscall.SIGKILL)
		}
		r.childMu.Unlock()
	}
}

// kill stops the sandbox: its first process first, so that the kernel ends every process of
// its PID namespace and bwrap waits for them, then bwrap's process group.
func (r *running) kill() {
	r.childMu.Lock()
	r.killed = true
	if r.child > 0 {
		_ = syscall.Kill(r.child, syscall.SIGKILL)
	}
	r.childMu.Unlock()
	_ = syscall.Kill(-r.cmd.Process.Pid, syscall.SIGKILL)
}

// read copies one stream into its buffer, passing on its lines, until it ends.
func (r *running) read(s Stream, f io.Reader) {
	buf := make([]byte, 32<<10)
	for {
		n, err := f.Read(buf)
		if n > 0 {
			r.take(s, buf[:n])
		}
		if err != nil {
			return
		}
	}
}

// take keeps what fits under the limit and passes on the lines; past the limit it closes
// overflow and drops the rest.
func (r *running) take(s Stream, b []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if room := r.limit - r.total; int64(len(b)) > room {
		b = b[:max(room, 0)]
		r.overflowOnce.Do(func() { close(r.overflow) })
	}
	r.total += int64(len(b))
	r.out[s].Write(b)
	if r.onLine == nil {
		return
	}
	p := append(r.partial[s], b...)
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			break
		}
		r.onLine(s, string(p[:i]))
		p = p[i+1:]
	}
	for len(p) >= MaxLine {
		r.onLine(s, string(p[:MaxLine]))
		p = p[MaxLine:]
	}
	r.partial[s] = append([]byte(nil), p...)
}

// flush passes on the last line of each stream when it had no line break.
func (r *running) flush() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.onLine == nil {
		return
	}
	for _, s := range []Stream{Stdout, Stderr} {
		if len(r.partial[s]) > 0 {
			r.onLine(s, string(r.partial[s]))
			r.partial[s] = nil
		}
	}
}
