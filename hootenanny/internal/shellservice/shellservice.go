// Package shellservice serves the operator's shell tools, shell_exec and its job form
// shell_exec_job: a command line run in a sandbox (package sandbox), its lines reported as
// progress while it runs, its long output stored as artifacts.
//
// The service does not trust the gateway alone: it runs nothing unless the worker it belongs
// to was started with the shell enabled, and nothing when the sandbox could not be set up.
package shellservice

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/artifactservice"
	"github.com/hootenanny/hoot/hootenanny/internal/membudget"
	"github.com/hootenanny/hoot/hootenanny/internal/sandbox"
	"github.com/hootenanny/hoot/hooteproto"
)

// The limits a call gets when it names none, unless the operator's maxima are lower.
var DefaultLimits = sandbox.Limits{
	Timeout:   60 * time.Second,
	MaxOutput: 1 << 20,
	Memory:    1 << 30,
	Processes: 64,
}

// DefaultMaxima are the most a call may ask for unless the operator says otherwise.
var DefaultMaxima = sandbox.Limits{
	Timeout:   time.Hour,
	MaxOutput: 64 << 20,
	Memory:    4 << 30,
	Processes: 256,
}

// deadlineMargin is how long before a call's own deadline its command is stopped, for the
// result to be made and sent.
const deadlineMargin = 2 * time.Second

// Bounds of the result and the progress.
const (
	// InlineOutput is the most of a stream the result carries whole; longer output is cut to
	// its head and tail, and stored as an artifact.
	InlineOutput = 16 << 10
	// headTail is how much of the head and of the tail a cut stream keeps.
	headTail = 4 << 10
	// MaxProgressLines bounds the lines reported as progress; the result and the artifacts
	// hold the rest.
	MaxProgressLines = 1000
)

// Config is what the handler works with.
type Config struct {
	// Enabled says the worker's operator turned the shell on (hootenanny --shell). Without it
	// every call is refused, whatever the gateway allowed.
	Enabled bool
	// Sandbox runs the commands; nil when it could not be set up, and Unavailable says why.
	Sandbox     *sandbox.Sandbox
	Unavailable error
	// Maxima bound what a call may ask for (zero fields: DefaultMaxima's).
	Maxima sandbox.Limits
	// CAS and Artifacts keep long output.
	CAS       cas.Store
	Artifacts *artifacts.Store
	// Budget is the worker's memory budget, from which a call reserves room for the output it
	// may keep before the command runs (nil: no budget).
	Budget *membudget.Budget
	// Worker names the worker in errors.
	Worker string
	Logger *slog.Logger
}

// Handler implements hootv1hoot.ShellHandler.
type Handler struct {
	cfg      Config
	defaults sandbox.Limits
}

var _ hootv1hoot.ShellHandler = (*Handler)(nil)

// New returns a handler of cfg.
func New(cfg Config) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	m := &cfg.Maxima
	if m.Timeout <= 0 {
		m.Timeout = DefaultMaxima.Timeout
	}
	if m.MaxOutput <= 0 {
		m.MaxOutput = DefaultMaxima.MaxOutput
	}
	if m.Memory <= 0 {
		m.Memory = DefaultMaxima.Memory
	}
	if m.Processes <= 0 {
		m.Processes = DefaultMaxima.Processes
	}
	return &Handler{cfg: cfg, defaults: sandbox.Limits{
		Timeout:   min(DefaultLimits.Timeout, m.Timeout),
		MaxOutput: min(DefaultLimits.MaxOutput, m.MaxOutput),
		Memory:    min(DefaultLimits.Memory, m.Memory),
		Processes: min(DefaultLimits.Processes, m.Processes),
	}}
}

// A request is what both tools ask; a limit left out is nil.
type request struct {
	command, dir                       string
	env                                []string
	timeout, output, memory, processes *uint32
}

