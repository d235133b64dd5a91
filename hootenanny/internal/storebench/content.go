package storebench

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/feature/ec2/imds"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/hootenanny/hoot/hootenanny/cas"
)

// ContentOptions say what the content part measures.
type ContentOptions struct {
	// Holler and Hootenanny are the binaries of the gateway and the worker.
	Holler, Hootenanny string
	// Dir is where the directory stores and the gateway's data go.
	Dir string
	// S3 is the bucket of an S3 server (s3://bucket, with AWS_ENDPOINT_URL and keys in the
	// environment); empty measures the directory store alone.
	S3 string
	// Sizes are the object sizes in bytes.
	Sizes []int
	// Budget bounds each measurement; MaxOps is scaled down for large objects.
	Budget Budget
	Out    io.Writer
}

// A ContentResult is one way of moving objects of one size to or from one store.
type ContentResult struct {
	Store string // "directory" or "s3"
	Op    string // "PUT" or "GET"
	// Way is "holler", "plain", or "http": a bare net/http server on loopback, the floor of
	// any HTTP server on this machine: for the directory, one that sends the plain store's
	// file with http.ServeContent (GET) or writes the body to a file, fsyncs and closes it
	// (PUT); for S3, one that answers a GET with GetObject and io.Copy of its body.
	Way  string
	Size int
	Figures
}

// RunContent measures PUT /cas and GET /cas/{hash} through a gateway with one worker on each
// store, and the same bytes written and read without it: a file written and fsynced, and a
// plain PutObject and GetObject with the AWS SDK on the same server.
func RunContent(ctx context.Context, o ContentOptions) ([]ContentResult, error) {
	stores := []string{"directory"}
	if o.S3 != "" {
		stores = append(stores, "s3")
	}
	var out []ContentResult
	for _, store := range stores {
		data := filepath.Join(o.Dir, "content-"+store)
		if err := os.MkdirAll(data, 0o755); err != nil {
			return nil, err
		}
		casURL := filepath.Join(data, "cas")
		var plain plainStore
		if store == "directory" {
			d := &plainDir{dir: filepath.Join(data, "plain")}
			stop, err := d.serve()
			if err != nil {
				return nil, err
			}
			defer stop()
			plain = d
		}
		if store == "s3" {
			cfg, err := cas.ParseS3URL(o.S3)
			if err != nil {
				return nil, err
			}
			prefix := fmt.Sprintf("storebench-%d", os.Getpid())
			casURL = "s3://" + cfg.Bucket + "/" + prefix + "/cas"
			p3, err := newPlainS3(ctx, cfg.Bucket, prefix+"/plain")
			if err != nil {
				return nil, err
			}
			stop, err := p3.serve()
			if err != nil {
				return nil, err
			}
			defer stop()
			plain = p3
		} else if err := os.MkdirAll(filepath.Join(data, "plain"), 0o755); err != nil {
			return nil, err
		}
		g, err := startGateway(ctx, o.Holler, o.Hootenanny, data, casURL)
		if err != nil {
			return nil, err
		}
		rs, err := measureContent(ctx, o, store, g.base, plain)
		g.stop()
		if err != nil {
			return nil, fmt.Errorf("content on the %s store: %w%s", store, err, g.tail())
		}
		out = append(out, rs...)
	}
	return out, nil
}

var bodyCounter atomic.Uint64

// body returns buf made different from every other body of the run, in its first 8 bytes.
func body(buf []byte) []byte {
	binary.LittleEndian.PutUint64(buf, bodyCounter.Add(1))
	return buf
}

