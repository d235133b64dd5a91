package cas

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/smithy-go/middleware"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

const (
	// MaxS3ObjectSize is the largest object an [S3] store takes: what one PUT may carry.
	MaxS3ObjectSize int64 = 5 << 30
	// MaxS3PrefixLen is the longest prefix an [S3] store takes, in bytes, which leaves room
	// for the object keys below it within S3's 1024.
	MaxS3PrefixLen = 512

	// metaStoredAt is the user metadata (x-amz-meta-stored-at) that records when an object was
	// stored, in the sidecar's form; the media type is the object's Content-Type.
	metaStoredAt = "stored-at"
	// spoolInMemory is how much of a Put's content is kept in memory before it goes to a file.
	spoolInMemory = 256 << 10
	// putAttempts bounds the uploads of one Put that a server refuses as conflicting with
	// another upload of the same key.
	putAttempts = 3
	// probeTimeout bounds the look at the bucket when a store opens.
	probeTimeout = 15 * time.Second
)

// S3Config says where an [S3] store is.
type S3Config struct {
	// Bucket is the bucket's name.
	Bucket string
	// Prefix is the folder of the store in the bucket, without slashes at either end; empty
	// means the bucket's top.
	Prefix string
	// Endpoint is the server's URL, such as http://127.0.0.1:7070. Empty means the one the
	// environment names (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL), else AWS's own.
	Endpoint string
}

// An S3 is a content-addressed store in a bucket of S3-compatible object storage, under a
// prefix. Its methods are safe for concurrent use, and any number of processes on any number
// of machines may share a store.
//
// # Layout
//
//	PREFIX/objects/ab/ab12…ef   the object whose hash is ab12…ef
//
// The media type is the object's Content-Type, and the time it was stored its metadata
// x-amz-meta-stored-at (RFC 3339, UTC).
//
// # Writing
//
// [S3.Put] copies the content to a spool (in memory up to 256 KiB, then a file in
// [Options.SpoolDir]) while hashing it, so that the limit is checked and the hash known before
// anything is sent. Then it sends one PUT to the object's final key with If-None-Match: * and
// the content's SHA-256 in x-amz-checksum-sha256: the server stores the whole object, checked
// against its hash, or nothing, and never replaces an object that is there (412 Precondition
// Failed says it was). No temporary key and no multipart upload is ever used, so a failed or
// interrupted Put leaves nothing behind to collect.
//
// Credentials, region and endpoint come from the environment as AWS's tools read them
// (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION, AWS_ENDPOINT_URL, AWS_PROFILE). The
// EC2 instance metadata service is never asked, so a machine without credentials fails at once.
// Keys are addressed path-style (http://host/bucket/key), which every S3-compatible server
// takes.
type S3 struct {
	client   *s3.Client
	bucket   string
	prefix   string // ends in "/" unless empty
	url      string
	maxSize  int64
	spoolDir string
	log      *slog.Logger
	now      func() time.Time

	// stats caches the last count of Stats, which lists the whole prefix; changes counts the
	// objects this store has added or removed, which make a count stale.
	statsMu sync.Mutex
	stats   s3Stats
	changes atomic.Int64
}

// s3Stats is one count of the objects under the prefix.
type s3Stats struct {
	objects, bytes int64
	at             time.Time
	changes        int64 // the value of S3.changes when the count began
}

// statsFresh is how long a count of Stats is given out again before the prefix is listed anew.
const statsFresh = time.Minute

