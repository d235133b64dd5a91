package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/fleettest"
)

// The environment of tests that need servers, as the repository's tools/testservers.sh sets it.
const (
	// EnvS3 names an existing bucket for tests, as s3://bucket; each test takes a prefix of its
	// own under it. The server and keys are in the AWS_* variables.
	EnvS3 = "HOOT_TEST_S3"
	// EnvRequired, set to "required", makes a test whose server is missing fail rather than
	// skip.
	EnvRequired = "HOOT_FLEET_TESTS"
	// EnvVersityGW names the versitygw binary that [StartS3Server] runs; without it, the
	// repository's bin/versitygw.
	EnvVersityGW = "HOOT_VERSITYGW"
)

// missing skips t, or fails it when the environment says the servers are required.
func missing(t testing.TB, what string) {
	t.Helper()
	fleettest.Missing(t, what)
}

// S3URL returns s3://bucket/prefix for a store of the test's own: a new random prefix in the
// bucket that HOOT_TEST_S3 names. Everything under the prefix is removed when the test ends.
func S3URL(t testing.TB) string {
	t.Helper()
	cfg, err := cas.ParseS3URL(fleettest.S3URL(t))
	if err != nil {
		t.Fatalf("%s: %v", EnvS3, err)
	}
	prefix := cfg.Prefix
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		client, err := NewS3Client(ctx, "")
		if err == nil {
			err = RemovePrefix(ctx, client, cfg.Bucket, prefix+"/")
		}
		if err != nil {
			t.Errorf("removing the test's objects under s3://%s/%s: %v", cfg.Bucket, prefix, err)
		}
	})
	return "s3://" + cfg.Bucket + "/" + prefix
}

// NewS3Client returns a plain S3 client configured from the environment, for tests that go
// around a store; endpoint, when set, replaces AWS_ENDPOINT_URL.
func NewS3Client(ctx context.Context, endpoint string) (*s3.Client, error) {
	awsCfg, err := config.LoadDefaultConfig(ctx,
		config.WithEC2IMDSClientEnableState(imds.ClientDisabled),
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired),
		config.WithRetryMaxAttempts(1),
	)
	if err != nil {
		return nil, err
	}
	if awsCfg.Region == "" {
		awsCfg.Region = "us-east-1"
	}
	return s3.NewFromConfig(awsCfg, func(o *s3.Options) {
		o.UsePathStyle = true
		if endpoint != "" {
			o.BaseEndpoint = aws.String(endpoint)
		}
	}), nil
}

// RemovePrefix removes every object whose key starts with prefix.
func RemovePrefix(ctx context.Context, client *s3.Client, bucket, prefix string) error {
	pages := s3.NewListObjectsV2Paginator(client, &s3.ListObjectsV2Input{Bucket: aws.String(bucket), Prefix: aws.String(prefix)})
	for pages.HasMorePages() {
		page, err := pages.NextPage(ctx)
		if err != nil {
			return err
		}
		for _, o := range page.Contents {
			if _, err := client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(bucket), Key: o.Key}); err != nil {
				return err
			}
		}
	}
	return nil
}

// S3Corrupt writes b at the key of the object h in the S3 store s with a plain client,
// bypassing the store and its conditions, for [Backend.Corrupt].
func S3Corrupt(t *testing.T, s cas.Store, h cas.Hash, b []byte) {
	t.Helper()
	cfg, err := cas.ParseS3URL(s.String())
	if err != nil {
		t.Fatal(err)
	}
	client, err := NewS3Client(t.Context(), "")
	if err != nil {
		t.Fatal(err)
	}
	name := h.String()
	key := strings.TrimPrefix(cfg.Prefix+"/objects/"+name[:2]+"/"+name, "/")
	if _, err := client.PutObject(t.Context(), &s3.PutObjectInput{
		Bucket: aws.String(cfg.Bucket), Key: aws.String(key), Body: bytes.NewReader(b), ContentType: aws.String("text/plain"),
	}); err != nil {
		t.Fatalf("overwriting %s: %v", key, err)
	}
}

