package storebench

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/cas/storetest"
)

// TestPlainDirServe checks the bare HTTP server of the floor rows: a PUT writes the body to the
// file it names, a GET sends it back, and names that leave the directory are refused.
func TestPlainDirServe(t *testing.T) {
	t.Parallel()
	d := &plainDir{dir: t.TempDir()}
	stop, err := d.serve()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	client := &http.Client{Timeout: time.Minute}
	body := bytes.Repeat([]byte("floor "), 20_000)
	if err := httpPutFile(t.Context(), client, d.base, "object", body); err != nil {
		t.Fatal(err)
	}
	if got, err := os.ReadFile(filepath.Join(d.dir, "object")); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("the file PUT wrote has %d bytes (%v), want the %d sent", len(got), err, len(body))
	}
	if err := httpGet(t.Context(), client, d.base, "object", len(body)); err != nil {
		t.Errorf("GET of what was PUT: %v", err)
	}
	if err := httpPutFile(t.Context(), client, d.base, "..", body); err == nil || !strings.Contains(err.Error(), "404") {
		t.Errorf("PUT of .. = %v, want a 404", err)
	}
}

// TestPrintTargetsFloors checks that each floor measured is printed under its target: holler
// over the bare server, and the bare server over plain.
func TestPrintTargetsFloors(t *testing.T) {
	fig := func(mb float64) Figures { return Figures{N: 10, Elapsed: time.Second, Bytes: int64(mb * 1e6)} }
	rs := []ContentResult{
		{"directory", "PUT", "holler", 64 << 10, fig(20)},
		{"directory", "PUT", "plain", 64 << 10, fig(80)},
		{"directory", "PUT", "http", 64 << 10, fig(40)},
		{"directory", "GET", "holler", 1 << 20, fig(900)},
		{"directory", "GET", "plain", 1 << 20, fig(6000)},
		{"directory", "GET", "http", 1 << 20, fig(1000)},
		{"s3", "GET", "holler", 16 << 20, fig(600)},
		{"s3", "GET", "plain", 16 << 20, fig(800)},
		{"s3", "GET", "http", 16 << 20, fig(700)},
	}
	var b strings.Builder
	PrintTargets(&b, nil, rs)
	out := b.String()
	words := strings.Join(strings.Fields(out), " ")
	for _, want := range []string{
		"PUT /cas through holler / plain, directory, 64 KiB 0.25x",
		"holler / a bare net/http server writing and fsyncing a file 0.50x (bare HTTP / plain: 0.50x)",
		"GET /cas through holler / plain, directory, 1 MiB 0.15x",
		"holler / a bare net/http server of the same file 0.90x (bare HTTP / plain: 0.17x)",
		"GET /cas through holler / plain, s3, 16 MiB 0.75x target >= 0.8x MISSED",
		"holler / a bare net/http proxy (GetObject, io.Copy) 0.86x (bare HTTP / plain: 0.88x)",
	} {
		if !strings.Contains(words, want) {
			t.Errorf("the targets lack %q:\n%s", want, out)
		}
	}
}

// TestPlainS3Serve checks the bare proxy of the S3 floor row: a GET of what plainS3.put stored
// comes back whole, and an unknown name is an error.
func TestPlainS3Serve(t *testing.T) {
	t.Parallel()
	cfg, err := cas.ParseS3URL(storetest.S3URL(t))
	if err != nil {
		t.Fatal(err)
	}
	p, err := newPlainS3(t.Context(), cfg.Bucket, cfg.Prefix)
	if err != nil {
		t.Fatal(err)
	}
	stop, err := p.serve()
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	if base, puts := p.bare(); base == "" || puts {
		t.Fatalf("bare() = %q, %v; want a URL and no PUTs", base, puts)
	}
	body := bytes.Repeat([]byte("proxied "), 50_000)
	if err := p.put(t.Context(), "object", body); err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: time.Minute}
	if err := httpGet(t.Context(), client, p.base, "object", len(body)); err != nil {
		t.Errorf("GET through the bare proxy: %v", err)
	}
	if err := httpGet(t.Context(), client, p.base, "missing", len(body)); err == nil {
		t.Error("GET of a missing object through the bare proxy succeeded")
	}
}
