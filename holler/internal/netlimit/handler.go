package netlimit

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

// HandlerOptions are what Handler enforces on each request.
type HandlerOptions struct {
	// WriteTimeout bounds how long one write (or flush) to a client may block: a client that
	// stops reading is cut off after it, however long its response or event stream runs.
	// Zero or less turns it off.
	WriteTimeout time.Duration
	// MinUploadRate is the slowest a request body may arrive, in bytes a second, measured over
	// windows of UploadWindow of the time spent waiting for it. Zero or less turns it off.
	MinUploadRate int64
	// UploadWindow is the window of MinUploadRate (default 10 s); UploadGrace is added to the
	// first window of each body, for a client that starts slowly (default 10 s).
	UploadWindow, UploadGrace time.Duration
	// OnSlowBody, when not nil, is called when a body is cut off for arriving too slowly.
	OnSlowBody func(r *http.Request)
}

// Defaults of HandlerOptions.
const (
	DefaultUploadWindow = 10 * time.Second
	DefaultUploadGrace  = 10 * time.Second
)

// ErrTooSlow is the error a request body's Read returns once the body arrives slower than the
// minimum upload rate.
var ErrTooSlow = errors.New("netlimit: the request body arrived slower than the minimum upload rate")

// Handler wraps next so that every write to a client must make progress within
// opt.WriteTimeout (each write gets its own deadline, so event streams live as long as their
// client reads them) and every request body must arrive at opt.MinUploadRate or faster. A body
// that arrives too slowly fails the handler's read with ErrTooSlow, and the client is answered
// 408 Request Timeout with a sentence saying why, whatever the handler writes after that.
func Handler(next http.Handler, opt HandlerOptions) http.Handler {
	if opt.UploadWindow <= 0 {
		opt.UploadWindow = DefaultUploadWindow
	}
	if opt.UploadGrace < 0 {
		opt.UploadGrace = 0
	} else if opt.UploadGrace == 0 {
		opt.UploadGrace = DefaultUploadGrace
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The writer, its controller and the body's guard are one allocation.
		gw := &guardedWriter{w: w, rcv: *http.NewResponseController(w), d: opt.WriteTimeout}
		gw.rc = &gw.rcv
		if opt.MinUploadRate > 0 && r.Body != nil && r.Body != http.NoBody {
			need := max(opt.MinUploadRate*int64(opt.UploadWindow)/int64(time.Second), 1)
			gw.body = rateBody{ReadCloser: r.Body, rc: gw.rc, need: need, window: opt.UploadWindow, allowance: opt.UploadWindow + opt.UploadGrace, slow: &gw.slow}
			r.Body = &gw.body
			gw.rate, gw.window = opt.MinUploadRate, opt.UploadWindow
		}
		next.ServeHTTP(gw, r)
		if gw.slow.Load() {
			if opt.OnSlowBody != nil {
				opt.OnSlowBody(r)
			}
			if !gw.wroteHeader {
				gw.writeTooSlow()
			}
		}
		// The server flushes what is buffered after the handler returns: that write too gets
		// its deadline.
		gw.deadline()
	})
}

// A guardedWriter gives each write a deadline and answers a body that was too slow.
type guardedWriter struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	rcv http.ResponseController
	d   time.Duration
	// armed is the write deadline this writer last set, zero before the first.
	armed time.Time
	// body guards the request's body when there is a minimum upload rate.
	body        rateBody
	slow        atomic.Bool
	rate        int64
	window      time.Duration
	wroteHeader bool
	// swallow drops what the handler writes after the 408.
	swallow bool
}

// deadline gives the next write until the write timeout from now to make progress. A
// deadline this writer set less than rearmAfter ago is kept rather than moved: moving it
// re-arms a runtime timer, which a response's header, body and final flush, microseconds
// apart, would otherwise do three times. So a write gets at least the timeout less
// rearmAfter, and never more than the timeout.
func (g *guardedWriter) deadline() {
	if g.d <= 0 {
		return
	}
	now := time.Now()
	if !g.armed.IsZero() && g.armed.Sub(now) > g.d-rearmAfter(g.d) {
		return
	}
	g.armed = now.Add(g.d)
	_ = g.rc.SetWriteDeadline(g.armed)
}

// rearmAfter is how old a write deadline may be before a write moves it: an eighth of the
// timeout d, and at most a second.
func rearmAfter(d time.Duration) time.Duration { return min(d/8, time.Second) }

func (g *guardedWriter) Header() http.Header { return g.w.Header() }

