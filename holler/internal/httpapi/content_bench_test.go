package httpapi

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"github.com/hootenanny/hoot/holler/internal/netlimit"
	"github.com/hootenanny/hoot/hootenanny/cas"
)

// BenchmarkContentGet serves GET /cas/{hash} of a 1 MiB object from a directory store over
// loopback, through the content routes behind the connection limits' handler as the gateway
// serves them, and, as the floor, through a bare http.ServeContent of the same file; the client
// reads each answer whole.
func BenchmarkContentGet(b *testing.B) {
	store, err := cas.OpenDir(b.TempDir(), nil)
	if err != nil {
		b.Fatal(err)
	}
	content := bytes.Repeat([]byte("0123456789abcdef"), 1<<16)
	obj, _, err := store.Put(b.Context(), bytes.NewReader(content), "application/octet-stream")
	if err != nil {
		b.Fatal(err)
	}
	name := obj.Hash.String()
	path := store.String() + "/objects/" + name[:2] + "/" + name
	router := NewRouter(Deps{MCP: http.NotFoundHandler(), Services: func() []string { return nil },
		Content: &Content{Backend: &metadata{store: store}, Store: store, Count: func(int64, int64) {}}})
	bare := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f, err := os.Open(path)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		defer f.Close()
		info, _ := f.Stat()
		http.ServeContent(w, r, "", info.ModTime(), f)
	})
	for _, tc := range []struct {
		name    string
		handler http.Handler
	}{{"holler", netlimit.Handler(router, netlimit.HandlerOptions{WriteTimeout: time.Minute})}, {"bare", bare}} {
		b.Run(tc.name, func(b *testing.B) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			client := srv.Client()
			url := srv.URL + "/cas/" + name
			b.SetBytes(int64(len(content)))
			for b.Loop() {
				req, _ := http.NewRequest(http.MethodGet, url, nil)
				req.Host = "127.0.0.1:8080"
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				n, err := io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if err != nil || n != int64(len(content)) || resp.StatusCode != http.StatusOK {
					b.Fatalf("GET = %d, %d bytes, %v", resp.StatusCode, n, err)
				}
			}
		})
	}
}
