package cas

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

const (
	// DefaultStaleTempAge is how long a temporary file may go unmodified before [OpenDir] removes
	// it as left over by a crash, unless told otherwise.
	DefaultStaleTempAge = time.Hour

	objectsDir    = "objects"
	tmpDir        = "tmp"
	sidecarSuffix = ".meta"
	copyBufSize   = 64 << 10
)

// A Dir is a content-addressed store in a directory, the default [Store]. Its methods are safe
// for concurrent use.
//
// # Layout
//
//	objects/ab/ab12…ef        the bytes of the object whose hash is ab12…ef (read-only, 0444)
//	objects/ab/ab12…ef.meta   its sidecar: media type and stored time (see below)
//	tmp/                      files being written; on the same filesystem as objects/
//
// Objects are sharded by the first two hex digits of their hash. A sidecar is three lines:
//
//	hoot-cas-meta 1
//	mime-type text/plain; charset=utf-8
//	stored-at 2026-01-02T03:04:05.123456789Z
//
// # Durability
//
// [Dir.Put] streams content into a temporary file in tmp/ while hashing it, then syncs the
// file while it writes and syncs the sidecar's in tmp/ too (two syncs at once cost about
// one), links the object into place with a name that is its hash (never replacing an
// existing object), places the sidecar beside it, and syncs the directory once for both. Put
// returns after that sync. A crash at any moment leaves the whole object or none of it. A
// crash before the directory's sync may leave an object without a sidecar, which reads as
// [DefaultMediaType] stored at the file's modification time until the next Put of the same
// content writes the sidecar, or a sidecar without an object, which the next Put of that
// content keeps.
//
// Several stores, in one process or several, may share a directory. Temporary files left by a
// crash are removed by [OpenDir] once they are older than [Options.StaleTempAge], so that
// opening a store never removes a file that another writer is still writing.
type Dir struct {
	dir     string
	objects string
	tmp     string
	maxSize int64
	log     *slog.Logger
	now     func() time.Time
	// locks serialize the commits of objects whose hashes share a first byte, so that writers
	// of the same content in this process agree on its metadata.
	locks [256]sync.Mutex
}

// OpenDir opens the store in dir, creating the directory and its layout if needed, and removes
// temporary files left over by a crash (those unmodified for opts.StaleTempAge).
func OpenDir(dir string, opts *Options) (*Dir, error) {
	if dir == "" {
		return nil, errors.New("cas: no store directory given")
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxObjectSize <= 0 {
		o.MaxObjectSize = DefaultMaxObjectSize
	}
	if o.StaleTempAge <= 0 {
		o.StaleTempAge = DefaultStaleTempAge
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s := &Dir{
		dir:     dir,
		objects: filepath.Join(dir, objectsDir),
		tmp:     filepath.Join(dir, tmpDir),
		maxSize: o.MaxObjectSize,
		log:     o.Logger,
		now:     o.Now,
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cas: creating the store: %w", err)
	}
	for _, d := range []string{s.objects, s.tmp} {
		created, err := mkdir(d)
		if err != nil {
			return nil, fmt.Errorf("cas: creating the store: %w", err)
		}
		if created {
			if err := syncDir(dir); err != nil {
				return nil, fmt.Errorf("cas: creating the store: %w", err)
			}
		}
	}
	removed, _, err := s.CleanTemps(context.Background(), time.Now().Add(-o.StaleTempAge), false)
	if err != nil {
		return nil, err
	}
	if removed > 0 {
		s.log.Info("cas: removed temporary files left over by an earlier run", "count", removed)
	}
	return s, nil
}

// MaxObjectSize returns the largest object Put takes, in bytes.
func (s *Dir) MaxObjectSize() int64 { return s.maxSize }

// String returns the store's directory.
func (s *Dir) String() string { return s.dir }

// Remove removes the object h and its sidecar, if they are there. The sidecar goes first: a
// crash in between leaves an object without a sidecar, which reads as it would after a crash
// in Put, rather than a sidecar that would give its media type to the next Put of the content.
func (s *Dir) Remove(_ context.Context, h Hash) error {
	mu := &s.locks[h[0]]
	mu.Lock()
	defer mu.Unlock()
	for _, path := range []string{s.sidecarPath(h), s.objectPath(h)} {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("cas: removing %s: %w", h, err)
		}
	}
	if err := syncDir(filepath.Dir(s.objectPath(h))); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("cas: removing %s: %w", h, err)
	}
	return nil
}

