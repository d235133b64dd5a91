package httpapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math/rand/v2"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/cas"
)

// writeSizes is a ResponseWriter without ReadFrom that records the size of each write.
type writeSizes struct {
	header http.Header
	body   bytes.Buffer
	sizes  []int
}

func (w *writeSizes) Header() http.Header { return w.header }
func (w *writeSizes) WriteHeader(int)     {}
func (w *writeSizes) Write(b []byte) (int, error) {
	w.sizes = append(w.sizes, len(b))
	return w.body.Write(b)
}

// trickle yields its bytes a few at a time, as a socket does when the bytes come as they are
// sent.
type trickle struct {
	r    io.Reader
	step int
	err  error // returned once r is drained, instead of io.EOF, when set
}

func (t *trickle) Read(p []byte) (int, error) {
	n, err := t.r.Read(p[:min(len(p), t.step)])
	if err == io.EOF && t.err != nil {
		err = t.err
	}
	return n, err
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.NewChaCha8([32]byte{7}).Read(b)
	return b
}

// TestFillingWriterFullWrites checks that an object read in small pieces reaches the client in
// writes of a whole buffer, the last one excepted, and that the big buffers lent at once are
// bounded: past remoteCopyBuffers, a copy takes a small buffer, and a big one again once one is
// given back. It is not parallel: the buffers are the package's.
func TestFillingWriterFullWrites(t *testing.T) {
	content := randomBytes(3*remoteCopySize + 12345)
	copyOf := func() *writeSizes {
		t.Helper()
		w := &writeSizes{header: http.Header{}}
		n, err := fillingWriter{w}.ReadFrom(io.LimitReader(&trickle{r: bytes.NewReader(content), step: 10_000}, int64(len(content))))
		if err != nil || n != int64(len(content)) || !bytes.Equal(w.body.Bytes(), content) {
			t.Fatalf("ReadFrom = %d, %v; wrote %d bytes, want the %d of the source", n, err, w.body.Len(), len(content))
		}
		return w
	}
	w := copyOf()
	if want := []int{remoteCopySize, remoteCopySize, remoteCopySize, 12345}; !equalInts(w.sizes, want) {
		t.Errorf("writes of %v bytes, want %v", w.sizes, want)
	}

	var giveBacks []func()
	for range remoteCopyBuffers {
		buf, giveBack := borrowCopyBuffer()
		if len(buf) != remoteCopySize {
			t.Fatalf("a buffer of %d bytes lent with fewer than %d lent, want %d", len(buf), remoteCopyBuffers, remoteCopySize)
		}
		giveBacks = append(giveBacks, giveBack)
	}
	w = copyOf()
	if len(w.sizes) == 0 || w.sizes[0] != smallCopySize {
		t.Errorf("with every big buffer lent, writes of %v bytes, want %d each", w.sizes[:min(len(w.sizes), 3)], smallCopySize)
	}
	giveBacks[0]()
	w = copyOf()
	if w.sizes[0] != remoteCopySize {
		t.Errorf("with a big buffer given back, the first write has %d bytes, want %d", w.sizes[0], remoteCopySize)
	}
	for _, giveBack := range giveBacks[1:] {
		giveBack()
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestFillingWriterReadError checks that a source failing part way is reported, after what came
// before it was written, and not taken for the end of the object.
func TestFillingWriterReadError(t *testing.T) {
	t.Parallel()
	broken := errors.New("the store's connection broke")
	for _, err := range []error{broken, io.ErrUnexpectedEOF} {
		content := randomBytes(100_000)
		w := &writeSizes{header: http.Header{}}
		n, got := fillingWriter{w}.ReadFrom(&trickle{r: bytes.NewReader(content), step: 4096, err: err})
		if got != err || n != int64(len(content)) || !bytes.Equal(w.body.Bytes(), content) {
			t.Errorf("ReadFrom of a source failing with %q = %d, %v; want %d, the source's error", err, n, got, len(content))
		}
	}
}

// trickleStore is a store whose objects read a few bytes at a time through a reader that is not
// a file, as an object of S3 does.
type trickleStore struct{ cas.Store }

type trickleFile struct {
	io.ReadSeekCloser
}

func (f trickleFile) Read(p []byte) (int, error) {
	return f.ReadSeekCloser.Read(p[:min(len(p), 7_000)])
}

func (s trickleStore) Open(ctx context.Context, h cas.Hash) (io.ReadSeekCloser, cas.Object, error) {
	f, obj, err := s.Store.Open(ctx, h)
	if err != nil {
		return nil, obj, err
	}
	return trickleFile{f}, obj, nil
}

// TestContentRemoteReader serves the content routes from a store whose objects are not files:
// everything testContent checks, and a large object whole and in ranges that cross the copy's
// buffers, byte for byte.
func TestContentRemoteReader(t *testing.T) {
	t.Parallel()
	small, err := cas.OpenDir(t.TempDir(), &cas.Options{MaxObjectSize: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	testContent(t, trickleStore{small})

	dir, err := cas.OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	store := trickleStore{dir}
	content := randomBytes(2*remoteCopySize + 99_999)
	obj, _, err := store.Put(t.Context(), bytes.NewReader(content), "application/octet-stream")
	if err != nil {
		t.Fatal(err)
	}
	h := NewRouter(Deps{MCP: http.NotFoundHandler(), Services: func() []string { return nil },
		Content: &Content{Backend: &metadata{store: store}, Store: store, Count: func(int64, int64) {}}})
	get := func(rangeHeader string) *httptest.ResponseRecorder {
		req := newRequest(http.MethodGet, "/cas/"+obj.Hash.String(), nil)
		if rangeHeader != "" {
			req.Header.Set("Range", rangeHeader)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	if rec := get(""); rec.Code != http.StatusOK || !bytes.Equal(rec.Body.Bytes(), content) {
		t.Errorf("GET = %d with %d bytes, want 200 with the %d stored", rec.Code, rec.Body.Len(), len(content))
	}
	if rec := get("bytes=1000-1100000"); rec.Code != http.StatusPartialContent || !bytes.Equal(rec.Body.Bytes(), content[1000:1100001]) {
		t.Errorf("GET of a range = %d with %d bytes, want 206 with bytes 1000 to 1100000", rec.Code, rec.Body.Len())
	}
	rec := get("bytes=5-1048580,2000000-2100000")
	_, params, err := mime.ParseMediaType(rec.Header().Get("Content-Type"))
	if rec.Code != http.StatusPartialContent || err != nil {
		t.Fatalf("GET of two ranges = %d, Content-Type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	parts := multipart.NewReader(rec.Body, params["boundary"])
	for i, want := range [][]byte{content[5:1048581], content[2000000:2100001]} {
		p, err := parts.NextPart()
		if err != nil {
			t.Fatalf("part %d: %v", i, err)
		}
		got, err := io.ReadAll(p)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("part %d has %d bytes (%v), want %d of the object", i, len(got), err, len(want))
		}
	}
}