// ShellExec runs a command and waits for it.
func (h *Handler) ShellExec(ctx context.Context, req *hootv1.ShellExecRequest) (*hootv1.ShellExecResult, error) {
	return h.exec(ctx, request{req.GetCommand(), req.GetWorkingDir(), req.GetEnv(),
		req.TimeoutSeconds, req.MaxOutputBytes, req.MemoryMib, req.MaxProcesses}, "shell_exec")
}

// ShellExecJob runs a command as a job; the job runner calls it in the background.
func (h *Handler) ShellExecJob(ctx context.Context, req *hootv1.ShellExecJobRequest) (*hootv1.ShellExecResult, error) {
	return h.exec(ctx, request{req.GetCommand(), req.GetWorkingDir(), req.GetEnv(),
		req.TimeoutSeconds, req.MaxOutputBytes, req.MemoryMib, req.MaxProcesses}, "shell_exec_job")
}

func (h *Handler) exec(ctx context.Context, req request, tool string) (*hootv1.ShellExecResult, error) {
	if !h.cfg.Enabled {
		return nil, hooteproto.NewError(hooteproto.CodePermissionDenied, "the worker "+h.cfg.Worker+" does not run commands: its operator did not start it with --shell").
			WithHint("Commands run only on workers started with hootenanny --shell; ask the server's operator.")
	}
	if h.cfg.Sandbox == nil {
		why := "it was not set up"
		if h.cfg.Unavailable != nil {
			why = h.cfg.Unavailable.Error()
		}
		return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "the worker "+h.cfg.Worker+" runs commands only in a sandbox, and "+why).
			WithHint("Nothing ran. The server's operator must make the sandbox work on that worker (see its log at start); commands never run unconfined.")
	}
	c, err := h.command(req)
	if err != nil {
		return nil, err
	}
	// A call has a deadline of its own (the gateway's call timeout): the command is stopped
	// before it, so that the result, with the output so far, still reaches the caller. The
	// limits in the result say what the command ran under.
	if dl, ok := ctx.Deadline(); ok {
		if left := time.Until(dl) - deadlineMargin; left < c.Timeout {
			c.Timeout = max(left, time.Second)
		}
	}
	// The output is kept in memory up to its limit, in buffers that may grow to twice what they
	// hold.
	release, err := h.cfg.Budget.Acquire(tool, 2*c.MaxOutput, "give a smaller max_output_bytes")
	if err != nil {
		return nil, err
	}
	defer release()
	r := &reporter{ctx: ctx}
	o, err := h.cfg.Sandbox.Run(ctx, c, r.line)
	if err != nil {
		var ce *sandbox.CommandError
		switch {
		case errors.As(err, &ce):
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, ce.Problem).WithField(ce.Field)
		case ctx.Err() != nil:
			return nil, hooteproto.AsError(ctx.Err())
		}
		h.cfg.Logger.Error("shellservice: running a command", "err", err)
		return nil, hooteproto.NewError(hooteproto.CodeInternal, "the command could not be run in the sandbox; the worker's log has the details")
	}
	res := &hootv1.ShellExecResult{
		Stopped:         stopOf(o.Stop),
		ExitCode:        int32(o.ExitCode),
		Signal:          o.Signal,
		DurationSeconds: o.Duration.Seconds(),
		Limits: &hootv1.ShellLimits{
			TimeoutSeconds: uint32((c.Timeout + time.Second - 1) / time.Second),
			MaxOutputBytes: uint32(c.MaxOutput),
			MemoryMib:      uint32(c.Memory >> 20),
			MaxProcesses:   uint32(c.Processes),
			Network:        h.cfg.Sandbox.Network(),
		},
		Sandbox: h.cfg.Sandbox.Version(),
	}
	if res.Stdout, err = h.output(ctx, tool, "stdout", o.Stdout); err != nil {
		return nil, err
	}
	if res.Stderr, err = h.output(ctx, tool, "stderr", o.Stderr); err != nil {
		return nil, err
	}
	return res, nil
}

