// Package storetest is the contract of [cas.Store], written once and run against every
// backend: what one backend does and another does not is a bug in one of them, or a hole in
// the contract.
//
// A backend's test calls [Run] with a [Backend] that opens fresh, empty stores:
//
//	func TestDirContract(t *testing.T) {
//		storetest.Run(t, storetest.Backend{
//			Open:    func(t *testing.T, opts *cas.Options) cas.Store { ... },
//			Corrupt: func(t *testing.T, s cas.Store, h cas.Hash, b []byte) { ... },
//		})
//	}
//
// The package also starts S3-compatible servers for tests (see [S3URL] and [StartS3Server]).
package storetest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/cas"
)

// A Backend opens the stores that [Run] tests.
type Backend struct {
	// Open returns a new, empty store with the options given, which Run may change. A second
	// handle on the same store must come from cas.OpenURL of the store's String().
	Open func(t *testing.T, opts *cas.Options) cas.Store
	// Corrupt replaces the bytes of the stored object h with b behind the store's back, as a
	// failing disk or a careless operator would.
	Corrupt func(t *testing.T, s cas.Store, h cas.Hash, b []byte)
}

// Run runs the contract's tests, each as a parallel subtest of t.
func Run(t *testing.T, b Backend) {
	tests := []struct {
		name string
		fn   func(*testing.T, Backend)
	}{
		{"PutStatRead", testPutStatRead},
		{"MediaTypeKept", testMediaTypeKept},
		{"Clock", testClock},
		{"InvalidMediaType", testInvalidMediaType},
		{"EmptyObject", testEmptyObject},
		{"TooLarge", testTooLarge},
		{"ReadRange", testReadRange},
		{"OpenSeek", testOpenSeek},
		{"OpenSkim", testOpenSkim},
		{"ServeContent", testServeContent},
		{"NotFound", testNotFound},
		{"ConcurrentPuts", testConcurrentPuts},
		{"FailingReader", testFailingReader},
		{"CancelledPut", testCancelledPut},
		{"Large", testLarge},
		{"Verify", testVerify},
		{"WalkStatsRemove", testWalkStatsRemove},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.fn(t, b)
		})
	}
}

func put(t *testing.T, s cas.Store, content []byte, mimeType string) (cas.Object, bool) {
	t.Helper()
	obj, existed, err := s.Put(t.Context(), bytes.NewReader(content), mimeType)
	if err != nil {
		t.Fatalf("Put of %d bytes as %q: %v", len(content), mimeType, err)
	}
	return obj, existed
}

// same reports whether a and b describe the same object the same way.
func same(a, b cas.Object) bool {
	return a.Hash == b.Hash && a.Size == b.Size && a.MimeType == b.MimeType && a.StoredAt.Equal(b.StoredAt)
}

// hashes returns the hashes Walk gives, in its order.
func hashes(t *testing.T, s cas.Store) []cas.Hash {
	t.Helper()
	var hs []cas.Hash
	if err := s.Walk(t.Context(), func(h cas.Hash) error { hs = append(hs, h); return nil }); err != nil {
		t.Fatalf("Walk: %v", err)
	}
	return hs
}

// assertEmpty fails unless the store holds no object.
func assertEmpty(t *testing.T, s cas.Store) {
	t.Helper()
	if hs := hashes(t, s); len(hs) != 0 {
		t.Errorf("the store holds %d objects (%v), want none", len(hs), hs)
	}
}

