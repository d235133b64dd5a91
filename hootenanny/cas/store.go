// Package cas is the content-addressed store: write-once objects addressed by the SHA-256 of
// their bytes, each with a small record of its media type and when it was stored.
//
// # Backends
//
// [Store] is what the rest of the system uses. Two backends implement it:
//
//   - [Dir], a directory on a local filesystem, the default;
//   - [S3], a bucket (and a prefix in it) of S3-compatible object storage, for workers and
//     gateways on several machines that share one store.
//
// [OpenURL] opens either from the text an operator writes: a directory path, or
// s3://bucket/prefix. Both keep the same promises, which the suite in package
// cas/storetest checks against each: an object appears whole and correct at its address or
// not at all, is never replaced, and keeps the media type it was first stored with.
package cas

import (
	"context"
	"io"
	"log/slog"
	"time"
)

// DefaultMaxObjectSize is the largest object a store takes unless told otherwise: 64 MiB.
const DefaultMaxObjectSize int64 = 64 << 20

// A Store keeps write-once objects addressed by their hash. Its methods are safe for concurrent
// use, by several goroutines and by several processes sharing the same store.
//
// Errors match, with [errors.Is], [ErrNotFound] for a missing object, [ErrTooLarge],
// [ErrInvalidMediaType] and [ErrOutOfRange] for what the caller asked, [ErrCorrupt] for bytes
// that no longer hash to their address, and [ErrUnavailable] when the store cannot be reached
// for now (a retry later may succeed). Anything else is a fault of the store.
type Store interface {
	// Put stores the content that r yields with the media type mimeType ("" means
	// [DefaultMediaType]) and returns the object. It streams: the content is never held in
	// memory whole. When the object is already stored it is kept as it is, with the media type
	// it was first stored with, and existed is true. Content larger than MaxObjectSize gives a
	// [*TooLargeError]; on any error nothing of the content is kept.
	Put(ctx context.Context, r io.Reader, mimeType string) (obj Object, existed bool, err error)
	// Stat returns the object with hash h.
	Stat(ctx context.Context, h Hash) (Object, error)
	// Open opens the object with hash h for reading, and seeking, and returns it with its
	// metadata. The caller closes it.
	Open(ctx context.Context, h Hash) (io.ReadSeekCloser, Object, error)
	// ReadRange returns up to length bytes of the object with hash h from offset on, and the
	// object. It returns fewer bytes when the object ends first, and none when offset is its
	// size; an offset past the end gives a [*RangeError] holding the object's size.
	ReadRange(ctx context.Context, h Hash, offset int64, length int) ([]byte, Object, error)
	// Verify reads the object h and checks that its bytes hash to h; it returns the object's
	// size, and a [*CorruptError] when they do not.
	Verify(ctx context.Context, h Hash) (int64, error)
	// Walk calls fn with the hash of every object, in the order of their hashes, until fn
	// returns an error, which Walk returns.
	Walk(ctx context.Context, fn func(h Hash) error) error
	// Stats returns how many objects the store holds and their size in bytes.
	Stats(ctx context.Context) (objects, bytes int64, err error)
	// Remove removes the object h, if it is there. It is for collecting garbage: the caller
	// makes sure nothing names the object, and that no Put of the same content is under way.
	Remove(ctx context.Context, h Hash) error
	// MaxObjectSize returns the largest object Put takes, in bytes.
	MaxObjectSize() int64
	// String returns where the store is, as OpenURL takes it: a directory or s3://bucket/prefix.
	String() string
}

var (
	_ Store    = (*Dir)(nil)
	_ Store    = (*S3)(nil)
	_ Streamer = (*S3)(nil)
)

// A Streamer is a [Store] that opens an object to be read once, from its start to its end, in
// fewer requests than Open takes. [S3] is one: its OpenStream sends the GET that reads the
// object at once and takes the metadata from its answer, where Open asks for the metadata
// first. [Dir] is not: opening a file costs it no request. Callers that may seek before they
// read, or may not read at all (a range, a conditional request), use Open.
type Streamer interface {
	// OpenStream opens the object with hash h already reading it from its start, and returns
	// it with its metadata, as Open does. The caller closes it. It may still be seeked: a read
	// elsewhere than where the last one ended costs a new request.
	OpenStream(ctx context.Context, h Hash) (io.ReadSeekCloser, Object, error)
}

// Options configure a store. The zero value, like a nil *Options, gives the defaults.
type Options struct {
	// MaxObjectSize is the largest object Put takes, in bytes. Zero or less means
	// DefaultMaxObjectSize.
	MaxObjectSize int64
	// StaleTempAge is how long a temporary file of a [Dir] may go unmodified before OpenDir
	// removes it. Zero or less means DefaultStaleTempAge.
	StaleTempAge time.Duration
	// SpoolDir is where an [S3] store keeps the content of a Put while it hashes it, before the
	// upload. Empty means os.TempDir().
	SpoolDir string
	// Logger receives warnings, such as metadata that cannot be parsed. Nil means
	// slog.Default().
	Logger *slog.Logger
	// Now is the store's clock: it gives the time a Put records as an object's StoredAt. Nil
	// means time.Now. Tests set it to store objects that look old.
	Now func() time.Time
}

// A TempCleaner is a [Store] that keeps temporary files of writes in progress, which a crash
// or an interrupted upload may leave behind. [Dir] is one; [S3] writes none and is not.
type TempCleaner interface {
	// CleanTemps removes the temporary files last modified before cutoff and returns how many
	// there were and their bytes. With dryRun it removes nothing and returns what it would
	// remove.
	CleanTemps(ctx context.Context, cutoff time.Time, dryRun bool) (files, bytes int64, err error)
}

var _ TempCleaner = (*Dir)(nil)

// An Object is what the store knows about one stored object.
type Object struct {
	// Hash is the object's address, the SHA-256 of its bytes.
	Hash Hash
	// Size is the object's length in bytes.
	Size int64
	// MimeType is the media type the object was first stored with.
	MimeType string
	// StoredAt is when the object was first stored, in UTC.
	StoredAt time.Time
}

// beginPut checks what every Put checks before it reads the content: the media type (empty
// means DefaultMediaType), and that ctx is not done. It returns the media type to store.
func beginPut(ctx context.Context, mimeType string) (string, error) {
	if mimeType == "" {
		mimeType = DefaultMediaType
	}
	if err := ValidateMediaType(mimeType); err != nil {
		return "", err
	}
	return mimeType, ctx.Err()
}