// CleanTemps removes the files in tmp/ last modified before cutoff, and returns how many there
// were and their bytes; with dryRun it only counts them. A file modified since cutoff may be a
// Put in progress, in this process or another, and is left alone. See [TempCleaner].
func (s *Dir) CleanTemps(ctx context.Context, cutoff time.Time, dryRun bool) (files, bytes int64, err error) {
	entries, err := os.ReadDir(s.tmp)
	if err != nil {
		return 0, 0, fmt.Errorf("cas: cleaning temporary files: %w", err)
	}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return files, bytes, err
		}
		info, err := e.Info()
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return files, bytes, fmt.Errorf("cas: cleaning temporary files: %w", err)
		}
		if info.IsDir() || !info.ModTime().Before(cutoff) {
			continue
		}
		if !dryRun {
			err := os.Remove(filepath.Join(s.tmp, e.Name()))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil {
				return files, bytes, fmt.Errorf("cas: cleaning temporary files: %w", err)
			}
		}
		files++
		bytes += info.Size()
	}
	return files, bytes, nil
}

// Put stores the content that r yields with the media type mimeType ("" means
// [DefaultMediaType]) and returns the object. It streams: the content is hashed as it is
// written to a temporary file and never held in memory whole.
//
// Objects are written once. When the object is already stored, its bytes and metadata are
// kept as they are (mimeType is not recorded) and existed is true; the Object returned always
// carries the recorded metadata. Only an object whose sidecar is missing (a crash came between
// the two) or unreadable gets a new one, recording mimeType and the file's modification time.
//
// Content larger than [Dir.MaxObjectSize] gives a [*TooLargeError]; a malformed media type a
// [*MediaTypeError]; a failing r or a done ctx an error that wraps theirs. On any error
// nothing of the content is kept.
func (s *Dir) Put(ctx context.Context, r io.Reader, mimeType string) (obj Object, existed bool, err error) {
	mimeType, err = beginPut(ctx, mimeType)
	if err != nil {
		return Object{}, false, err
	}
	tmp, err := os.CreateTemp(s.tmp, "object-*")
	if err != nil {
		return Object{}, false, fmt.Errorf("cas: creating a temporary file: %w", err)
	}
	tmpName := tmp.Name()
	defer func() {
		// The temporary file never outlives Put: linked into place, it is an object; if not,
		// it is nothing.
		tmp.Close()
		os.Remove(tmpName)
	}()

	hasher := sha256.New()
	size, err := copyLimited(ctx, io.MultiWriter(tmp, hasher), r, s.maxSize)
	if err != nil {
		return Object{}, false, err
	}
	var h Hash
	hasher.Sum(h[:0])

	mu := &s.locks[h[0]]
	mu.Lock()
	defer mu.Unlock()

	path := s.objectPath(h)
	if _, err := os.Lstat(path); err == nil {
		existed = true
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Object{}, false, fmt.Errorf("cas: looking for %s: %w", h, err)
	} else {
		var recorded Object
		existed, recorded, err = s.commit(tmp, h, mimeType, s.now())
		if err != nil {
			return Object{}, false, fmt.Errorf("cas: storing %s: %w", h, err)
		}
		if !existed {
			// What commit placed is what Stat would read back.
			recorded.Hash, recorded.Size = h, size
			return recorded, false, nil
		}
	}
	if existed {
		// Only a missing or unreadable sidecar is written now: the time the bytes landed
		// is the best record of when the object was stored.
		storedAt := s.now()
		if info, err := os.Lstat(path); err == nil {
			storedAt = info.ModTime()
		}
		if err := s.ensureSidecar(h, mimeType, storedAt); err != nil {
			return Object{}, false, fmt.Errorf("cas: recording the metadata of %s: %w", h, err)
		}
	}
	obj, err = s.Stat(ctx, h)
	if err != nil {
		return Object{}, false, err
	}
	if obj.Size != size {
		return Object{}, false, fmt.Errorf("cas: stored object %s has %d bytes; %d were written", h, obj.Size, size)
	}
	return obj, existed, nil
}

