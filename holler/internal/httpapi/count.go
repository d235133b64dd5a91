package httpapi

import (
	"io"
	"net/http"
)

// count reports the bytes a content request read and wrote to c.Count, when set.
func (c *Content) count(next http.Handler) http.Handler {
	if c.Count == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body := &countingReader{r: r.Body}
		r.Body = body
		cw := &countingWriter{w: w}
		next.ServeHTTP(cw, r)
		if cw.status >= 200 && cw.status < 300 {
			c.Count(body.n, cw.n)
		}
	})
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.ReadCloser
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

func (c *countingReader) Close() error { return c.r.Close() }

// A countingWriter counts the bytes of a response's body and keeps its status. It passes
// ReadFrom on to the writer beneath, so that http.ServeContent of a file still reaches the
// connection's sendfile: a wrapper without ReadFrom (chi's WrapResponseWriter over a writer
// that is not also a Flusher and a Hijacker, such as the connection limits') makes io.Copy
// read the file into a buffer and write it again, which costs more than the whole rest of a
// GET of a large object. Unwrap lets http.ResponseController reach the writers beneath.
type countingWriter struct {
	w      http.ResponseWriter
	status int
	n      int64
}

func (c *countingWriter) Header() http.Header { return c.w.Header() }

func (c *countingWriter) WriteHeader(code int) {
	if c.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		c.status = code
	}
	c.w.WriteHeader(code)
}

func (c *countingWriter) Write(b []byte) (int, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// ReadFrom copies src to the response through the writer beneath's ReadFrom, when it has one.
func (c *countingWriter) ReadFrom(src io.Reader) (int64, error) {
	if c.status == 0 {
		c.status = http.StatusOK
	}
	var n int64
	var err error
	if rf, ok := c.w.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(src)
	} else {
		n, err = io.Copy(writerOnly{c.w}, src)
	}
	c.n += n
	return n, err
}

// Unwrap returns the writer beneath, for http.ResponseController.
func (c *countingWriter) Unwrap() http.ResponseWriter { return c.w }

// writerOnly hides every method of a writer but Write, so that io.Copy does not call its
// ReadFrom again.
type writerOnly struct{ io.Writer }