// ParseS3URL parses s3://bucket/prefix into the bucket and prefix of an [S3Config]. The
// bucket follows S3's rules for names (3 to 63 lowercase letters, digits, dots and hyphens);
// the prefix is optional, at most [MaxS3PrefixLen] bytes of printable text, without empty, "."
// or ".." folders.
func ParseS3URL(s string) (S3Config, error) {
	const shape = "an S3 store is s3://bucket or s3://bucket/prefix, such as s3://hoot/studio"
	fail := func(format string, args ...any) (S3Config, error) {
		return S3Config{}, fmt.Errorf("cas: %q: %s; %s", s, fmt.Sprintf(format, args...), shape)
	}
	u, err := url.Parse(s)
	if err != nil {
		return fail("not a URL")
	}
	switch {
	case !strings.EqualFold(u.Scheme, "s3"):
		return fail("the scheme is %q, not s3", u.Scheme)
	case u.User != nil:
		return fail("keys do not belong in the URL; set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
	case u.Port() != "":
		return fail("a bucket has no port; set the server in AWS_ENDPOINT_URL, such as http://127.0.0.1:7070")
	case u.RawQuery != "" || u.Fragment != "" || u.ForceQuery:
		return fail("it takes no query or fragment")
	}
	if err := checkBucketName(u.Host); err != "" {
		return fail("the bucket %s", err)
	}
	prefix := strings.Trim(u.Path, "/")
	if len(prefix) > MaxS3PrefixLen {
		return fail("the prefix is %d bytes long; the limit is %d", len(prefix), MaxS3PrefixLen)
	}
	if prefix != "" {
		for _, part := range strings.Split(prefix, "/") {
			if part == "" || part == "." || part == ".." {
				return fail("the prefix has an empty, \".\" or \"..\" folder")
			}
		}
		for i, r := range prefix {
			if r < 0x20 || r == 0x7f || r == '\\' {
				return fail("the prefix has %q at byte %d", r, i+1)
			}
		}
	}
	return S3Config{Bucket: u.Host, Prefix: prefix}, nil
}

// checkBucketName returns what keeps name from being an S3 bucket name, or "".
func checkBucketName(name string) string {
	if name == "" {
		return "is missing"
	}
	if len(name) < 3 || len(name) > 63 {
		return fmt.Sprintf("%q is %d characters long; a bucket name has 3 to 63", name, len(name))
	}
	isAlnum := func(c byte) bool { return c >= 'a' && c <= 'z' || c >= '0' && c <= '9' }
	for i := 0; i < len(name); i++ {
		if c := name[i]; !isAlnum(c) && c != '.' && c != '-' {
			return fmt.Sprintf("%q has %q; a bucket name has lowercase letters, digits, dots and hyphens", name, c)
		}
	}
	if !isAlnum(name[0]) || !isAlnum(name[len(name)-1]) {
		return fmt.Sprintf("%q must start and end with a lowercase letter or digit", name)
	}
	return ""
}

// OpenS3 opens the store that cfg names, with credentials from the environment, and checks
// that the bucket can be reached with them. A bucket that cannot be reached now gives an error
// that matches [ErrUnavailable].
func OpenS3(ctx context.Context, cfg S3Config, opts *Options) (*S3, error) {
	if err := checkBucketName(cfg.Bucket); err != "" {
		return nil, fmt.Errorf("cas: the bucket %s", err)
	}
	cfg.Prefix = strings.Trim(cfg.Prefix, "/")
	s := &S3{bucket: cfg.Bucket, url: "s3://" + cfg.Bucket}
	if cfg.Prefix != "" {
		if _, err := ParseS3URL("s3://" + cfg.Bucket + "/" + cfg.Prefix); err != nil {
			return nil, err
		}
		s.prefix = cfg.Prefix + "/"
		s.url += "/" + cfg.Prefix
	}
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.MaxObjectSize <= 0 {
		o.MaxObjectSize = DefaultMaxObjectSize
	}
	if o.MaxObjectSize > MaxS3ObjectSize {
		return nil, fmt.Errorf("cas: %s: the largest object is to be %s, but S3 takes at most %s in one PUT; lower the limit",
			s.url, FormatSize(o.MaxObjectSize), FormatSize(MaxS3ObjectSize))
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	s.maxSize, s.spoolDir, s.log, s.now = o.MaxObjectSize, o.SpoolDir, o.Logger, o.Now

	httpClient := awshttp.NewBuildableClient().
		WithDialerOptions(func(d *net.Dialer) { d.Timeout = 5 * time.Second }).
		WithTransportOptions(func(t *http.Transport) {
			t.ResponseHeaderTimeout = 60 * time.Second
			t.MaxIdleConnsPerHost = 64
		})
	awsCfg, err := config.LoadDefaultConfig(ctx,
		config.WithEC2IMDSClientEnableState(imds.ClientDisabled),
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
		config.WithHTTPClient(httpClient),
		// A few quick tries, without the retry quota that would keep failing calls after
		// the server is back: a store that is down is reported as such within seconds.
		config.WithRetryer(func() aws.Retryer {
			return retry.NewStandard(func(o *retry.StandardOptions) {
				o.MaxAttempts = 3
				o.MaxBackoff = time.Second
				o.RateLimiter = ratelimit.None
			})
		}),
	)
	if err != nil {
		return nil, fmt.Errorf("cas: %s: reading the AWS settings from the environment: %w", s.url, err)
	}
	if awsCfg.Region == "" {
		// Most S3-compatible servers ignore the region, but requests are signed with one.
		awsCfg.Region = "us-east-1"
	}
	if awsCfg.Credentials == nil {
		return nil, noCredentials(s.url, errors.New("no credentials found"))
	}
	credCtx, cancel := context.WithTimeout(ctx, probeTimeout)
	_, err = awsCfg.Credentials.Retrieve(credCtx)
	cancel()
	if err != nil {
		return nil, noCredentials(s.url, err)
	}
	s.client = s3.NewFromConfig(awsCfg, func(so *s3.Options) {
		so.UsePathStyle = true
		if cfg.Endpoint != "" {
			so.BaseEndpoint = aws.String(cfg.Endpoint)
		}
	})

	probeCtx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	if _, err := s.client.HeadBucket(probeCtx, &s3.HeadBucketInput{Bucket: aws.String(s.bucket)}); err != nil {
		if err := s.unavailable(err); err != nil {
			return nil, err
		}
		switch statusOf(err) {
		case http.StatusNotFound:
			return nil, fmt.Errorf("cas: %s: the bucket %q does not exist on the server; create it first (such as: aws s3 mb s3://%s)", s.url, s.bucket, s.bucket)
		case http.StatusForbidden, http.StatusUnauthorized:
			return nil, fmt.Errorf("cas: %s: the server refuses these credentials for the bucket %q; check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: %w", s.url, s.bucket, err)
		}
		return nil, fmt.Errorf("cas: %s: looking at the bucket: %w", s.url, err)
	}
	return s, nil
}

func noCredentials(where string, err error) error {
	return fmt.Errorf("cas: %s: no credentials for the object store: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "+
		"(or AWS_PROFILE naming a profile in ~/.aws/credentials): %w", where, err)
}

// MaxObjectSize returns the largest object Put takes, in bytes.
func (s *S3) MaxObjectSize() int64 { return s.maxSize }

// String returns the store's URL, s3://bucket/prefix.
func (s *S3) String() string { return s.url }

// key returns the object key of the object h.
func (s *S3) key(h Hash) string {
	name := h.String()
	return s.prefix + objectsDir + "/" + name[:2] + "/" + name
}

// Put stores the content that r yields with the media type mimeType ("" means
// [DefaultMediaType]); see [Store]. The content goes to a spool first, then to the server in
// one conditional PUT (see the type's documentation).
func (s *S3) Put(ctx context.Context, r io.Reader, mimeType string) (obj Object, existed bool, err error) {
	defer func() {
		if err == nil && !existed {
			s.changes.Add(1)
		}
	}()
	mimeType, err = beginPut(ctx, mimeType)
	if err != nil {
		return Object{}, false, err
	}
	sp := &spool{dir: s.spoolDir}
	defer sp.Close()
	hasher := sha256.New()
	size, err := copyLimited(ctx, io.MultiWriter(sp, hasher), r, s.maxSize)
	if err != nil {
		return Object{}, false, err
	}
	var h Hash
	hasher.Sum(h[:0])

	// Content that is stored already is not sent again.
	obj, err = s.Stat(ctx, h)
	if err == nil {
		return s.existing(obj, size)
	}
	if !errors.Is(err, ErrNotFound) {
		return Object{}, false, err
	}
	storedAt := s.now().UTC()
	for attempt := 1; ; attempt++ {
		body, err := sp.Reader()
		if err != nil {
			return Object{}, false, fmt.Errorf("cas: reading the temporary copy: %w", err)
		}
		_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
			Bucket:         aws.String(s.bucket),
			Key:            aws.String(s.key(h)),
			Body:           body,
			ContentLength:  aws.Int64(size),
			ContentType:    aws.String(mimeType),
			Metadata:       map[string]string{metaStoredAt: storedAt.Format(time.RFC3339Nano)},
			ChecksumSHA256: aws.String(base64.StdEncoding.EncodeToString(h[:])),
			IfNoneMatch:    aws.String("*"),
		}, withPayloadHash(h))
		if err == nil {
			return Object{Hash: h, Size: size, MimeType: mimeType, StoredAt: storedAt}, false, nil
		}
		switch statusOf(err) {
		case http.StatusPreconditionFailed:
			// Another writer stored the same content first; its metadata stands.
			obj, err := s.Stat(ctx, h)
			if err != nil {
				return Object{}, false, err
			}
			return s.existing(obj, size)
		case http.StatusConflict:
			// S3 answers 409 when another conditional upload of the key is under way, and
			// asks for a retry; the retry sees that upload's object, or makes its own.
			if attempt < putAttempts {
				continue
			}
		}
		return Object{}, false, s.fail("storing", h, err)
	}
}