// copyBufs holds the buffers of copyLimited, so that each Put does not leave 64 KiB for the
// garbage collector.
var copyBufs = sync.Pool{New: func() any { b := make([]byte, copyBufSize); return &b }}

// copyLimited copies r to w until r ends, failing once more than limit bytes have come or ctx
// is done. It returns the number of bytes copied.
func copyLimited(ctx context.Context, w io.Writer, r io.Reader, limit int64) (int64, error) {
	bp := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(bp)
	buf := *bp
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		nr, rerr := r.Read(buf)
		if nr > 0 {
			if n+int64(nr) > limit {
				return n, &TooLargeError{Limit: limit}
			}
			if _, err := w.Write(buf[:nr]); err != nil {
				return n, fmt.Errorf("cas: writing a temporary copy: %w", err)
			}
			n += int64(nr)
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, fmt.Errorf("cas: reading the content: %w", rerr)
		}
	}
}

// commit makes the written temporary file tmp the object h, with a sidecar recording mimeType
// and storedAt: it syncs the file while a sidecar's file is written and synced beside it (the
// two syncs at once cost about one), makes it read-only, links it into place without
// replacing an existing file, places the sidecar unless one that parses is there, and syncs
// the directory once for both. It reports whether an object was already there; then nothing
// of this Put is placed. Otherwise it returns the media type and stored time the sidecar beside
// the object now records: mimeType and storedAt, or those of a sidecar that was there already.
func (s *Dir) commit(tmp *os.File, h Hash, mimeType string, storedAt time.Time) (existed bool, recorded Object, err error) {
	path, sidecar := s.objectPath(h), s.sidecarPath(h)
	type written struct {
		name string
		err  error
	}
	side := make(chan written, 1)
	go func() {
		name, err := s.writeTemp("meta-*", formatSidecar(mimeType, storedAt))
		side <- written{name, err}
	}()
	objErr := tmp.Chmod(0o444)
	if objErr == nil {
		objErr = tmp.Sync()
	}
	if cerr := tmp.Close(); objErr == nil {
		objErr = cerr
	}
	meta := <-side
	if meta.name != "" {
		defer os.Remove(meta.name)
	}
	if objErr != nil {
		return false, Object{}, objErr
	}
	if meta.err != nil {
		return false, Object{}, meta.err
	}
	dir := filepath.Dir(path)
	created, err := mkdir(dir)
	if err != nil {
		return false, Object{}, err
	}
	if created {
		if err := syncDir(s.objects); err != nil {
			return false, Object{}, err
		}
	}
	existed, err = placeNew(tmp.Name(), path)
	if err != nil || existed {
		return existed, Object{}, err
	}
	// The time as the sidecar records it, and as parsing it gives it back.
	recorded = Object{MimeType: mimeType, StoredAt: storedAt.UTC().Round(0)}
	// A sidecar may be there without its object: placed by a Put that a crash stopped
	// before the directory was synced. One that parses stands, as ensureSidecar keeps one.
	switch mt, at, err := s.readSidecar(sidecar); {
	case err == nil:
		recorded.MimeType, recorded.StoredAt = mt, at
	case errors.Is(err, fs.ErrNotExist):
		taken, err := placeNew(meta.name, sidecar)
		if err != nil {
			return false, Object{}, err
		}
		if taken {
			// Another process's Put of the same content placed one since: what reads back
			// is its record.
			info, err := os.Lstat(path)
			if err != nil {
				return false, Object{}, err
			}
			if recorded, err = s.object(h, info); err != nil {
				return false, Object{}, err
			}
		}
	case errors.Is(err, errCorruptSidecar):
		if err := os.Rename(meta.name, sidecar); err != nil {
			return false, Object{}, err
		}
	default:
		return false, Object{}, err
	}
	return false, recorded, syncDir(dir)
}