// command builds the sandbox's command of req, with the worker's defaults for the limits it
// leaves out, and refuses limits above the operator's maxima.
func (h *Handler) command(req request) (sandbox.Command, error) {
	c := sandbox.Command{Line: req.command, Dir: req.dir, Env: req.env, Limits: h.defaults}
	m := h.cfg.Maxima
	above := func(field string, asked, most int64, unit string) error {
		return hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("%s %d is above this worker's most, %d %s", field, asked, most, unit)).
			WithField(field).WithHint(fmt.Sprintf("give %s at most %d, or leave it out for %s", field, most, "the worker's default"))
	}
	if req.timeout != nil {
		c.Timeout = time.Duration(*req.timeout) * time.Second
		if c.Timeout > m.Timeout {
			return c, above("timeout_seconds", int64(*req.timeout), int64(m.Timeout/time.Second), "seconds")
		}
	}
	if req.output != nil {
		c.MaxOutput = int64(*req.output)
		if c.MaxOutput > m.MaxOutput {
			return c, above("max_output_bytes", c.MaxOutput, m.MaxOutput, "bytes")
		}
	}
	if req.memory != nil {
		c.Memory = int64(*req.memory) << 20
		if c.Memory > m.Memory {
			return c, above("memory_mib", int64(*req.memory), m.Memory>>20, "MiB")
		}
	}
	if req.processes != nil {
		c.Processes = int(*req.processes)
		if c.Processes > m.Processes {
			return c, above("max_processes", int64(c.Processes), int64(m.Processes), "processes")
		}
	}
	if err := c.Check(); err != nil {
		var ce *sandbox.CommandError
		if errors.As(err, &ce) {
			return c, hooteproto.NewError(hooteproto.CodeInvalidArgument, ce.Problem).WithField(ce.Field)
		}
		return c, err
	}
	return c, nil
}

// output returns what the result says of one stream: all of it when short, else its head and
// tail, and the artifact that holds all of it.
func (h *Handler) output(ctx context.Context, tool, stream string, b []byte) (*hootv1.ShellOutput, error) {
	out := &hootv1.ShellOutput{Bytes: uint64(len(b))}
	if len(b) <= InlineOutput {
		out.Head = strings.ToValidUTF8(string(b), "\uFFFD")
		return out, nil
	}
	out.Head = strings.ToValidUTF8(string(b[:headTail]), "\uFFFD")
	out.Tail = strings.ToValidUTF8(string(b[len(b)-headTail:]), "\uFFFD")
	out.CutBytes = uint64(len(b) - 2*headTail)
	a, err := artifactservice.StoreNew(ctx, h.cfg.CAS, h.cfg.Artifacts, h.cfg.Logger, "shellservice", "the command's "+stream, b,
		artifacts.New{MimeType: "text/plain", Tags: []string{tool, stream}, Creator: tool})
	if err != nil {
		return nil, err
	}
	out.ArtifactId = a.GetId()
	return out, nil
}

func stopOf(s sandbox.Stop) hootv1.ShellStop {
	switch s {
	case sandbox.StopExited:
		return hootv1.ShellStop_SHELL_STOP_EXITED
	case sandbox.StopSignaled:
		return hootv1.ShellStop_SHELL_STOP_SIGNALED
	case sandbox.StopTimeLimit:
		return hootv1.ShellStop_SHELL_STOP_TIME_LIMIT
	case sandbox.StopOutputLimit:
		return hootv1.ShellStop_SHELL_STOP_OUTPUT_LIMIT
	}
	return hootv1.ShellStop_SHELL_STOP_UNSPECIFIED
}

// A reporter passes a command's lines on as progress, at most MaxProgressLines of them.
type reporter struct {
	ctx context.Context
	mu  sync.Mutex
	n   int
}

func (r *reporter) line(s sandbox.Stream, text string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.n++
	switch {
	case r.n <= MaxProgressLines:
		hooteproto.ReportProgress(r.ctx, float64(r.n), 0, s.String()+": "+strings.ToValidUTF8(text, "\uFFFD"))
	case r.n == MaxProgressLines+1:
		hooteproto.ReportProgress(r.ctx, float64(r.n), 0, "further lines are not reported as progress; the result holds the output")
	}
}