// existing is the result of a Put whose content was stored already as obj.
func (s *S3) existing(obj Object, size int64) (Object, bool, error) {
	if obj.Size != size {
		return Object{}, false, fmt.Errorf("cas: %s: object %s has %d bytes; the content has %d: the stored object is corrupt (cas_verify reports it)",
			s.url, obj.Hash, obj.Size, size)
	}
	return obj, true, nil
}

// withPayloadHash gives the request signer the SHA-256 of the body, which Put knows already
// as the content's hash, so that the spool is not read a second time to compute it.
func withPayloadHash(h Hash) func(*s3.Options) {
	sum := hex.EncodeToString(h[:])
	return func(o *s3.Options) {
		o.APIOptions = append(o.APIOptions, func(stack *middleware.Stack) error {
			return stack.Finalize.Add(middleware.FinalizeMiddlewareFunc("KnownPayloadHash",
				func(ctx context.Context, in middleware.FinalizeInput, next middleware.FinalizeHandler) (middleware.FinalizeOutput, middleware.Metadata, error) {
					return next.HandleFinalize(v4.SetPayloadHash(ctx, sum), in)
				}), middleware.Before)
		})
	}
}

// Stat returns the object with hash h; see [Store].
func (s *S3) Stat(ctx context.Context, h Hash) (Object, error) {
	out, err := s.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.key(h))})
	if err != nil {
		return Object{}, s.fail("reading", h, err)
	}
	return s.object(h, aws.ToInt64(out.ContentLength), aws.ToString(out.ContentType), out.Metadata, out.LastModified)
}

