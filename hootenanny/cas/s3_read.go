package cas

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Open returns a reader of the object h that asks the server for bytes only when it is read:
// a read at another place than the last read ended sends one GET for the range from there to
// the end, and the reader reads on from it. Its reads use ctx. See [Store].
func (s *S3) Open(ctx context.Context, h Hash) (io.ReadSeekCloser, Object, error) {
	obj, err := s.Stat(ctx, h)
	if err != nil {
		return nil, Object{}, err
	}
	return &s3Reader{s: s, ctx: ctx, h: h, size: obj.Size}, obj, nil
}

// OpenStream sends the GET of the whole object h at once and takes the object's metadata from
// its answer: one request where Open sends two (a HEAD, then the GET at the first read). The
// reader reads on from that GET as long as it is read in order; a read elsewhere after a seek
// sends a GET of its own, as Open's reader does. See [Streamer].
func (s *S3) OpenStream(ctx context.Context, h Hash) (io.ReadSeekCloser, Object, error) {
	out, err := s.get(ctx, h, 0, -1)
	if err != nil {
		return nil, Object{}, s.fail("reading", h, err)
	}
	_, size, err := s.rangeOf(h, out)
	if err != nil {
		out.Body.Close()
		return nil, Object{}, err
	}
	obj, err := s.object(h, size, aws.ToString(out.ContentType), out.Metadata, out.LastModified)
	if err != nil {
		out.Body.Close()
		return nil, Object{}, err
	}
	return &s3Reader{s: s, ctx: ctx, h: h, size: size, body: out.Body}, obj, nil
}

// ReadRange returns up to length bytes of the object h from offset on, with one ranged GET;
// see [Store].
func (s *S3) ReadRange(ctx context.Context, h Hash, offset int64, length int) ([]byte, Object, error) {
	if offset < 0 {
		return nil, Object{}, fmt.Errorf("%w: offset %d is negative", ErrOutOfRange, offset)
	}
	if length < 0 {
		return nil, Object{}, fmt.Errorf("%w: length %d is negative", ErrOutOfRange, length)
	}
	emptyAt := func() ([]byte, Object, error) {
		obj, err := s.Stat(ctx, h)
		if err != nil {
			return nil, Object{}, err
		}
		if offset > obj.Size {
			return nil, obj, &RangeError{Offset: offset, Size: obj.Size}
		}
		return []byte{}, obj, nil
	}
	if length == 0 {
		return emptyAt()
	}
	out, err := s.get(ctx, h, offset, offset+int64(length)-1)
	if statusOf(err) == http.StatusRequestedRangeNotSatisfiable {
		// The range starts at or past the end: where exactly, the object's size says.
		return emptyAt()
	}
	if err != nil {
		return nil, Object{}, s.fail("reading", h, err)
	}
	defer out.Body.Close()
	start, size, err := s.rangeOf(h, out)
	if err != nil {
		return nil, Object{}, err
	}
	obj, err := s.object(h, size, aws.ToString(out.ContentType), out.Metadata, out.LastModified)
	if err != nil {
		return nil, Object{}, err
	}
	if offset > size {
		return nil, obj, &RangeError{Offset: offset, Size: size}
	}
	if _, err := io.CopyN(io.Discard, out.Body, offset-start); err != nil {
		return nil, Object{}, s.fail("reading", h, err)
	}
	buf := make([]byte, min(int64(length), size-offset))
	if _, err := io.ReadFull(out.Body, buf); err != nil {
		return nil, Object{}, s.fail("reading", h, err)
	}
	return buf, obj, nil
}

// get sends a GET for the bytes first to last of the object h; last < 0 means to its end.
func (s *S3) get(ctx context.Context, h Hash, first, last int64) (*s3.GetObjectOutput, error) {
	in := &s3.GetObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.key(h))}
	switch {
	case last >= 0:
		in.Range = aws.String(fmt.Sprintf("bytes=%d-%d", first, last))
	case first > 0:
		in.Range = aws.String(fmt.Sprintf("bytes=%d-", first))
	}
	return s.client.GetObject(ctx, in)
}

// rangeOf returns where the body of a GET of the object h starts in the object, and the
// object's size: from Content-Range for a part, from the length for the whole object (a
// server may answer a ranged GET with all of it).
func (s *S3) rangeOf(h Hash, out *s3.GetObjectOutput) (start, size int64, err error) {
	cr := aws.ToString(out.ContentRange)
	if cr == "" {
		n := aws.ToInt64(out.ContentLength)
		if n < 0 {
			return 0, 0, fmt.Errorf("cas: %s: the server gave object %s no length", s.url, h)
		}
		return 0, n, nil
	}
	// bytes FIRST-LAST/SIZE
	spec, total, ok := strings.Cut(strings.TrimPrefix(cr, "bytes "), "/")
	first, _, ok2 := strings.Cut(spec, "-")
	start, err1 := strconv.ParseInt(first, 10, 64)
	size, err2 := strconv.ParseInt(total, 10, 64)
	if !ok || !ok2 || err1 != nil || err2 != nil || start < 0 || size < 0 || start > size {
		return 0, 0, fmt.Errorf("cas: %s: the server answered a read of %s with the malformed Content-Range %q", s.url, h, truncate(cr, 80))
	}
	return start, size, nil
}

