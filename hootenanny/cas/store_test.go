package cas_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	smithyhttp "github.com/aws/smithy-go/transport/http"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/cas/storetest"
)

var quiet = slog.New(slog.DiscardHandler)

func withQuietLogger(opts *cas.Options) *cas.Options {
	var o cas.Options
	if opts != nil {
		o = *opts
	}
	o.Logger = quiet
	return &o
}

func TestDirContract(t *testing.T) {
	storetest.Run(t, storetest.Backend{
		Open: func(t *testing.T, opts *cas.Options) cas.Store {
			s, err := cas.OpenDir(t.TempDir(), withQuietLogger(opts))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Corrupt: func(t *testing.T, s cas.Store, h cas.Hash, b []byte) {
			name := h.String()
			path := filepath.Join(s.String(), "objects", name[:2], name)
			if err := os.Chmod(path, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
		},
	})
}

func TestS3Contract(t *testing.T) {
	url := storetest.S3URL(t)
	storetest.Run(t, storetest.Backend{
		Open: func(t *testing.T, opts *cas.Options) cas.Store {
			// Each subtest has a prefix of its own under the test's.
			s, err := cas.OpenURL(t.Context(), url+"/"+strings.ReplaceAll(t.Name(), "/", "-"), withQuietLogger(opts))
			if err != nil {
				t.Fatal(err)
			}
			return s
		},
		Corrupt: storetest.S3Corrupt,
	})
}

// TestS3ServerConditions checks that the server keeps the two promises the S3 store's
// writes stand on, with a plain client: a PUT with If-None-Match: * never replaces an
// object (412), and a PUT whose x-amz-checksum-sha256 does not match its body is refused
// and leaves nothing.
func TestS3ServerConditions(t *testing.T) {
	cfg, err := cas.ParseS3URL(storetest.S3URL(t))
	if err != nil {
		t.Fatal(err)
	}
	client, err := storetest.NewS3Client(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	putObject := func(key string, body []byte, sum [32]byte) error {
		_, err := client.PutObject(t.Context(), &s3.PutObjectInput{
			Bucket:         aws.String(cfg.Bucket),
			Key:            aws.String(key),
			Body:           bytes.NewReader(body),
			ChecksumSHA256: aws.String(base64.StdEncoding.EncodeToString(sum[:])),
			IfNoneMatch:    aws.String("*"),
		})
		return err
	}
	status := func(err error) int {
		var re *smithyhttp.ResponseError
		if errors.As(err, &re) {
			return re.HTTPStatusCode()
		}
		return 0
	}
	head := func(key string) ([]byte, error) {
		out, err := client.GetObject(t.Context(), &s3.GetObjectInput{Bucket: aws.String(cfg.Bucket), Key: aws.String(key)})
		if err != nil {
			return nil, err
		}
		defer out.Body.Close()
		var buf bytes.Buffer
		_, err = buf.ReadFrom(out.Body)
		return buf.Bytes(), err
	}

	key := cfg.Prefix + "/conditional"
	if err := putObject(key, []byte("first"), sha256.Sum256([]byte("first"))); err != nil {
		t.Fatalf("first PUT: %v", err)
	}
	err = putObject(key, []byte("second"), sha256.Sum256([]byte("second")))
	t.Logf("PUT over an object: %v", err)
	if status(err) != http.StatusPreconditionFailed {
		t.Errorf("PUT with If-None-Match: * over an object = %v (status %d), want 412", err, status(err))
	}
	if b, err := head(key); err != nil || string(b) != "first" {
		t.Errorf("the object holds %q, %v; want the first", b, err)
	}

	wrong := cfg.Prefix + "/wrong-checksum"
	err = putObject(wrong, []byte("the bytes sent"), sha256.Sum256([]byte("other bytes")))
	t.Logf("PUT with a wrong checksum: %v", err)
	if err == nil || status(err) != http.StatusBadRequest {
		t.Errorf("PUT with a wrong checksum = %v (status %d), want 400", err, status(err))
	}
	if _, err := head(wrong); status(err) != http.StatusNotFound {
		t.Errorf("after a refused PUT, reading the key = %v, want 404", err)
	}
}

// TestS3PutSendsChecksum checks that a Put sends the content's SHA-256 for the server to check:
// the server records it with the object.
func TestS3PutSendsChecksum(t *testing.T) {
	url := storetest.S3URL(t)
	s, err := cas.OpenURL(t.Context(), url, &cas.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := s.Put(t.Context(), strings.NewReader("checked by the server"), "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := cas.ParseS3URL(url)
	client, err := storetest.NewS3Client(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	name := obj.Hash.String()
	out, err := client.HeadObject(t.Context(), &s3.HeadObjectInput{
		Bucket:       aws.String(cfg.Bucket),
		Key:          aws.String(cfg.Prefix + "/objects/" + name[:2] + "/" + name),
		ChecksumMode: types.ChecksumModeEnabled,
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := aws.ToString(out.ChecksumSHA256), base64.StdEncoding.EncodeToString(obj.Hash[:]); got != want {
		t.Errorf("the server recorded the checksum %q, want %q", got, want)
	}
	if got := aws.ToString(out.ContentType); got != "text/plain" {
		t.Errorf("Content-Type = %q, want text/plain", got)
	}
}

// TestS3Unavailable stops the object store under an open store: every operation fails with an
// error that says the store is unavailable, quickly, and works again once the server is back.
func TestS3Unavailable(t *testing.T) {
	srv := storetest.StartS3Server(t)
	cfg, _ := cas.ParseS3URL(srv.URL("down"))
	cfg.Endpoint = srv.Endpoint
	s, err := cas.OpenS3(t.Context(), cfg, &cas.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := s.Put(t.Context(), strings.NewReader("before"), "text/plain")
	if err != nil {
		t.Fatal(err)
	}

	srv.Stop()
	start := time.Now()
	check := func(op string, err error) {
		t.Helper()
		var ue *cas.UnavailableError
		if !errors.Is(err, cas.ErrUnavailable) || !errors.As(err, &ue) || ue.Store != s.String() {
			t.Errorf("%s with the server down = %v, want an UnavailableError of %s", op, err, s)
		}
	}
	_, err = s.Stat(t.Context(), obj.Hash)
	check("Stat", err)
	t.Logf("Stat with the server down: %v", err)
	_, _, err = s.Put(t.Context(), strings.NewReader("during"), "text/plain")
	check("Put", err)
	_, _, err = s.ReadRange(t.Context(), obj.Hash, 0, 3)
	check("ReadRange", err)
	_, err = s.Verify(t.Context(), obj.Hash)
	check("Verify", err)
	check("Walk", s.Walk(t.Context(), func(cas.Hash) error { return nil }))
	if err != nil && !strings.Contains(err.Error(), "the object store "+s.String()+" is unavailable") {
		t.Errorf("message %q does not name the store", err)
	}
	t.Logf("five operations failed in %v", time.Since(start))
	if _, err := cas.OpenS3(t.Context(), cfg, &cas.Options{Logger: quiet}); !errors.Is(err, cas.ErrUnavailable) {
		t.Errorf("OpenS3 with the server down = %v, want ErrUnavailable", err)
	}

	srv.Start()
	if got, err := s.Stat(t.Context(), obj.Hash); err != nil || got.Size != 6 {
		t.Errorf("Stat after the server is back = %+v, %v", got, err)
	}
	if _, _, err := s.Put(t.Context(), strings.NewReader("after"), "text/plain"); err != nil {
		t.Errorf("Put after the server is back: %v", err)
	}
}

func TestOpenS3Refusals(t *testing.T) {
	srv := storetest.StartS3Server(t)
	open := func(bucket string) error {
		_, err := cas.OpenS3(t.Context(), cas.S3Config{Bucket: bucket, Prefix: "p", Endpoint: srv.Endpoint}, &cas.Options{Logger: quiet})
		return err
	}
	if err := open("no-such-bucket"); err == nil || !strings.Contains(err.Error(), `the bucket "no-such-bucket" does not exist`) {
		t.Errorf("a missing bucket: %v", err)
	}
	t.Setenv("AWS_SECRET_ACCESS_KEY", "wrong")
	if err := open(srv.Bucket); err == nil || !strings.Contains(err.Error(), "refuses these credentials") {
		t.Errorf("wrong keys: %v", err)
	}
	t.Setenv("AWS_ACCESS_KEY_ID", "")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "")
	t.Setenv("AWS_PROFILE", "")
	t.Setenv("AWS_CONFIG_FILE", filepath.Join(t.TempDir(), "none"))
	t.Setenv("AWS_SHARED_CREDENTIALS_FILE", filepath.Join(t.TempDir(), "none"))
	start := time.Now()
	if err := open(srv.Bucket); err == nil || !strings.Contains(err.Error(), "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY") {
		t.Errorf("no keys: %v", err)
	}
	t.Logf("without keys, OpenS3 failed in %v", time.Since(start))
}

func TestOpenURL(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "cas")
	s, err := cas.OpenURL(context.Background(), dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := s.(*cas.Dir); !ok || s.String() != dir {
		t.Errorf("OpenURL(%q) = %T %s, want the directory store", dir, s, s)
	}
	for _, tc := range []struct{ in, want string }{
		{"", "no content store given; give a directory path"},
		{"ftp://host/x", `a content store of the scheme "ftp" is not known; give a directory path (such as /var/lib/hootenanny/cas) or s3://bucket/prefix`},
		{"s3://", "the bucket is missing"},
		{"s3://Bucket/x", `the bucket "Bucket" has 'B'`},
		{"s3://ab/x", `the bucket "ab" is 2 characters long`},
		{"s3://bucket:9000/x", "a bucket has no port; set the server in AWS_ENDPOINT_URL"},
		{"s3://key:secret@bucket/x", "keys do not belong in the URL"},
		{"s3://bucket/a//b", `the prefix has an empty, "." or ".." folder`},
		{"s3://bucket/a/../b", `the prefix has an empty, "." or ".." folder`},
		{"s3://bucket/x?region=eu", "it takes no query or fragment"},
		{"s3://bucket/" + strings.Repeat("p", 600), "the prefix is 600 bytes long; the limit is 512"},
	} {
		_, err := cas.OpenURL(context.Background(), tc.in, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("OpenURL(%q) = %v, want an error saying %q", tc.in, err, tc.want)
		}
	}
	for in, want := range map[string]cas.S3Config{
		"s3://hoot":            {Bucket: "hoot"},
		"s3://hoot/":           {Bucket: "hoot"},
		"S3://hoot/studio/a/":  {Bucket: "hoot", Prefix: "studio/a"},
		"s3://my.bucket-1/x y": {Bucket: "my.bucket-1", Prefix: "x y"},
	} {
		if got, err := cas.ParseS3URL(in); err != nil || got != want {
			t.Errorf("ParseS3URL(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
}

// BenchmarkPutGet stores a new 1 MiB object and reads it back whole, in each store.
func BenchmarkPutGet(b *testing.B) {
	for _, backend := range []string{"dir", "s3"} {
		b.Run(backend, func(b *testing.B) {
			var s cas.Store
			var err error
			if backend == "dir" {
				s, err = cas.OpenDir(b.TempDir(), &cas.Options{Logger: quiet})
			} else {
				s, err = cas.OpenURL(b.Context(), storetest.S3URL(b), &cas.Options{Logger: quiet})
			}
			if err != nil {
				b.Fatal(err)
			}
			content := make([]byte, 1<<20)
			b.SetBytes(int64(len(content)))
			for i := 0; b.Loop(); i++ {
				copy(content, fmt.Sprintf("object %d", i))
				obj, _, err := s.Put(b.Context(), bytes.NewReader(content), "application/octet-stream")
				if err != nil {
					b.Fatal(err)
				}
				r, _, err := s.Open(b.Context(), obj.Hash)
				if err != nil {
					b.Fatal(err)
				}
				if n, err := io.Copy(io.Discard, r); err != nil || n != int64(len(content)) {
					b.Fatal(n, err)
				}
				r.Close()
			}
		})
	}
}

// TestS3OpenStreamOneRequest counts the requests that reach the server: OpenStream reads an
// object whole with one GET and nothing else, also after the seek to the end and back that
// http.ServeContent makes; Open asks for the metadata (a HEAD) and then GETs.
func TestS3OpenStreamOneRequest(t *testing.T) {
	cfg, err := cas.ParseS3URL(storetest.S3URL(t))
	if err != nil {
		t.Fatal(err)
	}
	target, err := neturl.Parse(os.Getenv("AWS_ENDPOINT_URL"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	proxy := httputil.NewSingleHostReverseProxy(target)
	counting := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method)
		mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	defer counting.Close()
	cfg.Endpoint = counting.URL
	s, err := cas.OpenS3(t.Context(), cfg, &cas.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	content := bytes.Repeat([]byte("streamed "), 50_000)
	obj, _, err := s.Put(t.Context(), bytes.NewReader(content), "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		open func(context.Context, cas.Hash) (io.ReadSeekCloser, cas.Object, error)
		want string
	}{
		{"OpenStream", s.OpenStream, "GET"},
		{"Open", s.Open, "HEAD GET"},
	} {
		mu.Lock()
		seen = nil
		mu.Unlock()
		r, got, err := tc.open(t.Context(), obj.Hash)
		if err != nil {
			t.Fatal(err)
		}
		if got.MimeType != "text/plain" || got.Size != int64(len(content)) || !got.StoredAt.Equal(obj.StoredAt) {
			t.Errorf("%s: object %+v, want %+v", tc.name, got, obj)
		}
		if _, err := r.Seek(0, io.SeekEnd); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Seek(0, io.SeekStart); err != nil {
			t.Fatal(err)
		}
		all, err := io.ReadAll(r)
		r.Close()
		if err != nil || !bytes.Equal(all, content) {
			t.Errorf("%s: read %d bytes (%v), want the %d stored", tc.name, len(all), err, len(content))
		}
		mu.Lock()
		if got := strings.Join(seen, " "); got != tc.want {
			t.Errorf("%s sent %q to the server, want %q", tc.name, got, tc.want)
		}
		mu.Unlock()
	}
}