func measureContent(ctx context.Context, o ContentOptions, store, base string, plain plainStore) ([]ContentResult, error) {
	client := &http.Client{Timeout: 2 * time.Minute}
	var out []ContentResult
	for _, size := range o.Sizes {
		buf := make([]byte, size)
		_, _ = rand.NewChaCha8([32]byte{byte(size)}).Read(buf)
		b := o.Budget
		// Large objects take long; bound their count so that each row stays near b.Duration.
		b.MaxOps = max(b.MinOps, min(nonZero(b.MaxOps, 1<<30), int(256<<20)/size))
		b.Warmup = min(b.Warmup, 2)

		// Through holler and plain in turn, one call each, so that both see the same moments
		// of a shared machine.
		b.Duration *= 2
		var hashes, names []string
		bare, barePuts := plain.bare()
		putOps := []func(context.Context, int) (int64, error){
			func(ctx context.Context, _ int) (int64, error) {
				h, err := httpPut(ctx, client, base, body(buf))
				hashes = append(hashes, h)
				return int64(size), err
			},
			func(ctx context.Context, _ int) (int64, error) {
				name := strconv.Itoa(len(names))
				names = append(names, name)
				return int64(size), plain.put(ctx, name, body(buf))
			},
		}
		if barePuts {
			putOps = append(putOps, func(ctx context.Context, i int) (int64, error) {
				return int64(size), httpPutFile(ctx, client, bare, fmt.Sprintf("http-%d-%d", size, i), body(buf))
			})
		}
		puts, err := MeasureEach(ctx, b, putOps...)
		if err != nil {
			return nil, fmt.Errorf("PUT of %s: %w", FormatBytes(size), err)
		}
		getOps := []func(context.Context, int) (int64, error){
			func(ctx context.Context, i int) (int64, error) {
				return int64(size), httpGet(ctx, client, base, hashes[pick(i, len(hashes))], size)
			},
			func(ctx context.Context, i int) (int64, error) {
				return int64(size), plain.get(ctx, names[pick(i, len(names))], size)
			},
		}
		if bare != "" {
			getOps = append(getOps, func(ctx context.Context, i int) (int64, error) {
				return int64(size), httpGet(ctx, client, bare, names[pick(i, len(names))], size)
			})
		}
		gets, err := MeasureEach(ctx, b, getOps...)
		if err != nil {
			return nil, fmt.Errorf("GET of %s: %w", FormatBytes(size), err)
		}
		put, pput, get, pget := puts[0], puts[1], gets[0], gets[1]
		out = append(out, ContentResult{store, "PUT", "holler", size, put}, ContentResult{store, "PUT", "plain", size, pput},
			ContentResult{store, "GET", "holler", size, get}, ContentResult{store, "GET", "plain", size, pget})
		line := fmt.Sprintf("  %-9s %6s  PUT holler %7.1f MB/s, plain %7.1f MB/s;  GET holler %7.1f MB/s, plain %7.1f MB/s", store,
			FormatBytes(size), put.MBPerSec(), pput.MBPerSec(), get.MBPerSec(), pget.MBPerSec())
		if barePuts {
			out = append(out, ContentResult{store, "PUT", "http", size, puts[2]})
			line += fmt.Sprintf(";  bare HTTP PUT %7.1f MB/s", puts[2].MBPerSec())
		}
		if bare != "" {
			out = append(out, ContentResult{store, "GET", "http", size, gets[2]})
			line += fmt.Sprintf(";  bare HTTP GET %7.1f MB/s", gets[2].MBPerSec())
		}
		fmt.Fprintln(o.Out, line)
	}
	return out, nil
}

// pick returns the place in a list of n of the i-th operation, which is negative in the warm-up.
func pick(i, n int) int { return (i%n + n) % n }

func nonZero(x, or int) int {
	if x == 0 {
		return or
	}
	return x
}

// PrintContent writes the content results: for each store, operation and size, MB/s and p50
// through the gateway and plain, and their ratio.
func PrintContent(w io.Writer, rs []ContentResult) {
	find := func(store, op, way string, size int) (ContentResult, bool) {
		for _, r := range rs {
			if r.Store == store && r.Op == op && r.Way == way && r.Size == size {
				return r, true
			}
		}
		return ContentResult{}, false
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "store\top\tsize\tholler MB/s\tplain MB/s\tholler/plain\tholler p50\tplain p50\tbare HTTP MB/s\tholler/bare HTTP\t")
	for _, r := range rs {
		if r.Way != "holler" {
			continue
		}
		p, ok := find(r.Store, r.Op, "plain", r.Size)
		if !ok {
			continue
		}
		floor, floorRatio := "", ""
		if f, ok := find(r.Store, r.Op, "http", r.Size); ok {
			floor, floorRatio = fmt.Sprintf("%.1f", f.MBPerSec()), FormatRatio(Ratio(r.MBPerSec(), f.MBPerSec()))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%.1f\t%.1f\t%s\t%s\t%s\t%s\t%s\t\n", r.Store, r.Op, FormatBytes(r.Size), r.MBPerSec(), p.MBPerSec(),
			FormatRatio(Ratio(r.MBPerSec(), p.MBPerSec())), FormatLatency(r.P50), FormatLatency(p.P50), floor, floorRatio)
	}
	tw.Flush()
}

