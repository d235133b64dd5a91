package cas

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// quietLogger discards what the store logs.
var quietLogger = slog.New(slog.DiscardHandler)

func openStore(t *testing.T, opts *Options) (*Dir, string) {
	t.Helper()
	dir := t.TempDir()
	if opts == nil {
		opts = &Options{}
	}
	if opts.Logger == nil {
		opts.Logger = quietLogger
	}
	s, err := OpenDir(dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return s, dir
}

func put(t *testing.T, s *Dir, content, mimeType string) (Object, bool) {
	t.Helper()
	obj, existed, err := s.Put(context.Background(), strings.NewReader(content), mimeType)
	if err != nil {
		t.Fatalf("Put(%q, %q): %v", content, mimeType, err)
	}
	return obj, existed
}

// assertNoTemps fails unless the store's tmp directory is empty.
func assertNoTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(dir, tmpDir))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("temporary file left behind: %s", e.Name())
	}
}

// objectFiles returns the names of the files under objects/.
func objectFiles(t *testing.T, dir string) []string {
	t.Helper()
	var names []string
	err := filepath.WalkDir(filepath.Join(dir, objectsDir), func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			names = append(names, d.Name())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestPutRoundTrip(t *testing.T) {
	s, dir := openStore(t, nil)
	content := "X:1\nT:Example\nK:C\nCDEF|\n"
	before := time.Now().Add(-time.Second)
	obj, existed := put(t, s, content, "text/vnd.abc")
	if existed {
		t.Error("existed = true for a new object")
	}
	want := Sum([]byte(content))
	if obj.Hash != want {
		t.Errorf("Hash = %s, want %s", obj.Hash, want)
	}
	sum := sha256.Sum256([]byte(content))
	if obj.Hash.String() != hex.EncodeToString(sum[:]) {
		t.Errorf("Hash.String() = %s", obj.Hash)
	}
	if obj.Size != int64(len(content)) || obj.MimeType != "text/vnd.abc" {
		t.Errorf("obj = %+v", obj)
	}
	if obj.StoredAt.Before(before) || obj.StoredAt.After(time.Now().Add(time.Second)) || obj.StoredAt.Location() != time.UTC {
		t.Errorf("StoredAt = %v", obj.StoredAt)
	}

	got, err := s.Stat(context.Background(), obj.Hash)
	if err != nil || got != obj {
		t.Errorf("Stat = %+v, %v; want %+v", got, err, obj)
	}
	b, got, err := s.ReadRange(context.Background(), obj.Hash, 0, 1<<20)
	if err != nil || string(b) != content || got != obj {
		t.Errorf("ReadRange = %q, %+v, %v", b, got, err)
	}
	r, got, err := s.Open(context.Background(), obj.Hash)
	if err != nil || got != obj {
		t.Fatalf("OpenObject = %+v, %v", got, err)
	}
	all, err := io.ReadAll(r)
	if err != nil || string(all) != content {
		t.Errorf("reading the object: %q, %v", all, err)
	}
	if _, err := r.Seek(5, io.SeekStart); err != nil {
		t.Error(err)
	}
	rest, _ := io.ReadAll(r)
	if string(rest) != content[5:] {
		t.Errorf("after Seek(5): %q", rest)
	}
	if err := r.Close(); err != nil {
		t.Error(err)
	}

	// The layout: objects/<first two digits>/<hash> and its sidecar, nothing in tmp/.
	name := obj.Hash.String()
	path := filepath.Join(dir, objectsDir, name[:2], name)
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o444 {
		t.Errorf("object mode = %v, want read-only", info.Mode())
	}
	meta, err := os.ReadFile(path + sidecarSuffix)
	if err != nil {
		t.Fatal(err)
	}
	wantMeta := "hoot-cas-meta 1\nmime-type text/vnd.abc\nstored-at " + obj.StoredAt.Format(time.RFC3339Nano) + "\n"
	if string(meta) != wantMeta {
		t.Errorf("sidecar = %q, want %q", meta, wantMeta)
	}
	assertNoTemps(t, dir)
}

func TestPutDefaultsAndEmpty(t *testing.T) {
	s, _ := openStore(t, nil)
	obj, _ := put(t, s, "", "")
	if obj.Hash.String() != "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("hash of no bytes = %s", obj.Hash)
	}
	if obj.Size != 0 || obj.MimeType != DefaultMediaType {
		t.Errorf("obj = %+v", obj)
	}
	b, _, err := s.ReadRange(context.Background(), obj.Hash, 0, 10)
	if err != nil || len(b) != 0 {
		t.Errorf("ReadRange of an empty object = %q, %v", b, err)
	}
}

func TestPutExisting(t *testing.T) {
	// The store's clock moves a second each time it is read, so a second Put that stamped the
	// object anew would show.
	var mu sync.Mutex
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tick := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		clock = clock.Add(time.Second)
		return clock
	}
	s, dir := openStore(t, &Options{Now: tick})
	first, _ := put(t, s, "same bytes", "text/plain")
	again, existed := put(t, s, "same bytes", "application/json")
	if !existed {
		t.Error("existed = false for a stored object")
	}
	if again != first {
		t.Errorf("second Put = %+v, want the first object %+v", again, first)
	}
	if got, _ := s.Stat(context.Background(), first.Hash); got.MimeType != "text/plain" {
		t.Errorf("media type after a second Put = %q, want the first one", got.MimeType)
	}
	if n := len(objectFiles(t, dir)); n != 2 {
		t.Errorf("%d files under objects/, want 2", n)
	}
	assertNoTemps(t, dir)
}