// writeTemp writes b to a new read-only file in tmp/ named by pattern, synced and closed, and
// returns its name. On an error nothing is left.
func (s *Dir) writeTemp(pattern string, b []byte) (string, error) {
	f, err := os.CreateTemp(s.tmp, pattern)
	if err != nil {
		return "", err
	}
	err = func() error {
		if _, err := f.Write(b); err != nil {
			return err
		}
		if err := f.Chmod(0o444); err != nil {
			return err
		}
		return f.Sync()
	}()
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// ensureSidecar writes the sidecar of h, recording mimeType and storedAt, unless h has a
// sidecar that parses. A sidecar that does not parse is replaced.
func (s *Dir) ensureSidecar(h Hash, mimeType string, storedAt time.Time) error {
	path := s.sidecarPath(h)
	replace := false
	switch _, _, err := s.readSidecar(path); {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
	case errors.Is(err, errCorruptSidecar):
		replace = true
	default:
		return err
	}
	name, err := s.writeTemp("meta-*", formatSidecar(mimeType, storedAt))
	if err != nil {
		return err
	}
	defer os.Remove(name)
	if replace {
		if err := os.Rename(name, path); err != nil {
			return err
		}
	} else if existed, err := placeNew(name, path); err != nil || existed {
		// A sidecar that another writer placed first is as good as ours.
		return err
	}
	return syncDir(filepath.Dir(path))
}

// errCorruptSidecar marks a sidecar that exists but does not parse.
var errCorruptSidecar = errors.New("corrupt sidecar")

// readSidecar reads and parses the sidecar at path. A sidecar that does not parse gives an
// error that matches errCorruptSidecar; a missing one an error that matches fs.ErrNotExist.
func (s *Dir) readSidecar(path string) (string, time.Time, error) {
	b, err := readSmallFile(path, maxSidecarSize)
	if err != nil {
		return "", time.Time{}, err
	}
	mimeType, storedAt, err := parseSidecar(b)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("%w: %w", errCorruptSidecar, err)
	}
	return mimeType, storedAt, nil
}

// Stat returns the object with hash h, or an error that matches [ErrNotFound].
func (s *Dir) Stat(_ context.Context, h Hash) (Object, error) {
	info, err := os.Lstat(s.objectPath(h))
	if err != nil {
		return Object{}, s.openError(h, err)
	}
	return s.object(h, info)
}

// Open opens the object with hash h for reading and returns it with its metadata. The caller
// closes it. A missing object gives an error that matches [ErrNotFound].
func (s *Dir) Open(_ context.Context, h Hash) (io.ReadSeekCloser, Object, error) {
	f, obj, err := s.open(h)
	if err != nil {
		return nil, Object{}, err
	}
	return f, obj, nil
}

// ReadRange returns up to length bytes of the object with hash h, starting at offset, and the
// object. It returns fewer bytes when the object ends first, and none when offset is its size.
// An offset past the end gives a [*RangeError] that holds the object's size; a missing object
// an error that matches [ErrNotFound].
func (s *Dir) ReadRange(_ context.Context, h Hash, offset int64, length int) ([]byte, Object, error) {
	if offset < 0 {
		return nil, Object{}, fmt.Errorf("%w: offset %d is negative", ErrOutOfRange, offset)
	}
	if length < 0 {
		return nil, Object{}, fmt.Errorf("%w: length %d is negative", ErrOutOfRange, length)
	}
	f, obj, err := s.open(h)
	if err != nil {
		return nil, Object{}, err
	}
	defer f.Close()
	if offset > obj.Size {
		return nil, obj, &RangeError{Offset: offset, Size: obj.Size}
	}
	buf := make([]byte, min(int64(length), obj.Size-offset))
	n, err := f.ReadAt(buf, offset)
	if n == len(buf) {
		return buf, obj, nil
	}
	if err == io.EOF {
		err = io.ErrUnexpectedEOF
	}
	return nil, Object{}, fmt.Errorf("cas: reading %s: %w", h, err)
}

