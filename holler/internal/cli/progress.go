package cli

import (
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/schollz/progressbar/v3"
)

// A progressSink hands the gateway's progress notifications to the bar of the call in flight.
type progressSink struct {
	mu  sync.Mutex
	bar *bar
}

func (s *progressSink) report(p *mcp.ProgressNotificationParams) {
	s.mu.Lock()
	b := s.bar
	s.mu.Unlock()
	if b != nil {
		b.set(p.Progress, p.Total, p.Message)
	}
}

// start shows progress of one call or job on w: a bar on a terminal, plain lines otherwise.
func (s *progressSink) start(w io.Writer, what string) *bar {
	b := &bar{w: w, what: what, terminal: isTerminal(w), sink: s}
	s.mu.Lock()
	s.bar = b
	s.mu.Unlock()
	return b
}

// A bar draws one call's progress.
type bar struct {
	mu       sync.Mutex
	w        io.Writer
	what     string
	terminal bool
	sink     *progressSink
	pb       *progressbar.ProgressBar
	total    float64
	lastLine time.Time
	lastMsg  string
	done     bool
}

// scale is how many steps a bar has when the total is not a whole number of them.
const scale = 1000

func (b *bar) set(done, total float64, msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done || math.IsNaN(done) || math.IsNaN(total) {
		return
	}
	if !b.terminal {
		// Plain lines for logs and pipes: the first report, then at most one a second when
		// the message changes, and one every few seconds when it does not.
		since := time.Since(b.lastLine)
		if !b.lastLine.IsZero() && (since < time.Second || msg == b.lastMsg && since < 5*time.Second) {
			return
		}
		b.lastMsg, b.lastLine = msg, time.Now()
		if total > 0 {
			fmt.Fprintf(b.w, "%s: %.0f%% %s\n", b.what, 100*done/total, msg)
		} else {
			fmt.Fprintf(b.w, "%s: %g %s\n", b.what, done, msg)
		}
		return
	}
	if b.pb == nil || total != b.total {
		if b.pb != nil {
			_ = b.pb.Finish()
		}
		max := int64(-1) // a spinner when the total is not known
		if total > 0 {
			max = scale
		}
		b.total = total
		b.pb = progressbar.NewOptions64(max,
			progressbar.OptionSetWriter(b.w),
			progressbar.OptionSetDescription(b.what),
			progressbar.OptionShowElapsedTimeOnFinish(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionClearOnFinish(),
		)
	}
	if msg != "" {
		b.pb.Describe(b.what + ": " + msg)
	}
	if total > 0 {
		_ = b.pb.Set64(int64(scale * math.Min(1, math.Max(0, done/total))))
	} else {
		_ = b.pb.Add64(1)
	}
}

// finish removes the bar.
func (b *bar) finish() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return
	}
	b.done = true
	if b.pb != nil {
		_ = b.pb.Clear()
	}
	b.sink.mu.Lock()
	if b.sink.bar == b {
		b.sink.bar = nil
	}
	b.sink.mu.Unlock()
}