// Verify reads the whole object h and checks that its bytes hash to h; see [Store].
func (s *S3) Verify(ctx context.Context, h Hash) (int64, error) {
	out, err := s.get(ctx, h, 0, -1)
	if err != nil {
		return 0, s.fail("reading", h, err)
	}
	defer out.Body.Close()
	hasher := sha256.New()
	n, err := io.Copy(hasher, out.Body)
	if err != nil {
		return n, s.fail("reading", h, err)
	}
	if want := aws.ToInt64(out.ContentLength); want >= 0 && n != want {
		return n, s.fail("reading", h, fmt.Errorf("the server sent %d of %d bytes: %w", n, want, io.ErrUnexpectedEOF))
	}
	var got Hash
	hasher.Sum(got[:0])
	if got != h {
		return n, &CorruptError{Hash: h, Got: got}
	}
	return n, nil
}

// Walk calls fn with the hash of every object, in the order of their hashes; see [Store].
// Keys under the prefix that are not objects are skipped.
func (s *S3) Walk(ctx context.Context, fn func(h Hash) error) error {
	return s.list(ctx, func(h Hash, _ int64) error { return fn(h) })
}

// Stats returns how many objects the store holds and their size in bytes; see [Store].
//
// Counting lists the whole prefix, a page per thousand objects, so a count is kept for
// [statsFresh] and given out again while this store has added or removed nothing: a caller
// that asks in a loop costs one listing a minute, and calls at once share one listing. What
// other processes store meanwhile shows within the minute.
func (s *S3) Stats(ctx context.Context) (objects, bytes int64, err error) {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	changes := s.changes.Load()
	if !s.stats.at.IsZero() && time.Since(s.stats.at) < statsFresh && s.stats.changes == changes {
		return s.stats.objects, s.stats.bytes, nil
	}
	err = s.list(ctx, func(_ Hash, size int64) error {
		objects++
		bytes += size
		return nil
	})
	if err == nil {
		s.stats = s3Stats{objects: objects, bytes: bytes, at: time.Now(), changes: changes}
	}
	return objects, bytes, err
}

// list calls fn with the hash and size of every object, page by page of the server's listing.
func (s *S3) list(ctx context.Context, fn func(h Hash, size int64) error) error {
	root := s.prefix + objectsDir + "/"
	pages := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: aws.String(s.bucket),
		Prefix: aws.String(root),
	})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			if ctxErr := contextError(err); ctxErr != nil {
				return ctxErr
			}
			if uerr := s.unavailable(err); uerr != nil {
				return uerr
			}
			return fmt.Errorf("cas: listing the objects of %s: %w", s.url, err)
		}
		for _, o := range page.Contents {
			shard, name, ok := strings.Cut(strings.TrimPrefix(aws.ToString(o.Key), root), "/")
			if !ok || len(shard) != 2 || !strings.HasPrefix(name, shard) {
				continue
			}
			h, err := ParseHash(name)
			if err != nil {
				continue
			}
			if err := fn(h, aws.ToInt64(o.Size)); err != nil {
				return err
			}
		}
	}
	return nil
}

// An s3Reader reads an object of an [S3] store with ranged GETs, opened lazily. A seek only
// moves the place of the next read: a caller that seeks to the end to learn the size and back
// (as http.ServeContent does) keeps the GET it is reading from.
type s3Reader struct {
	s    *S3
	ctx  context.Context
	h    Hash
	size int64
	off  int64         // where the next read starts
	body io.ReadCloser // a GET whose next byte is at bodyOff, or nil
	// bodyOff is where body's next byte is in the object.
	bodyOff int64
}

func (r *s3Reader) Read(p []byte) (int, error) {
	if r.off >= r.size {
		return 0, io.EOF
	}
	if r.body != nil && r.bodyOff != r.off {
		r.body.Close()
		r.body = nil
	}
	if r.body == nil {
		out, err := r.s.get(r.ctx, r.h, r.off, -1)
		if err != nil {
			return 0, r.s.fail("reading", r.h, err)
		}
		start, size, err := r.s.rangeOf(r.h, out)
		if err == nil && (start != r.off || size != r.size) {
			err = fmt.Errorf("cas: %s: object %s changed while it was read: it had %d bytes, now %d", r.s.url, r.h, r.size, size)
		}
		if err != nil {
			out.Body.Close()
			return 0, err
		}
		r.body, r.bodyOff = out.Body, r.off
	}
	n, err := io.LimitReader(r.body, r.size-r.off).Read(p)
	r.off += int64(n)
	r.bodyOff = r.off
	switch {
	case err == io.EOF && r.off < r.size:
		err = r.s.fail("reading", r.h, fmt.Errorf("the server sent %d of %d bytes: %w", r.off, r.size, io.ErrUnexpectedEOF))
	case err != nil && err != io.EOF:
		err = r.s.fail("reading", r.h, err)
	case r.off == r.size:
		err = io.EOF
	}
	return n, err
}

func (r *s3Reader) Seek(offset int64, whence int) (int64, error) {
	switch whence {
	case io.SeekStart:
	case io.SeekCurrent:
		offset += r.off
	case io.SeekEnd:
		offset += r.size
	default:
		return 0, errors.New("cas: Seek: invalid whence")
	}
	if offset < 0 {
		return 0, errors.New("cas: Seek: negative position")
	}
	r.off = offset
	return offset, nil
}

func (r *s3Reader) Close() error {
	if r.body != nil {
		err := r.body.Close()
		r.body = nil
		return err
	}
	return nil
}