func TestPutConcurrentSameContent(t *testing.T) {
	s, dir := openStore(t, nil)
	content := strings.Repeat("the same content, again and again\n", 5000)
	const writers = 64
	type answer struct {
		obj     Object
		existed bool
		err     error
	}
	answers := make([]answer, writers)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range writers {
		wg.Go(func() {
			<-start
			mimeType := fmt.Sprintf("text/x-writer-%d", i)
			obj, existed, err := s.Put(context.Background(), strings.NewReader(content), mimeType)
			answers[i] = answer{obj, existed, err}
		})
	}
	close(start)
	wg.Wait()

	created := 0
	var first Object
	for i, a := range answers {
		if a.err != nil {
			t.Fatalf("writer %d: %v", i, a.err)
		}
		if !a.existed {
			created++
			first = a.obj
		}
	}
	if created != 1 {
		t.Fatalf("%d writers created the object, want exactly 1", created)
	}
	for i, a := range answers {
		if a.obj != first {
			t.Errorf("writer %d got %+v, want %+v", i, a.obj, first)
		}
	}
	b, _, err := s.ReadRange(context.Background(), first.Hash, 0, len(content)+1)
	if err != nil || string(b) != content {
		t.Errorf("stored content differs: %d bytes, %v", len(b), err)
	}
	if n := len(objectFiles(t, dir)); n != 2 {
		t.Errorf("%d files under objects/, want 2", n)
	}
	assertNoTemps(t, dir)
}

func TestPutConcurrentStoresSharingADirectory(t *testing.T) {
	// Two stores on one directory stand for two processes: they share no locks, only the
	// filesystem.
	first, dir := openStore(t, nil)
	second, err := OpenDir(dir, &Options{Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	stores := []*Dir{first, second}
	for round := range 20 {
		content := fmt.Sprintf("round %d", round)
		const writers = 16
		objs := make([]Object, writers)
		existed := make([]bool, writers)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range writers {
			wg.Go(func() {
				<-start
				var err error
				objs[i], existed[i], err = stores[i%2].Put(context.Background(), strings.NewReader(content), fmt.Sprintf("text/x-%d", i))
				if err != nil {
					t.Error(err)
				}
			})
		}
		close(start)
		wg.Wait()
		created := 0
		for i := range writers {
			if !existed[i] {
				created++
			}
			if objs[i] != objs[0] {
				t.Errorf("round %d: writer %d got %+v, writer 0 %+v", round, i, objs[i], objs[0])
			}
		}
		if created != 1 {
			t.Errorf("round %d: %d writers created the object, want 1", round, created)
		}
	}
	assertNoTemps(t, dir)
}

func TestPutConcurrentDifferentContent(t *testing.T) {
	s, dir := openStore(t, nil)
	var wg sync.WaitGroup
	for i := range 50 {
		wg.Go(func() {
			content := fmt.Sprintf("object %d", i)
			obj, _, err := s.Put(context.Background(), strings.NewReader(content), "text/plain")
			if err != nil {
				t.Error(err)
				return
			}
			if b, _, err := s.ReadRange(context.Background(), obj.Hash, 0, 100); err != nil || string(b) != content {
				t.Errorf("object %d reads %q, %v", i, b, err)
			}
		})
	}
	wg.Wait()
	if n := len(objectFiles(t, dir)); n != 100 {
		t.Errorf("%d files under objects/, want 100", n)
	}
	assertNoTemps(t, dir)
}

func TestPutSizeLimit(t *testing.T) {
	s, dir := openStore(t, &Options{MaxObjectSize: 10})
	if s.MaxObjectSize() != 10 {
		t.Errorf("MaxObjectSize = %d", s.MaxObjectSize())
	}
	_, _, err := s.Put(context.Background(), strings.NewReader("eleven byte"), "text/plain")
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Put of 11 bytes: %v, want ErrTooLarge", err)
	}
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Limit != 10 {
		t.Errorf("error %v carries no limit of 10", err)
	}
	if want := "content is larger than the store's limit of 10 bytes"; err.Error() != want {
		t.Errorf("message = %q, want %q", err, want)
	}
	if files := objectFiles(t, dir); len(files) != 0 {
		t.Errorf("files left behind: %v", files)
	}
	assertNoTemps(t, dir)

	if _, _, err := s.Put(context.Background(), strings.NewReader("ten bytes!"), "text/plain"); err != nil {
		t.Errorf("Put of exactly the limit: %v", err)
	}

	big, _ := openStore(t, nil)
	if big.MaxObjectSize() != DefaultMaxObjectSize {
		t.Errorf("default MaxObjectSize = %d", big.MaxObjectSize())
	}
	msg := (&TooLargeError{Limit: DefaultMaxObjectSize}).Error()
	if want := "content is larger than the store's limit of 64 MiB (67108864 bytes)"; msg != want {
		t.Errorf("message = %q, want %q", msg, want)
	}
}

// failingReader yields some bytes, then fails.
type failingReader struct {
	n   int
	err error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, r.err
	}
	n := min(len(p), r.n)
	for i := range n {
		p[i] = 'x'
	}
	r.n -= n
	return n, nil
}

