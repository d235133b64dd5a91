package cas

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrCorrupt reports an object whose bytes no longer hash to its address; the error is a
// [*CorruptError].
var ErrCorrupt = errors.New("cas: object is corrupt")

// A CorruptError reports an object whose bytes hash to something other than its address.
type CorruptError struct {
	Hash Hash
	// Got is the hash of the bytes found.
	Got Hash
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("object %s holds bytes whose hash is %s", e.Hash, e.Got)
}

// Is reports whether target is [ErrCorrupt].
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// Walk calls fn with the hash of every object in the store, in the order of their hashes,
// until fn returns an error, which Walk returns. Files in objects/ that are not objects (a
// sidecar, anything else) are skipped.
func (s *Dir) Walk(ctx context.Context, fn func(h Hash) error) error {
	shards, err := os.ReadDir(s.objects)
	if err != nil {
		return fmt.Errorf("cas: listing objects: %w", err)
	}
	for _, shard := range shards {
		if !shard.IsDir() || len(shard.Name()) != 2 {
			continue
		}
		entries, err := os.ReadDir(filepath.Join(s.objects, shard.Name()))
		if err != nil {
			return fmt.Errorf("cas: listing objects: %w", err)
		}
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return err
			}
			name := e.Name()
			if strings.HasSuffix(name, sidecarSuffix) || !strings.HasPrefix(name, shard.Name()) {
				continue
			}
			h, err := ParseHash(name)
			if err != nil {
				continue
			}
			if err := fn(h); err != nil {
				return err
			}
		}
	}
	return nil
}

// Stats returns how many objects the store holds and their size in bytes.
func (s *Dir) Stats(ctx context.Context) (objects, bytes int64, err error) {
	err = s.Walk(ctx, func(h Hash) error {
		info, err := os.Lstat(s.objectPath(h))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		objects++
		bytes += info.Size()
		return nil
	})
	return objects, bytes, err
}

// Verify reads the object h and checks that its bytes hash to h. It returns the object's size;
// a missing object gives an error that matches [ErrNotFound], bytes that do not match a
// [*CorruptError]. It stops early, with ctx's error, when ctx ends.
func (s *Dir) Verify(ctx context.Context, h Hash) (int64, error) {
	f, err := os.Open(s.objectPath(h))
	if err != nil {
		return 0, s.openError(h, err)
	}
	defer f.Close()
	hasher := sha256.New()
	buf := make([]byte, copyBufSize)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := f.Read(buf)
		hasher.Write(buf[:k])
		n += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, fmt.Errorf("cas: reading %s: %w", h, err)
		}
	}
	var got Hash
	hasher.Sum(got[:0])
	if got != h {
		return n, &CorruptError{Hash: h, Got: got}
	}
	return n, nil
}