func (g *guardedWriter) WriteHeader(code int) {
	if g.wroteHeader || code < 200 && code != http.StatusSwitchingProtocols {
		if !g.wroteHeader && !g.swallow {
			g.w.WriteHeader(code)
		}
		return
	}
	if g.slow.Load() {
		g.writeTooSlow()
		return
	}
	g.wroteHeader = true
	g.deadline()
	g.w.WriteHeader(code)
}

func (g *guardedWriter) Write(b []byte) (int, error) {
	if !g.wroteHeader {
		g.WriteHeader(http.StatusOK)
	}
	if g.swallow {
		return len(b), nil
	}
	g.deadline()
	return g.w.Write(b)
}

// FlushError flushes, with a deadline; http.ResponseController.Flush finds it.
func (g *guardedWriter) FlushError() error {
	if g.swallow {
		return nil
	}
	g.deadline()
	return g.rc.Flush()
}

// ReadFrom copies in parts, each with its own write deadline, so that a large body (a stored
// object) is bounded per part rather than as a whole, and still goes by sendfile where the
// connection can.
func (g *guardedWriter) ReadFrom(src io.Reader) (int64, error) {
	if !g.wroteHeader {
		g.WriteHeader(http.StatusOK)
	}
	if g.swallow {
		return io.Copy(io.Discard, src)
	}
	rf, ok := g.w.(io.ReaderFrom)
	if !ok {
		return io.Copy(writerOnly{g}, src)
	}
	const part = 1 << 20
	// One level of io.LimitedReader (io.CopyN's) is unwrapped, so that the connection still
	// sees the file beneath and can send it by sendfile.
	inner, remain := src, int64(-1)
	if lr, ok := src.(*io.LimitedReader); ok {
		inner, remain = lr.R, lr.N
		defer func() { lr.N = remain }()
	}
	var total int64
	for remain != 0 {
		size := int64(part)
		if remain > 0 {
			size = min(size, remain)
		}
		g.deadline()
		n, err := rf.ReadFrom(&io.LimitedReader{R: inner, N: size})
		total += n
		if remain > 0 {
			remain -= n
		}
		if err != nil || n < size {
			return total, err
		}
	}
	return total, nil
}

// Unwrap lets http.ResponseController reach the server's writer.
func (g *guardedWriter) Unwrap() http.ResponseWriter { return g.w }

type writerOnly struct{ io.Writer }

// writeTooSlow answers 408 in place of whatever the handler meant to say.
func (g *guardedWriter) writeTooSlow() {
	if g.wroteHeader {
		return
	}
	g.wroteHeader, g.swallow = true, true
	h := g.w.Header()
	for k := range h {
		delete(h, k)
	}
	msg := fmt.Sprintf("the request body arrived slower than this server's minimum of %d bytes a second (measured over %s); "+
		"send the body as fast as the connection allows, or ask the operator to lower --min-upload-rate.\n", g.rate, g.window)
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(msg)))
	h.Set("Connection", "close")
	g.deadline()
	g.w.WriteHeader(http.StatusRequestTimeout)
	_, _ = io.WriteString(g.w, msg)
}

// A rateBody fails once fewer than need bytes arrive in window of the time spent waiting for
// them (the first window longer by the grace). Only time spent inside Read counts, so a
// handler that pauses between reads (to write what it read somewhere slow) does not count
// against the client: what arrived meanwhile waits in the kernel and is read at once.
type rateBody struct {
	io.ReadCloser
	rc     *http.ResponseController
	need   int64
	window time.Duration
	slow   *atomic.Bool

	// allowance is the waiting time left in this window, got the bytes it brought.
	allowance time.Duration
	got       int64
	off       bool
}

func (b *rateBody) Read(p []byte) (int, error) {
	if b.slow.Load() {
		return 0, ErrTooSlow
	}
	if b.off {
		return b.ReadCloser.Read(p)
	}
	start := time.Now()
	if err := b.rc.SetReadDeadline(start.Add(b.allowance)); err != nil {
		// The connection takes no deadlines (not a TCP connection): nothing to enforce.
		b.off = true
		return b.ReadCloser.Read(p)
	}
	n, err := b.ReadCloser.Read(p)
	b.allowance -= time.Since(start)
	b.got += int64(n)
	if b.got >= b.need {
		b.got, b.allowance = 0, b.window
	}
	switch {
	case err == nil:
	case errors.Is(err, os.ErrDeadlineExceeded) || isTimeout(err):
		b.slow.Store(true)
		return n, ErrTooSlow
	default:
		// The body is over (io.EOF) or broken: a deadline left behind would cut the server's
		// own reads of the connection later.
		_ = b.rc.SetReadDeadline(time.Time{})
		b.off = true
	}
	return n, err
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