// object returns the object h from what the server says of it. A media type or time that does
// not parse is replaced, as a missing sidecar is in a [Dir]: by [DefaultMediaType] and the
// time the server last modified the object.
func (s *S3) object(h Hash, size int64, contentType string, meta map[string]string, modified *time.Time) (Object, error) {
	if size < 0 {
		return Object{}, fmt.Errorf("cas: %s: the server gave object %s no length", s.url, h)
	}
	obj := Object{Hash: h, Size: size, MimeType: contentType, StoredAt: aws.ToTime(modified).UTC()}
	if err := ValidateMediaType(contentType); err != nil {
		s.log.Warn("cas: ignoring an object's unreadable media type", "store", s.url, "hash", h.String(), "err", err)
		obj.MimeType = DefaultMediaType
	}
	if stamp, ok := meta[metaStoredAt]; ok {
		t, err := time.Parse(time.RFC3339Nano, stamp)
		if err == nil && len(stamp) <= 64 {
			obj.StoredAt = t.UTC()
		} else {
			s.log.Warn("cas: ignoring an object's unreadable stored time", "store", s.url, "hash", h.String(), "stored_at", truncate(stamp, 64))
		}
	}
	return obj, nil
}

// Remove removes the object h, if it is there; see [Store].
func (s *S3) Remove(ctx context.Context, h Hash) error {
	defer s.changes.Add(1)
	_, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(s.bucket), Key: aws.String(s.key(h))})
	if err != nil && statusOf(err) != http.StatusNotFound {
		return s.fail("removing", h, err)
	}
	return nil
}