func TestPutFailingReader(t *testing.T) {
	s, dir := openStore(t, nil)
	boom := errors.New("connection reset")
	_, _, err := s.Put(context.Background(), &failingReader{n: 200 << 10, err: boom}, "text/plain")
	if !errors.Is(err, boom) {
		t.Fatalf("Put = %v, want the reader's error", err)
	}
	if files := objectFiles(t, dir); len(files) != 0 {
		t.Errorf("files left behind: %v", files)
	}
	assertNoTemps(t, dir)
}

// cancelingReader cancels its context after the first read.
type cancelingReader struct {
	cancel context.CancelFunc
}

func (r *cancelingReader) Read(p []byte) (int, error) {
	r.cancel()
	return copy(p, "some bytes"), nil
}

func TestPutCanceled(t *testing.T) {
	s, dir := openStore(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	_, _, err := s.Put(ctx, &cancelingReader{cancel}, "text/plain")
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Put = %v, want context.Canceled", err)
	}
	if files := objectFiles(t, dir); len(files) != 0 {
		t.Errorf("files left behind: %v", files)
	}
	assertNoTemps(t, dir)
}

func TestPutMediaType(t *testing.T) {
	s, dir := openStore(t, nil)
	for _, mt := range []string{"text/plain; charset=utf-8", "audio/midi", "application/vnd.api+json", "TEXT/Plain"} {
		if obj, _ := put(t, s, "content for "+mt, mt); obj.MimeType != mt {
			t.Errorf("media type %q recorded as %q", mt, obj.MimeType)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"text", `media type "text" has no '/'`},
		{"text/", "the subtype is empty"},
		{"/plain", "the type is empty"},
		{"te xt/plain", `the type has ' '`},
		{"text/plain\nx", `media type has '\n' at byte 11`},
		{"text/pläin", "printable ASCII only"},
		{".text/plain", "starts with '.'"},
		{"text/plain;", "no parameter after it"},
		{"text/plain; charset", "malformed parameters"},
		{"text/" + strings.Repeat("a", 300), "media type is 305 bytes long; the limit is 255"},
	} {
		_, _, err := s.Put(context.Background(), strings.NewReader("x"), tc.in)
		var me *MediaTypeError
		if !errors.Is(err, ErrInvalidMediaType) || !errors.As(err, &me) || me.MediaType != tc.in {
			t.Errorf("Put with media type %q: %v, want a MediaTypeError", tc.in, err)
			continue
		}
		if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("media type %q: message %q does not say %q", tc.in, err, tc.want)
		}
	}
	assertNoTemps(t, dir)
}