func httpPut(ctx context.Context, c *http.Client, base string, b []byte) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, base+"/cas", bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	var got struct {
		Hash    string `json:"hash"`
		Existed bool   `json:"existed"`
	}
	if resp.StatusCode != http.StatusCreated {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1000))
		return "", fmt.Errorf("PUT /cas answered %s, want 201 Created: %s", resp.Status, msg)
	}
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		return "", err
	}
	return got.Hash, nil
}

// httpPutFile sends b to the bare server of a plainDir as the file name.
func httpPutFile(ctx context.Context, c *http.Client, base, name string, b []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, base+"/cas/"+name, bytes.NewReader(b))
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 1000))
		return fmt.Errorf("PUT /cas/%s to the bare server answered %s: %s", name, resp.Status, msg)
	}
	_, err = io.Copy(io.Discard, resp.Body)
	return err
}

func httpGet(ctx context.Context, c *http.Client, base, hash string, size int) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/cas/"+hash, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	switch {
	case err != nil:
		return err
	case resp.StatusCode != http.StatusOK:
		return fmt.Errorf("GET /cas/%s answered %s", hash, resp.Status)
	case n != int64(size):
		return fmt.Errorf("GET /cas/%s gave %d bytes, want %d", hash, n, size)
	}
	return nil
}

// A plainStore writes and reads bytes the plainest way its kind of store allows.
type plainStore interface {
	put(ctx context.Context, name string, b []byte) error
	get(ctx context.Context, name string, size int) error
	// bare returns the URL of a bare net/http server on loopback that serves GET /cas/NAME
	// of what put stored as NAME, and whether it takes PUT /cas/NAME too; "" when none was
	// started.
	bare() (base string, puts bool)
}

// plainDir writes a file, fsyncs and closes it, as a file copy that keeps what it wrote does.
// base, once serve has started, is the URL of a bare HTTP server of its files.
type plainDir struct{ dir, base string }

// serve starts a bare net/http server on loopback that answers GET /cas/NAME with the file
// NAME through http.ServeContent (sendfile), as any Go file server does, and PUT /cas/NAME by
// writing the body to a new file NAME, fsynced and closed as plainDir.put writes, and returns
// a function that stops it.
func (d *plainDir) serve() (stop func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/cas/")
		if strings.ContainsAny(name, "/\\") || name == "" || name == "." || name == ".." {
			http.NotFound(w, r)
			return
		}
		if r.Method == http.MethodPut {
			if err := d.write(name, r.Body); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusCreated)
			return
		}
		f, err := os.Open(filepath.Join(d.dir, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/octet-stream")
		http.ServeContent(w, r, "", info.ModTime(), f)
	})}
	done := make(chan struct{})
	go func() { _ = srv.Serve(l); close(done) }()
	d.base = "http://" + l.Addr().String()
	return func() { srv.Close(); <-done }, nil
}

func (d *plainDir) bare() (string, bool) { return d.base, d.base != "" }

func (d *plainDir) put(_ context.Context, name string, b []byte) error {
	return d.write(name, bytes.NewReader(b))
}

// write copies r to a new file name, fsyncs and closes it.
func (d *plainDir) write(name string, r io.Reader) error {
	f, err := os.Create(filepath.Join(d.dir, name))
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, r); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func (d *plainDir) get(_ context.Context, name string, size int) error {
	f, err := os.Open(filepath.Join(d.dir, name))
	if err != nil {
		return err
	}
	defer f.Close()
	n, err := io.Copy(io.Discard, f)
	if err == nil && n != int64(size) {
		err = fmt.Errorf("read %d bytes, want %d", n, size)
	}
	return err
}

// plainS3 puts and gets objects with the AWS SDK, set up as the content store sets it up
// (path-style, checksums only where required), without anything of the store around it.
type plainS3 struct {
	client         *s3.Client
	bucket, prefix string
	// base, once serve has started, is the URL of a bare HTTP server of its objects.
	base string
}

func (p *plainS3) bare() (string, bool) { return p.base, false }

// serve starts a bare net/http server on loopback that answers GET /cas/NAME with the object
// NAME, the way a Go server in front of S3 would: GetObject with the SDK, the length and type
// from its answer, and io.Copy of its body; it returns a function that stops it. What holler
// adds to a GET from S3 beyond any such proxy is holler over this server.
func (p *plainS3) serve() (stop func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/cas/")
		if r.Method != http.MethodGet || strings.ContainsAny(name, "/\\") || name == "" || name == "." || name == ".." {
			http.NotFound(w, r)
			return
		}
		out, err := p.client.GetObject(r.Context(), &s3.GetObjectInput{Bucket: aws.String(p.bucket), Key: aws.String(p.prefix + "/" + name)})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer out.Body.Close()
		w.Header().Set("Content-Type", aws.ToString(out.ContentType))
		w.Header().Set("Content-Length", strconv.FormatInt(aws.ToInt64(out.ContentLength), 10))
		_, _ = io.Copy(w, out.Body)
	})}
	done := make(chan struct{})
	go func() { _ = srv.Serve(l); close(done) }()
	p.base = "http://" + l.Addr().String()
	return func() { srv.Close(); <-done }, nil
}