// open opens the object with hash h and returns the file with the object.
func (s *Dir) open(h Hash) (*os.File, Object, error) {
	f, err := openReadOnly(s.objectPath(h))
	if err != nil {
		return nil, Object{}, s.openError(h, err)
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, Object{}, fmt.Errorf("cas: reading %s: %w", h, err)
	}
	obj, err := s.object(h, info)
	if err != nil {
		f.Close()
		return nil, Object{}, err
	}
	return f, obj, nil
}

// openError turns an error from opening the object h into the store's error.
func (s *Dir) openError(h Hash, err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w: %s", ErrNotFound, h)
	}
	return fmt.Errorf("cas: reading %s: %w", h, err)
}

// object returns the object h whose file is described by info, with the metadata its sidecar
// records, or, without a readable sidecar, DefaultMediaType and the file's modification time.
func (s *Dir) object(h Hash, info fs.FileInfo) (Object, error) {
	if !info.Mode().IsRegular() {
		return Object{}, fmt.Errorf("cas: object %s is not a regular file", h)
	}
	obj := Object{Hash: h, Size: info.Size()}
	mimeType, storedAt, err := s.readSidecar(s.sidecarPath(h))
	switch {
	case err == nil:
		obj.MimeType, obj.StoredAt = mimeType, storedAt
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, errCorruptSidecar):
		if !errors.Is(err, fs.ErrNotExist) {
			s.log.Warn("cas: ignoring an unreadable sidecar", "hash", h.String(), "err", err)
		}
		obj.MimeType, obj.StoredAt = DefaultMediaType, info.ModTime().UTC()
	default:
		return Object{}, fmt.Errorf("cas: reading the metadata of %s: %w", h, err)
	}
	return obj, nil
}

// objectPath returns the path of the object h.
func (s *Dir) objectPath(h Hash) string {
	name := h.String()
	return filepath.Join(s.objects, name[:2], name)
}

// sidecarPath returns the path of the sidecar of the object h.
func (s *Dir) sidecarPath(h Hash) string { return s.objectPath(h) + sidecarSuffix }

// placeNew gives the file at tmp the name path unless path exists, and reports whether it
// existed. It links rather than renames so that an existing file is never replaced; on a
// filesystem without hard links it falls back to a rename after checking that path is free.
// The file stays at tmp too; the caller removes it.
func placeNew(tmp, path string) (existed bool, err error) {
	err = os.Link(tmp, path)
	if err == nil {
		return false, nil
	}
	if errors.Is(err, fs.ErrExist) {
		return true, nil
	}
	if _, serr := os.Lstat(path); serr == nil {
		return true, nil
	}
	if !linkUnsupported(err) {
		return false, err
	}
	if err := os.Rename(tmp, path); err != nil {
		return false, err
	}
	return false, nil
}

// linkUnsupported reports whether err says the filesystem cannot make hard links.
func linkUnsupported(err error) bool {
	return errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.ENOTSUP) ||
		errors.Is(err, syscall.EOPNOTSUPP) || errors.Is(err, syscall.EXDEV) || errors.Is(err, syscall.EMLINK)
}

// mkdir creates dir unless it exists and reports whether it created it.
func mkdir(dir string) (bool, error) {
	err := os.Mkdir(dir, 0o755)
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrExist) {
		if info, serr := os.Stat(dir); serr == nil && info.IsDir() {
			return false, nil
		}
	}
	return false, err
}

// syncDir flushes the entries of the directory dir to stable storage.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if errors.Is(err, syscall.EINVAL) {
		// Some platforms and filesystems cannot sync a directory; there is nothing more to do.
		return nil
	}
	return err
}
