// Package lines frames MCP's stdio transport, where every message is one line: Read reads
// lines from the client, bounded in length, and a Writer writes whole lines from any number of
// goroutines without mixing them. What a line says (JSON-RPC) is the caller's.
package lines

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
)

// A Writer writes lines to an io.Writer from any goroutine. After the first error it writes
// nothing more.
type Writer struct {
	w       io.Writer
	onError func(error)

	mu     sync.Mutex
	failed error
}

// NewWriter returns a Writer of lines to w that calls onError, if not nil, with the first
// error of a write.
func NewWriter(w io.Writer, onError func(error)) *Writer {
	return &Writer{w: w, onError: onError}
}

// WriteLine writes b and a newline in one call, so lines of different goroutines never
// mix. After the first error it writes nothing more.
func (lw *Writer) WriteLine(b []byte) {
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

// Err returns the first write error, or nil.
func (lw *Writer) Err() error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.failed
}

// A Line is one line read, without its line ending, or the error that ended reading.
type Line struct {
	Data []byte
	// TooLong marks a line longer than the limit; its Data is left out.
	TooLong bool
	Err     error
}

// Read reads lines from in and sends them to lines until in ends or ctx is done, then
// closes lines. Blank lines are skipped; a line longer than limit bytes is reported as too
// long, without its content; an error of in other than io.EOF is sent as the last Line.
func Read(ctx context.Context, in io.Reader, limit int64, lines chan<- Line) {
	defer close(lines)
	br := bufio.NewReaderSize(in, 64<<10)
	send := func(l Line) bool {
		select {
		case lines <- l:
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		data, tooLong, err := readLine(br, limit)
		if (len(bytes.TrimSpace(data)) > 0 || tooLong) && !send(Line{Data: data, TooLong: tooLong}) {
			return
		}
		if err != nil {
			if !errors.Is(err, io.EOF) {
				send(Line{Err: err})
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