// fail turns an error of the operation op ("reading", "storing") on the object h into the
// store's error: not found, unavailable, or a fault that names the store and the object.
func (s *S3) fail(op string, h Hash, err error) error {
	if ctxErr := contextError(err); ctxErr != nil {
		return fmt.Errorf("cas: %s %s: %w", op, h, ctxErr)
	}
	if uerr := s.unavailable(err); uerr != nil {
		return uerr
	}
	switch statusOf(err) {
	case http.StatusNotFound:
		return fmt.Errorf("%w: %s", ErrNotFound, h)
	case http.StatusForbidden, http.StatusUnauthorized:
		return fmt.Errorf("cas: %s %s in %s: the server refuses these credentials; check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY: %w", op, h, s.url, err)
	}
	return fmt.Errorf("cas: %s %s in %s: %w", op, h, s.url, err)
}

// unavailable returns an [*UnavailableError] when err says the server could not be reached or
// could not serve (a 5xx answer, a timeout), and nil otherwise.
func (s *S3) unavailable(err error) error {
	var send *smithyhttp.RequestSendError
	var quota *ratelimit.QuotaExceededError
	var netErr net.Error
	code := statusOf(err)
	if errors.As(err, &send) || errors.As(err, &quota) || errors.As(err, &netErr) ||
		code >= 500 || code == http.StatusTooManyRequests ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
		return &UnavailableError{Store: s.url, Err: err}
	}
	return nil
}

// statusOf returns the HTTP status of the server's answer that err carries, or 0.
func statusOf(err error) int {
	var re *smithyhttp.ResponseError
	if errors.As(err, &re) && re.Response != nil && re.Response.Response != nil {
		return re.HTTPStatusCode()
	}
	return 0
}

// contextError returns the context error that err wraps, or nil.
func contextError(err error) error {
	for _, target := range []error{context.Canceled, context.DeadlineExceeded} {
		if errors.Is(err, target) {
			return target
		}
	}
	return nil
}

// truncate returns s cut to at most n bytes, for logs of what a server said.
func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// A spool holds a Put's content until it is sent: in memory up to spoolInMemory bytes, then
// in a file of its own. The file is unlinked as soon as it is made (it lives on while open), so
// a process killed mid-upload leaves nothing behind.
type spool struct {
	dir  string
	mem  []byte
	file *os.File
	size int64
}

func (sp *spool) Write(p []byte) (int, error) {
	if sp.file == nil && len(sp.mem)+len(p) <= spoolInMemory {
		sp.mem = append(sp.mem, p...)
		sp.size += int64(len(p))
		return len(p), nil
	}
	if sp.file == nil {
		f, err := os.CreateTemp(sp.dir, "hoot-cas-spool-*")
		if err != nil {
			return 0, err
		}
		if err := os.Remove(f.Name()); err != nil {
			f.Close()
			return 0, err
		}
		sp.file = f
		if _, err := f.Write(sp.mem); err != nil {
			return 0, err
		}
		sp.mem = nil
	}
	n, err := sp.file.Write(p)
	sp.size += int64(n)
	return n, err
}

// Reader returns the content from its start, as a body the SDK can rewind for a retry.
func (sp *spool) Reader() (io.ReadSeeker, error) {
	if sp.file == nil {
		return bytes.NewReader(sp.mem), nil
	}
	return io.NewSectionReader(sp.file, 0, sp.size), nil
}

func (sp *spool) Close() error {
	if sp.file == nil {
		return nil
	}
	return sp.file.Close()
}
