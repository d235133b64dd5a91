package mcp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"strconv"
	"sync"
)

// ServeStdio serves one MCP session over newline-delimited JSON-RPC: it reads messages from
// in, one per line, and writes responses and notifications to out, one per line. Nothing else
// is ever written to out; logs go to the Config's Logger.
//
// Requests run concurrently, so that a long tool call can be cancelled or a ping answered
// while it runs; initialize and notifications are handled in order as they come. At the end
// of in, ServeStdio waits for the requests in flight and returns nil. When ctx ends it
// cancels them and returns ctx's error; after Close it returns ErrServerClosed. A read or
// write error ends the session and is returned. A read from in that is under way when
// ServeStdio returns is left to finish on its own; closing in ends it.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	if s.isClosed() {
		return ErrServerClosed
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(s.base, func() { cancel(ErrServerClosed) })
	defer stop()

	sess := newSession("")
	w := &lineWriter{w: out, onError: func(err error) { cancel(err) }, inputEnded: make(chan struct{})}
	// Notifications that belong to no request (list changes, log messages) go out as lines too.
	sess.out = w
	defer s.sessions.attach(sess)()
	lines := make(chan stdioLine)
	go readLines(ctx, in, s.cfg.MaxBodyBytes, lines)

	var wg sync.WaitGroup
	for {
		select {
		case <-ctx.Done():
			sess.end()
			wg.Wait()
			return context.Cause(ctx)
		case l, ok := <-lines:
			if !ok {
				// The client closed its end: let what it asked for finish, then stop. A listen
				// stream finishes only on the client's word, which can no longer come.
				close(w.inputEnded)
				wg.Wait()
				sess.end()
				if err := w.err(); err != nil {
					return err
				}
				return nil
			}
			if l.err != nil {
				sess.end()
				wg.Wait()
				return l.err
			}
			s.serveLine(ctx, sess, w, &wg, l)
		}
	}
}

// serveLine handles one line read from stdin.
func (s *Server) serveLine(ctx context.Context, sess *session, w *lineWriter, wg *sync.WaitGroup, l stdioLine) {
	if l.tooLong {
		w.send(s.fail(nullID, codeInvalidRequest, "the message is larger than this server's limit of "+strconv.FormatInt(s.cfg.MaxBodyBytes, 10)+" bytes", &guidance{
			Hint: "Send less at once: store large content in parts, or reference content that is already stored.",
		}))
		return
	}
	msg, bad := decodeMessage(l.data)
	if bad != nil {
		w.send(s.envelopeFailure(bad, looksModern(l.data)))
		return
	}
	if s.serveLineModern(ctx, sess, w, wg, msg) {
		return
	}
	if !msg.isRequest() || msg.Method == methodInitialize {
		// In order: a request right after initialize must find the session initialized, and a
		// cancellation must reach the request it names.
		if resp := s.handle(ctx, sess, msg, w, nil); resp != nil {
			w.send(resp)
		}
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		resp := s.handle(ctx, sess, msg, w, nil)
		// MCP asks that a cancelled request gets no response.
		if resp != nil && !resp.abandoned {
			w.send(resp)
		}
	}()
}

// A lineWriter writes JSON-RPC messages, one per line, from any goroutine.
type lineWriter struct {
	w       io.Writer
	onError func(error)
	// inputEnded is closed when the connection's input ends (nil when it never does).
	inputEnded chan struct{}

	mu     sync.Mutex
	failed error
}

var (
	_ notifier       = (*lineWriter)(nil)
	_ requestCarrier = (*lineWriter)(nil)
)

// notify writes a notification.
func (lw *lineWriter) notify(n *notification) { lw.write(encode(n)) }

// carriesRequests reports that a request of the server reaches the client over stdio.
func (lw *lineWriter) carriesRequests() bool { return true }

// send writes a response.
func (lw *lineWriter) send(r *response) { lw.write(encode(r)) }

// write writes b and a newline in one call, so lines of different goroutines never mix. After
// the first error it writes nothing more.
func (lw *lineWriter) write(b []byte) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	if lw.failed != nil {
		return
	}
	line := make([]byte, 0, len(b)+1)
	line = append(append(line, b...), '\n')
	if _, err := lw.w.Write(line); err != nil {
		lw.failed = err
		if lw.onError != nil {
			lw.onError(err)
		}
	}
}

// err returns the first write error.
func (lw *lineWriter) err() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.failed
}

// A stdioLine is one line read from stdin, or the error that ended reading.
type stdioLine struct {
	data    []byte
	tooLong bool
	err     error
}

// readLines reads lines from in and sends them to lines until in ends or ctx is done, then
// closes lines. Blank lines are skipped; a line longer than limit is reported as too long,
// without its content.
func readLines(ctx context.Context, in io.Reader, limit int64, lines chan<- stdioLine) {
	defer close(lines)
	br := bufio.NewReaderSize(in, 64<<10)
	send := func(l stdioLine) bool {
		select {
		case lines <- l:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		data, tooLong, err := readLine(br, limit)
		if (len(bytes.TrimSpace(data)) > 0 || tooLong) && !send(stdioLine{data: data, tooLong: tooLong}) {
			return
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				send(stdioLine{err: err})
			}
			return
		}
	}
}

// readLine reads one line without its line ending. A line longer than limit bytes is
// consumed and dropped, and tooLong is set.
func readLine(br *bufio.Reader, limit int64) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			line = append(line, chunk...)
			if int64(len(bytes.TrimRight(line, "\r\n"))) > limit {
				line, tooLong = nil, true
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), tooLong, err
	}
}