// An S3Server is a versitygw of a test's own on a loopback port, over a directory of its own,
// which the test can stop and start again. The test's cleanup stops it.
type S3Server struct {
	// Endpoint is the server's URL, http://127.0.0.1:PORT.
	Endpoint string
	// Bucket is a bucket that exists on the server.
	Bucket string

	t    testing.TB
	bin  string
	addr string
	root string
	cmd  *exec.Cmd
	done chan struct{}
}

// StartS3Server starts a versitygw (HOOT_VERSITYGW, or bin/versitygw at the repository's root)
// with a bucket, and sets AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to its keys when they are
// unset (so t may not be parallel). A missing binary skips t, or fails it when servers are
// required.
func StartS3Server(t testing.TB) *S3Server {
	t.Helper()
	bin := os.Getenv(EnvVersityGW)
	if bin == "" {
		if root, err := repoRoot(); err == nil {
			bin = filepath.Join(root, "bin", "versitygw")
		}
	}
	if _, err := os.Stat(bin); bin == "" || err != nil {
		missing(t, "no versitygw binary ("+EnvVersityGW+" unset and no bin/versitygw)")
	}
	if os.Getenv("AWS_ACCESS_KEY_ID") == "" || os.Getenv("AWS_SECRET_ACCESS_KEY") == "" {
		t.Setenv("AWS_ACCESS_KEY_ID", "hoot-test-key")
		t.Setenv("AWS_SECRET_ACCESS_KEY", "hoot-test-secret")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s := &S3Server{Endpoint: "http://" + addr, Bucket: "hoot-own", t: t, bin: bin, addr: addr, root: t.TempDir()}
	t.Cleanup(s.Stop)
	s.Start()
	client, err := NewS3Client(t.Context(), s.Endpoint)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CreateBucket(t.Context(), &s3.CreateBucketInput{Bucket: aws.String(s.Bucket)}); err != nil {
		t.Fatalf("creating the bucket: %v", err)
	}
	return s
}

// URL returns s3://bucket/prefix on this server.
func (s *S3Server) URL(prefix string) string { return "s3://" + s.Bucket + "/" + prefix }

// Start starts the server (again) and waits until it answers.
func (s *S3Server) Start() {
	s.t.Helper()
	if s.cmd != nil {
		s.t.Fatal("storetest: the S3 server runs already")
	}
	cmd := exec.Command(s.bin, "--port", s.addr, "--quiet",
		"--access", os.Getenv("AWS_ACCESS_KEY_ID"), "--secret", os.Getenv("AWS_SECRET_ACCESS_KEY"),
		"posix", s.root)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		s.t.Fatalf("starting %s: %v", s.bin, err)
	}
	s.cmd, s.done = cmd, make(chan struct{})
	go func() { cmd.Wait(); close(s.done) }()
	deadline := time.Now().Add(15 * time.Second)
	for {
		resp, err := http.Get(s.Endpoint + "/")
		if err == nil {
			resp.Body.Close()
			return
		}
		select {
		case <-s.done:
			s.cmd = nil
			s.t.Fatalf("versitygw exited at start: %s", out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("versitygw does not answer at %s: %v", s.Endpoint, err)
		}
	}
}

// Stop stops the server, if it runs, and waits until it has exited.
func (s *S3Server) Stop() {
	if s.cmd == nil {
		return
	}
	s.cmd.Process.Kill()
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		s.t.Errorf("versitygw (pid %d) did not exit after SIGKILL", s.cmd.Process.Pid)
	}
	s.cmd = nil
}

// repoRoot returns the directory holding go.work, above the working directory.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for range 32 {
		if _, err := os.Stat(filepath.Join(dir, "go.work")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	return "", errors.New("no go.work above " + fmt.Sprint(dir))
}