func TestNotFound(t *testing.T) {
	s, _ := openStore(t, nil)
	h := Sum([]byte("never stored"))
	if _, err := s.Stat(context.Background(), h); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), h.String()) {
		t.Errorf("Stat = %v, want ErrNotFound naming the hash", err)
	}
	if _, _, err := s.ReadRange(context.Background(), h, 0, 1); !errors.Is(err, ErrNotFound) {
		t.Errorf("ReadRange = %v, want ErrNotFound", err)
	}
	if _, _, err := s.Open(context.Background(), h); !errors.Is(err, ErrNotFound) {
		t.Errorf("OpenObject = %v, want ErrNotFound", err)
	}
}

func TestObjectNotARegularFile(t *testing.T) {
	s, dir := openStore(t, nil)
	h := Sum([]byte("a directory in its place"))
	name := h.String()
	if err := os.MkdirAll(filepath.Join(dir, objectsDir, name[:2], name), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Stat(context.Background(), h); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("Stat of a directory = %v, want an error", err)
	}
	if _, _, err := s.ReadRange(context.Background(), h, 0, 1); err == nil || errors.Is(err, ErrNotFound) {
		t.Errorf("ReadRange of a directory = %v, want an error", err)
	}
}

func TestMissingSidecar(t *testing.T) {
	s, dir := openStore(t, nil)
	obj, _ := put(t, s, "content", "text/plain")
	meta := s.sidecarPath(obj.Hash)
	if err := os.Remove(meta); err != nil {
		t.Fatal(err)
	}
	mtime := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	if err := os.Chtimes(s.objectPath(obj.Hash), mtime, mtime); err != nil {
		t.Fatal(err)
	}

	got, err := s.Stat(context.Background(), obj.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if got.MimeType != DefaultMediaType || !got.StoredAt.Equal(mtime) || got.Size != obj.Size {
		t.Errorf("object without a sidecar = %+v, want %s stored at %v", got, DefaultMediaType, mtime)
	}

	// Storing the content again completes the object with the new media type and the time
	// the bytes landed.
	again, existed := put(t, s, "content", "text/markdown")
	if !existed || again.MimeType != "text/markdown" || !again.StoredAt.Equal(mtime) {
		t.Errorf("Put after a lost sidecar = %+v, existed %v", again, existed)
	}
	if got, _ := s.Stat(context.Background(), obj.Hash); got != again {
		t.Errorf("Stat = %+v, want %+v", got, again)
	}
	assertNoTemps(t, dir)
}

// TestSidecarWithoutObject: a sidecar left without its object (a crash before the directory
// was synced placed only the sidecar) is kept by the next Put of the content, which places the
// object beside it; a corrupt one is replaced.
func TestSidecarWithoutObject(t *testing.T) {
	for _, tc := range []struct {
		name, sidecar, want string
	}{
		{"parses", string(formatSidecar("text/markdown", time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC))), "text/markdown"},
		{"corrupt", "not a sidecar", "text/plain"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, dir := openStore(t, nil)
			h := Sum([]byte("content"))
			if err := os.MkdirAll(filepath.Dir(s.sidecarPath(h)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(s.sidecarPath(h), []byte(tc.sidecar), 0o444); err != nil {
				t.Fatal(err)
			}
			obj, existed := put(t, s, "content", "text/plain")
			if existed || obj.MimeType != tc.want || obj.Size != 7 {
				t.Errorf("Put beside a sidecar that %s = %+v, existed %v; want a new object of %s", tc.name, obj, existed, tc.want)
			}
			if got, err := s.Stat(context.Background(), h); err != nil || got != obj {
				t.Errorf("Stat = %+v, %v; want %+v", got, err, obj)
			}
			assertNoTemps(t, dir)
		})
	}
}

func TestCorruptSidecar(t *testing.T) {
	s, dir := openStore(t, nil)
	obj, _ := put(t, s, "content", "text/plain")
	meta := s.sidecarPath(obj.Hash)
	if err := os.Chmod(meta, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, garbage := range []string{"", "nonsense", "hoot-cas-meta 1\nmime-type text/plain\n", strings.Repeat("x", 5000)} {
		if err := os.WriteFile(meta, []byte(garbage), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := s.Stat(context.Background(), obj.Hash)
		if err != nil {
			t.Fatalf("Stat with sidecar %q: %v", garbage, err)
		}
		if got.MimeType != DefaultMediaType || got.Size != obj.Size {
			t.Errorf("object with sidecar %q = %+v", garbage, got)
		}
		if b, _, err := s.ReadRange(context.Background(), obj.Hash, 0, 100); err != nil || string(b) != "content" {
			t.Errorf("ReadRange = %q, %v", b, err)
		}
	}
	again, existed := put(t, s, "content", "text/markdown")
	if !existed || again.MimeType != "text/markdown" {
		t.Errorf("Put over a corrupt sidecar = %+v, existed %v", again, existed)
	}
	assertNoTemps(t, dir)
}

func TestOpenCleansTemps(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenDir(dir, &Options{Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	obj, _ := put(t, s, "kept", "text/plain")

	tmp := filepath.Join(dir, tmpDir)
	old := time.Now().Add(-2 * time.Hour)
	for _, name := range []string{"object-123", "meta-456"} {
		path := filepath.Join(tmp, name)
		if err := os.WriteFile(path, []byte("half an object"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	fresh := filepath.Join(tmp, "object-789")
	if err := os.WriteFile(fresh, []byte("being written by another store"), 0o600); err != nil {
		t.Fatal(err)
	}

	s, err = OpenDir(dir, &Options{Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 1 || entries[0].Name() != "object-789" {
		t.Errorf("tmp/ after Open holds %v, want only the fresh file", entries)
	}
	if got, err := s.Stat(context.Background(), obj.Hash); err != nil || got != obj {
		t.Errorf("object after reopening = %+v, %v", got, err)
	}

	// A shorter StaleTempAge removes the fresh file too, once it is older than that.
	second := time.Now().Add(-time.Second)
	if err := os.Chtimes(fresh, second, second); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDir(dir, &Options{StaleTempAge: time.Millisecond, Logger: quietLogger}); err != nil {
		t.Fatal(err)
	}
	assertNoTemps(t, dir)
}

func TestCleanTemps(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenDir(dir, &Options{Logger: quietLogger})
	if err != nil {
		t.Fatal(err)
	}
	tmp := filepath.Join(dir, tmpDir)
	old := time.Now().Add(-2 * time.Hour)
	for name, content := range map[string]string{"object-1": "12345", "object-2": "1234567"} {
		path := filepath.Join(tmp, name)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(tmp, "object-3"), []byte("being written"), 0o600); err != nil {
		t.Fatal(err)
	}
	cutoff := time.Now().Add(-time.Hour)
	files, bytes, err := s.CleanTemps(context.Background(), cutoff, true)
	if err != nil || files != 2 || bytes != 12 {
		t.Errorf("dry run = %d files, %d bytes, %v; want 2 files, 12 bytes", files, bytes, err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 3 {
		t.Errorf("a dry run removed files: tmp/ holds %d", len(entries))
	}
	files, bytes, err = s.CleanTemps(context.Background(), cutoff, false)
	if err != nil || files != 2 || bytes != 12 {
		t.Errorf("CleanTemps = %d files, %d bytes, %v; want 2 files, 12 bytes", files, bytes, err)
	}
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 || entries[0].Name() != "object-3" {
		t.Errorf("tmp/ after CleanTemps holds %v, want only the fresh file", entries)
	}
	if files, _, err := s.CleanTemps(context.Background(), cutoff, false); err != nil || files != 0 {
		t.Errorf("second CleanTemps = %d files, %v; want none", files, err)
	}
}

func TestOpenErrors(t *testing.T) {
	if _, err := OpenDir("", nil); err == nil {
		t.Error("Open(\"\") succeeded")
	}
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenDir(file, nil); err == nil {
		t.Error("Open of a file succeeded")
	}
	if _, err := OpenDir(filepath.Join(file, "below"), nil); err == nil {
		t.Error("Open below a file succeeded")
	}
}

func TestFormatSize(t *testing.T) {
	for n, want := range map[int64]string{
		0:       "0 bytes",
		1:       "1 byte",
		1000:    "1000 bytes",
		1024:    "1 KiB (1024 bytes)",
		1 << 20: "1 MiB (1048576 bytes)",
		3 << 30: "3 GiB (3221225472 bytes)",
	} {
		if got := FormatSize(n); got != want {
			t.Errorf("FormatSize(%d) = %q, want %q", n, got, want)
		}
	}
}

func BenchmarkPut(b *testing.B) {
	s, err := OpenDir(b.TempDir(), &Options{Logger: quietLogger})
	if err != nil {
		b.Fatal(err)
	}
	content := bytes.Repeat([]byte("benchmark "), 10000)
	b.SetBytes(int64(len(content)))
	for i := 0; b.Loop(); i++ {
		copy(content, fmt.Sprintf("%020d", i))
		if _, _, err := s.Put(context.Background(), bytes.NewReader(content), "text/plain"); err != nil {
			b.Fatal(err)
		}
	}
}
