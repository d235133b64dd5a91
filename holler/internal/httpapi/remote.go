package httpapi

import (
	"io"
	"net/http"
	"os"
	"sync"
)

// Sizes of the buffers through which an object that cannot go by sendfile (one of a store on
// another machine, such as S3) is copied to the client.
const (
	// remoteCopySize is the most bytes written to the client at once. io.Copy, which
	// http.ServeContent would use, writes whatever each read of the store's answer brings,
	// which on loopback is 8 to 16 KiB; filling a buffer of 1 MiB first makes a sixteenth of
	// the writes, and full TCP segments. A GET of 16 MiB from S3 then cost the gateway 8 ms of
	// CPU instead of 19.
	remoteCopySize = 1 << 20
	// remoteCopyBuffers bounds the buffers of remoteCopySize lent at once, so that many GETs
	// at once cannot make the gateway hold a mebibyte each; the others copy through a buffer
	// of smallCopySize.
	remoteCopyBuffers = 32
	smallCopySize     = 64 << 10
)

var (
	// remoteCopySlots holds a token for each buffer of remoteCopySize lent now.
	remoteCopySlots = make(chan struct{}, remoteCopyBuffers)
	remoteCopyPool  = sync.Pool{New: func() any { b := make([]byte, remoteCopySize); return &b }}
	smallCopyPool   = sync.Pool{New: func() any { b := make([]byte, smallCopySize); return &b }}
)

// borrowCopyBuffer lends a buffer of remoteCopySize when fewer than remoteCopyBuffers are lent,
// else one of smallCopySize; give it back with the function returned.
func borrowCopyBuffer() (buf []byte, giveBack func()) {
	select {
	case remoteCopySlots <- struct{}{}:
		bp := remoteCopyPool.Get().(*[]byte)
		return *bp, func() { remoteCopyPool.Put(bp); <-remoteCopySlots }
	default:
		bp := smallCopyPool.Get().(*[]byte)
		return *bp, func() { smallCopyPool.Put(bp) }
	}
}

// A fillingWriter is the ResponseWriter through which http.ServeContent writes an object:
// a file goes on to the writer beneath's ReadFrom (sendfile), anything else is copied in
// writes of a full buffer (see remoteCopySize).
type fillingWriter struct {
	http.ResponseWriter
}

// ReadFrom copies src to the response.
func (f fillingWriter) ReadFrom(src io.Reader) (int64, error) {
	inner := src
	if lr, ok := src.(*io.LimitedReader); ok {
		inner = lr.R
	}
	if _, isFile := inner.(*os.File); isFile {
		if rf, ok := f.ResponseWriter.(io.ReaderFrom); ok {
			return rf.ReadFrom(src)
		}
	}
	buf, giveBack := borrowCopyBuffer()
	defer giveBack()
	var total int64
	for {
		// Fill the buffer, or take what there is when src ends or fails.
		var n int
		var err error
		for n < len(buf) && err == nil {
			var m int
			m, err = src.Read(buf[n:])
			n += m
		}
		if n > 0 {
			m, werr := f.ResponseWriter.Write(buf[:n])
			total += int64(m)
			if werr != nil {
				return total, werr
			}
		}
		if err == io.EOF {
			return total, nil
		}
		if err != nil {
			return total, err
		}
	}
}

// Unwrap returns the writer beneath, for http.ResponseController.
func (f fillingWriter) Unwrap() http.ResponseWriter { return f.ResponseWriter }