func newPlainS3(ctx context.Context, bucket, prefix string) (*plainS3, error) {
	cfg, err := config.LoadDefaultConfig(ctx,
		config.WithEC2IMDSClientEnableState(imds.ClientDisabled),
		config.WithRequestChecksumCalculation(aws.RequestChecksumCalculationWhenRequired),
		config.WithResponseChecksumValidation(aws.ResponseChecksumValidationWhenRequired))
	if err != nil {
		return nil, err
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) { o.UsePathStyle = true })
	return &plainS3{client: client, bucket: bucket, prefix: prefix}, nil
}

func (p *plainS3) put(ctx context.Context, name string, b []byte) error {
	_, err := p.client.PutObject(ctx, &s3.PutObjectInput{Bucket: aws.String(p.bucket), Key: aws.String(p.prefix + "/" + name),
		Body: bytes.NewReader(b), ContentLength: aws.Int64(int64(len(b)))})
	return err
}

func (p *plainS3) get(ctx context.Context, name string, size int) error {
	out, err := p.client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String(p.bucket), Key: aws.String(p.prefix + "/" + name)})
	if err != nil {
		return err
	}
	defer out.Body.Close()
	n, err := io.Copy(io.Discard, out.Body)
	if err == nil && n != int64(size) {
		err = fmt.Errorf("read %d bytes, want %d", n, size)
	}
	return err
}

// A gateway is a holler process with one hootenanny worker, started for the content part.
type gateway struct {
	cmd  *exec.Cmd
	base string
	log  string
	done chan struct{}
}

// startGateway starts holler on loopback with a worker whose data directory is data and whose
// content store is casURL, and waits until it serves.
func startGateway(ctx context.Context, holler, hootenanny, data, casURL string) (*gateway, error) {
	ports := make([]int, 2)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ports[i] = l.Addr().(*net.TCPAddr).Port
		l.Close()
	}
	addr := fmt.Sprintf("127.0.0.1:%d", ports[0])
	g := &gateway{base: "http://" + addr, log: filepath.Join(data, "holler.log"), done: make(chan struct{})}
	lf, err := os.Create(g.log)
	if err != nil {
		return nil, err
	}
	g.cmd = exec.Command(holler, "serve", "--http-addr", addr,
		"--worker-endpoint", fmt.Sprintf("tcp://127.0.0.1:%d", ports[1]),
		"--worker-command", hootenanny+" --log-level warn",
		"--data", data, "--cas", casURL, "--log-level", "warn")
	g.cmd.Stdout, g.cmd.Stderr = lf, lf
	// A process group of its own, so that the gateway and its worker are stopped together;
	// Pdeathsig stops the gateway should this process die first.
	g.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := g.cmd.Start(); err != nil {
		lf.Close()
		return nil, err
	}
	go func() { _ = g.cmd.Wait(); lf.Close(); close(g.done) }()
	client := &http.Client{Timeout: time.Second}
	for range 300 { // 30 s
		select {
		case <-g.done:
			return nil, errors.New("holler exited before it was ready" + g.tail())
		case <-ctx.Done():
			g.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		resp, err := client.Get(g.base + "/healthz")
		if err != nil {
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode == http.StatusOK && bytes.Contains(b, []byte(`"status":"ok"`)) {
			return g, nil
		}
	}
	g.stop()
	return nil, errors.New("holler's /healthz did not say ok within 30s" + g.tail())
}

// stop ends the gateway and its worker: SIGTERM to the process group, SIGKILL after 10 s.
func (g *gateway) stop() {
	pgid := g.cmd.Process.Pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-g.done:
	case <-time.After(10 * time.Second):
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-g.done
	}
	// The worker may outlive the gateway by a moment; it is in the same group.
	for range 50 {
		if syscall.Kill(-pgid, 0) != nil {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
}

// tail returns the end of the gateway's log, for error messages.
func (g *gateway) tail() string {
	b, err := os.ReadFile(g.log)
	if err != nil || len(b) == 0 {
		return ""
	}
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return "\n--- end of holler's log:\n" + strings.TrimSpace(string(b))
}