func randomBytes(t *testing.T, n int) []byte {
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

func testPutStatRead(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	content := []byte("X:1\nT:tune\nK:C\nCDEF|\n")
	before := time.Now().Add(-time.Second)
	obj, existed := put(t, s, content, "text/vnd.abc")
	if existed {
		t.Error("first Put: existed = true")
	}
	want := cas.Object{Hash: cas.Sum(content), Size: int64(len(content)), MimeType: "text/vnd.abc", StoredAt: obj.StoredAt}
	if !same(obj, want) {
		t.Errorf("Put = %+v, want %+v", obj, want)
	}
	if obj.StoredAt.Before(before) || obj.StoredAt.After(time.Now().Add(time.Second)) || obj.StoredAt.Location() != time.UTC {
		t.Errorf("StoredAt = %v, want about now, in UTC", obj.StoredAt)
	}
	if got, err := s.Stat(t.Context(), obj.Hash); err != nil || !same(got, obj) {
		t.Errorf("Stat = %+v, %v; want %+v", got, err, obj)
	}
	if got, got2, err := s.ReadRange(t.Context(), obj.Hash, 0, 1<<20); err != nil || !bytes.Equal(got, content) || !same(got2, obj) {
		t.Errorf("ReadRange = %q, %+v, %v", got, got2, err)
	}
	r, got, err := s.Open(t.Context(), obj.Hash)
	if err != nil || !same(got, obj) {
		t.Fatalf("Open = %+v, %v", got, err)
	}
	all, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(all, content) {
		t.Errorf("reading the opened object = %q, %v", all, err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if n, err := s.Verify(t.Context(), obj.Hash); err != nil || n != int64(len(content)) {
		t.Errorf("Verify = %d, %v; want %d, nil", n, err, len(content))
	}
}

func testMediaTypeKept(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	first, _ := put(t, s, []byte("same bytes"), "text/plain; charset=utf-8")
	again, existed := put(t, s, []byte("same bytes"), "application/octet-stream")
	if !existed {
		t.Error("second Put of the same content: existed = false")
	}
	if !same(again, first) {
		t.Errorf("second Put = %+v, want the first's %+v", again, first)
	}
	if got, err := s.Stat(t.Context(), first.Hash); err != nil || got.MimeType != "text/plain; charset=utf-8" {
		t.Errorf("Stat = %+v, %v; want the first media type", got, err)
	}
	def, _ := put(t, s, []byte("no type"), "")
	if def.MimeType != cas.DefaultMediaType {
		t.Errorf("Put without a media type recorded %q, want %q", def.MimeType, cas.DefaultMediaType)
	}
}

// testClock checks that a Put records the store's clock as the object's StoredAt, and that an
// object stored again keeps the time it was first stored.
func testClock(t *testing.T, b Backend) {
	then := time.Date(2020, 2, 3, 4, 5, 6, 7000, time.FixedZone("east", 3600))
	s := b.Open(t, &cas.Options{Now: func() time.Time { return then }})
	obj, _ := put(t, s, []byte("stored long ago"), "text/plain")
	if !obj.StoredAt.Equal(then) || obj.StoredAt.Location() != time.UTC {
		t.Errorf("Put with a clock at %v: StoredAt = %v, want the clock's time in UTC", then, obj.StoredAt)
	}
	if got, err := s.Stat(t.Context(), obj.Hash); err != nil || !got.StoredAt.Equal(then) {
		t.Errorf("Stat = %+v, %v; want StoredAt %v", got, err, then)
	}
	again, err := cas.OpenURL(t.Context(), s.String(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, existed := put(t, again, []byte("stored long ago"), "text/plain"); !existed || !got.StoredAt.Equal(then) {
		t.Errorf("Put again by a store on today's clock = %+v (existed %v), want the first StoredAt %v", got, existed, then)
	}
}

func testInvalidMediaType(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	for _, mt := range []string{"text", "text/plain; charset", "text/pl ain", "text/plain\n", strings.Repeat("a", 300) + "/b"} {
		_, _, err := s.Put(t.Context(), strings.NewReader("content"), mt)
		var me *cas.MediaTypeError
		if !errors.Is(err, cas.ErrInvalidMediaType) || !errors.As(err, &me) || me.Problem == "" {
			t.Errorf("Put with media type %q = %v, want a MediaTypeError", mt, err)
		}
	}
	assertEmpty(t, s)
}

func testEmptyObject(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	obj, _ := put(t, s, nil, "text/plain")
	if obj.Size != 0 || obj.Hash != cas.Sum(nil) {
		t.Errorf("Put of nothing = %+v", obj)
	}
	if got, _, err := s.ReadRange(t.Context(), obj.Hash, 0, 10); err != nil || len(got) != 0 {
		t.Errorf("ReadRange of an empty object = %q, %v", got, err)
	}
	var re *cas.RangeError
	if _, _, err := s.ReadRange(t.Context(), obj.Hash, 1, 10); !errors.As(err, &re) || re.Size != 0 {
		t.Errorf("ReadRange past the end of an empty object = %v, want a RangeError with size 0", err)
	}
	r, _, err := s.Open(t.Context(), obj.Hash)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if all, err := io.ReadAll(r); err != nil || len(all) != 0 {
		t.Errorf("reading an empty object = %q, %v", all, err)
	}
}

func testTooLarge(t *testing.T, b Backend) {
	s := b.Open(t, &cas.Options{MaxObjectSize: 10})
	if s.MaxObjectSize() != 10 {
		t.Errorf("MaxObjectSize = %d, want 10", s.MaxObjectSize())
	}
	fits, _ := put(t, s, []byte("ten bytes!"), "text/plain")
	_, _, err := s.Put(t.Context(), strings.NewReader("eleven byte"), "text/plain")
	var tl *cas.TooLargeError
	if !errors.Is(err, cas.ErrTooLarge) || !errors.As(err, &tl) || tl.Limit != 10 {
		t.Fatalf("Put of 11 bytes = %v, want a TooLargeError with limit 10", err)
	}
	if want := "content is larger than the store's limit of 10 bytes"; err.Error() != want {
		t.Errorf("message = %q, want %q", err, want)
	}
	if _, err := s.Stat(t.Context(), cas.Sum([]byte("eleven byte"))); !errors.Is(err, cas.ErrNotFound) {
		t.Errorf("Stat of the refused content = %v, want ErrNotFound", err)
	}
	// A stream far beyond the limit is refused without being read to its end.
	endless := io.MultiReader(strings.NewReader(strings.Repeat("x", 100)), neverEnding{})
	if _, _, err := s.Put(t.Context(), endless, ""); !errors.Is(err, cas.ErrTooLarge) {
		t.Errorf("Put of an endless stream = %v, want ErrTooLarge", err)
	}
	if hs := hashes(t, s); len(hs) != 1 || hs[0] != fits.Hash {
		t.Errorf("the store holds %v, want only %s", hs, fits.Hash)
	}
}

// neverEnding yields 'y' forever.
type neverEnding struct{}

func (neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'y'
	}
	return len(p), nil
}

func testReadRange(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	obj, _ := put(t, s, []byte("0123456789"), "text/plain")
	for _, tc := range []struct {
		offset int64
		length int
		want   string
	}{
		{0, 3, "012"},
		{3, 4, "3456"},
		{7, 100, "789"},
		{9, 1, "9"},
		{10, 5, ""},
		{4, 0, ""},
		{10, 0, ""},
	} {
		got, o, err := s.ReadRange(t.Context(), obj.Hash, tc.offset, tc.length)
		if err != nil || string(got) != tc.want || !same(o, obj) {
			t.Errorf("ReadRange(%d, %d) = %q, %+v, %v; want %q", tc.offset, tc.length, got, o, err, tc.want)
		}
	}
	for _, length := range []int{0, 1} {
		_, _, err := s.ReadRange(t.Context(), obj.Hash, 11, length)
		var re *cas.RangeError
		if !errors.Is(err, cas.ErrOutOfRange) || !errors.As(err, &re) || re.Size != 10 || re.Offset != 11 {
			t.Errorf("ReadRange(11, %d) = %v, want a RangeError at 11 of size 10", length, err)
		}
	}
	if _, _, err := s.ReadRange(t.Context(), obj.Hash, -1, 1); !errors.Is(err, cas.ErrOutOfRange) {
		t.Errorf("negative offset: %v, want ErrOutOfRange", err)
	}
	if _, _, err := s.ReadRange(t.Context(), obj.Hash, 0, -1); !errors.Is(err, cas.ErrOutOfRange) {
		t.Errorf("negative length: %v, want ErrOutOfRange", err)
	}
}

// An opener is one way a store opens an object: Open, and OpenStream of a cas.Streamer.
type opener struct {
	name string
	open func(ctx context.Context, h cas.Hash) (io.ReadSeekCloser, cas.Object, error)
}

// openers returns the ways s opens objects, which keep the same promises.
func openers(s cas.Store) []opener {
	out := []opener{{"Open", s.Open}}
	if st, ok := s.(cas.Streamer); ok {
		out = append(out, opener{"OpenStream", st.OpenStream})
	}
	return out
}

func testOpenSeek(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	obj, _ := put(t, s, []byte("0123456789"), "text/plain")
	for _, o := range openers(s) {
		t.Run(o.name, func(t *testing.T) { openSeek(t, s, o, obj) })
	}
}

func openSeek(t *testing.T, s cas.Store, o opener, obj cas.Object) {
	r, got, err := o.open(t.Context(), obj.Hash)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if want, err := s.Stat(t.Context(), obj.Hash); err != nil || !same(got, want) {
		t.Errorf("%s gave the object %+v; Stat gives %+v, %v", o.name, got, want, err)
	}
	read := func(n int) string {
		t.Helper()
		buf := make([]byte, n)
		k, err := io.ReadFull(r, buf)
		if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
			t.Fatalf("read: %v", err)
		}
		return string(buf[:k])
	}
	seek := func(off int64, whence int, want int64) {
		t.Helper()
		if got, err := r.Seek(off, whence); err != nil || got != want {
			t.Fatalf("Seek(%d, %d) = %d, %v; want %d", off, whence, got, err, want)
		}
	}
	if got := read(3); got != "012" {
		t.Errorf("first read = %q", got)
	}
	seek(2, io.SeekCurrent, 5)
	if got := read(2); got != "56" {
		t.Errorf("read after seeking on = %q, want 56", got)
	}
	seek(-3, io.SeekEnd, 7)
	if got := read(10); got != "789" {
		t.Errorf("read of the last bytes = %q, want 789", got)
	}
	seek(1, io.SeekStart, 1)
	if got := read(2); got != "12" {
		t.Errorf("read after seeking back = %q, want 12", got)
	}
	seek(0, io.SeekEnd, 10)
	if n, err := r.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("read at the end = %d, %v; want 0, EOF", n, err)
	}
	if _, err := r.Seek(-1, io.SeekStart); err == nil {
		t.Error("Seek to -1 succeeded")
	}

	// A seek to the end and back before the first read, as http.ServeContent makes to learn
	// the size, reads from the start.
	r2, _, err := o.open(t.Context(), obj.Hash)
	if err != nil {
		t.Fatal(err)
	}
	defer r2.Close()
	if n, err := r2.Seek(0, io.SeekEnd); err != nil || n != 10 {
		t.Fatalf("Seek to the end = %d, %v; want 10", n, err)
	}
	if _, err := r2.Seek(0, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	if all, err := io.ReadAll(r2); err != nil || string(all) != "0123456789" {
		t.Errorf("read after seeking to the end and back = %q, %v", all, err)
	}
}

// testOpenSkim reads a large object as the readers of RIFF files do (soundfont_inspect,
// audio_info): chunk headers here and there, skipping the bodies between them forward and
// back, from one opened reader. They rely on it to read a file's parts without the whole.
func testOpenSkim(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	content := make([]byte, 3<<20)
	for i := range content {
		content[i] = byte(i*7 + i>>11)
	}
	obj, _ := put(t, s, content, "application/octet-stream")
	r, _, err := s.Open(t.Context(), obj.Hash)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	for _, at := range []struct {
		off int64
		n   int
	}{{0, 12}, {12, 8}, {2<<20 + 5, 16}, {3<<20 - 8, 8}, {1 << 20, 4096}, {20, 8}, {1<<20 + 4096, 8}} {
		if _, err := r.Seek(at.off, io.SeekStart); err != nil {
			t.Fatalf("Seek(%d): %v", at.off, err)
		}
		buf := make([]byte, at.n)
		if _, err := io.ReadFull(r, buf); err != nil {
			t.Fatalf("reading %d bytes at %d: %v", at.n, at.off, err)
		}
		if !bytes.Equal(buf, content[at.off:at.off+int64(at.n)]) {
			t.Errorf("%d bytes at %d differ from what was stored", at.n, at.off)
		}
	}
}

// testServeContent serves an opened object as the gateway's content routes do, with ranges.
func testServeContent(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	content := randomBytes(t, 300<<10)
	obj, _ := put(t, s, content, "audio/midi")
	for _, tc := range []struct {
		rangeHeader string
		status      int
		want        []byte
	}{
		{"", http.StatusOK, content},
		{"bytes=100-199", http.StatusPartialContent, content[100:200]},
		{"bytes=-10", http.StatusPartialContent, content[len(content)-10:]},
		{"bytes=300000-", http.StatusPartialContent, content[300000:]},
		{"bytes=400000-", http.StatusRequestedRangeNotSatisfiable, nil},
	} {
		for _, op := range openers(s) {
			r, o, err := op.open(t.Context(), obj.Hash)
			if err != nil {
				t.Fatal(err)
			}
			req := httptest.NewRequest(http.MethodGet, "/cas/"+obj.Hash.String(), nil)
			if tc.rangeHeader != "" {
				req.Header.Set("Range", tc.rangeHeader)
			}
			w := httptest.NewRecorder()
			http.ServeContent(w, req, "", o.StoredAt, r)
			r.Close()
			if w.Code != tc.status {
				t.Errorf("%s, Range %q: status %d, want %d", op.name, tc.rangeHeader, w.Code, tc.status)
				continue
			}
			if tc.want != nil && !bytes.Equal(w.Body.Bytes(), tc.want) {
				t.Errorf("%s, Range %q: %d bytes that differ from the %d wanted", op.name, tc.rangeHeader, w.Body.Len(), len(tc.want))
			}
		}
	}
}

func testNotFound(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	h := cas.Sum([]byte("never stored"))
	check := func(op string, err error) {
		t.Helper()
		if !errors.Is(err, cas.ErrNotFound) || !strings.Contains(err.Error(), h.String()) {
			t.Errorf("%s of a missing object = %v, want ErrNotFound naming the hash", op, err)
		}
	}
	_, err := s.Stat(t.Context(), h)
	check("Stat", err)
	_, _, err = s.ReadRange(t.Context(), h, 0, 1)
	check("ReadRange", err)
	_, _, err = s.ReadRange(t.Context(), h, 0, 0)
	check("ReadRange of nothing", err)
	for _, o := range openers(s) {
		_, _, err = o.open(t.Context(), h)
		check(o.name, err)
	}
	_, err = s.Verify(t.Context(), h)
	check("Verify", err)
	if err := s.Remove(t.Context(), h); err != nil {
		t.Errorf("Remove of a missing object = %v, want nil", err)
	}
}

// testConcurrentPuts stores the same content from many goroutines through two handles on the
// store, as writers in two processes would: one of them stores it, the others find it, and all
// agree on its metadata.
func testConcurrentPuts(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	other, err := cas.OpenURL(t.Context(), s.String(), nil)
	if err != nil {
		t.Fatalf("a second handle on %s: %v", s, err)
	}
	const writers = 8
	content := randomBytes(t, 40<<10)
	var (
		wg      sync.WaitGroup
		objs    [writers]cas.Object
		existed [writers]bool
		errs    [writers]error
	)
	for i := range writers {
		store := s
		if i%2 == 1 {
			store = other
		}
		wg.Go(func() {
			objs[i], existed[i], errs[i] = store.Put(t.Context(), bytes.NewReader(content), fmt.Sprintf("application/x-writer-%d", i))
		})
	}
	wg.Wait()
	stored, err := s.Stat(t.Context(), cas.Sum(content))
	if err != nil {
		t.Fatal(err)
	}
	created := 0
	for i := range writers {
		if errs[i] != nil {
			t.Errorf("writer %d: %v", i, errs[i])
			continue
		}
		if !existed[i] {
			created++
		}
		if !same(objs[i], stored) {
			t.Errorf("writer %d got %+v; the store holds %+v", i, objs[i], stored)
		}
	}
	if created != 1 {
		t.Errorf("%d writers report that they stored the content; want exactly 1", created)
	}
	if hs := hashes(t, s); len(hs) != 1 {
		t.Errorf("the store holds %d objects, want 1", len(hs))
	}
}

// failingReader yields n bytes, then err.
type failingReader struct {
	n   int
	err error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n == 0 {
		return 0, r.err
	}
	k := min(len(p), r.n)
	for i := range k {
		p[i] = 'z'
	}
	r.n -= k
	return k, nil
}

func testFailingReader(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	boom := errors.New("the client hung up")
	for _, n := range []int{0, 1000, 600 << 10} {
		_, _, err := s.Put(t.Context(), &failingReader{n: n, err: boom}, "text/plain")
		if !errors.Is(err, boom) {
			t.Errorf("Put from a reader failing after %d bytes = %v, want its error", n, err)
		}
		if _, err := s.Stat(t.Context(), cas.Sum(bytes.Repeat([]byte("z"), n))); !errors.Is(err, cas.ErrNotFound) {
			t.Errorf("Stat of what came before the failure = %v, want ErrNotFound", err)
		}
	}
	assertEmpty(t, s)
}

// cancellingReader yields some bytes, then cancels the context of the Put reading it.
type cancellingReader struct {
	n      int
	cancel context.CancelFunc
}

func (r *cancellingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		r.cancel()
	}
	k := min(len(p), 4096)
	r.n -= k
	return k, nil
}

func testCancelledPut(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	_, _, err := s.Put(ctx, &cancellingReader{n: 100 << 10, cancel: cancel}, "text/plain")
	if !errors.Is(err, context.Canceled) {
		t.Errorf("Put whose context ends mid-stream = %v, want context.Canceled", err)
	}
	assertEmpty(t, s)
}

func testLarge(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	content := randomBytes(t, 3<<20+17)
	obj, existed := put(t, s, content, "audio/wav")
	if existed || obj.Size != int64(len(content)) || obj.Hash != cas.Sum(content) {
		t.Fatalf("Put = %+v, %v", obj, existed)
	}
	r, _, err := s.Open(t.Context(), obj.Hash)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	all, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(all, content) {
		t.Errorf("read back %d bytes, %v; they differ from the %d stored", len(all), err, len(content))
	}
	part, _, err := s.ReadRange(t.Context(), obj.Hash, 1<<20, 1<<20)
	if err != nil || !bytes.Equal(part, content[1<<20:2<<20]) {
		t.Errorf("ReadRange of the second MiB: %d bytes, %v", len(part), err)
	}
	if n, err := s.Verify(t.Context(), obj.Hash); err != nil || n != obj.Size {
		t.Errorf("Verify = %d, %v", n, err)
	}
}

func testVerify(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	good, _ := put(t, s, []byte("one"), "text/plain")
	bad, _ := put(t, s, []byte("two"), "text/plain")
	b.Corrupt(t, s, bad.Hash, []byte("TWO"))
	if n, err := s.Verify(t.Context(), good.Hash); err != nil || n != 3 {
		t.Errorf("Verify of an intact object = %d, %v", n, err)
	}
	_, err := s.Verify(t.Context(), bad.Hash)
	var ce *cas.CorruptError
	if !errors.Is(err, cas.ErrCorrupt) || !errors.As(err, &ce) || ce.Hash != bad.Hash || ce.Got != cas.Sum([]byte("TWO")) {
		t.Errorf("Verify of a corrupted object = %v, want a CorruptError naming the hash of TWO", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := s.Verify(ctx, good.Hash); !errors.Is(err, context.Canceled) {
		t.Errorf("Verify with a cancelled context = %v, want context.Canceled", err)
	}
}

func testWalkStatsRemove(t *testing.T, b Backend) {
	s := b.Open(t, nil)
	var want []cas.Hash
	var total int64
	for i := range 5 {
		content := []byte(strings.Repeat("w", i+1))
		obj, _ := put(t, s, content, "text/plain")
		want = append(want, obj.Hash)
		total += obj.Size
	}
	slices.SortFunc(want, func(a, b cas.Hash) int { return bytes.Compare(a[:], b[:]) })
	if got := hashes(t, s); !slices.Equal(got, want) {
		t.Errorf("Walk = %v, want %v in order", got, want)
	}
	if n, size, err := s.Stats(t.Context()); err != nil || n != 5 || size != total {
		t.Errorf("Stats = %d, %d, %v; want 5, %d", n, size, err, total)
	}
	stop := errors.New("enough")
	seen := 0
	if err := s.Walk(t.Context(), func(cas.Hash) error { seen++; return stop }); !errors.Is(err, stop) || seen != 1 {
		t.Errorf("Walk stopped by its function = %v after %d, want its error after 1", err, seen)
	}

	gone := cas.Sum([]byte("www"))
	if err := s.Remove(t.Context(), gone); err != nil {
		t.Fatalf("Remove: %v", err)
	}
	if _, err := s.Stat(t.Context(), gone); !errors.Is(err, cas.ErrNotFound) {
		t.Errorf("Stat after Remove = %v, want ErrNotFound", err)
	}
	if n, size, err := s.Stats(t.Context()); err != nil || n != 4 || size != total-3 {
		t.Errorf("Stats after Remove = %d, %d, %v; want 4, %d", n, size, err, total-3)
	}
	obj, existed := put(t, s, []byte("www"), "text/x-again")
	if existed || obj.MimeType != "text/x-again" {
		t.Errorf("Put after Remove = %+v, existed %v; want a new object with the new media type", obj, existed)
	}
}
