package httpapi

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/holler/internal/netlimit"
	"github.com/hootenanny/hoot/hootenanny/cas"
)

// fileSink is a ResponseWriter that, like the server's, takes a body through ReadFrom; it
// records what ReadFrom was handed, with one io.LimitedReader taken off as the connection's
// sendfile does.
type fileSink struct {
	header   http.Header
	status   int
	body     bytes.Buffer
	fromFile bool
	readFrom int
}

func (s *fileSink) Header() http.Header { return s.header }

func (s *fileSink) WriteHeader(code int) {
	if s.status == 0 {
		s.status = code
	}
}

func (s *fileSink) Write(b []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	return s.body.Write(b)
}

func (s *fileSink) ReadFrom(src io.Reader) (int64, error) {
	s.WriteHeader(http.StatusOK)
	s.readFrom++
	inner := src
	if lr, ok := src.(*io.LimitedReader); ok {
		inner = lr.R
	}
	if _, ok := inner.(*os.File); ok {
		s.fromFile = true
	}
	return s.body.ReadFrom(src)
}

// TestContentGetReachesSendfile checks that a GET of an object from a directory store hands
// the object's file to the connection's ReadFrom (where the server sends it by sendfile)
// through every wrapper in front of it: the byte counting of the content routes and the
// connection limits' write deadlines. A wrapper that hides ReadFrom makes the body go through
// a buffer of the gateway's instead, at a fraction of the speed.
func TestContentGetReachesSendfile(t *testing.T) {
	t.Parallel()
	store, err := cas.OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	content := bytes.Repeat([]byte("sendfile "), 100_000)
	obj, _, err := store.Put(t.Context(), bytes.NewReader(content), "application/octet-stream")
	if err != nil {
		t.Fatal(err)
	}
	var in, out int64
	router := NewRouter(Deps{MCP: http.NotFoundHandler(), Services: func() []string { return nil },
		Content: &Content{Backend: &metadata{store: store}, Store: store, Count: func(i, o int64) { in, out = i, o }}})
	for _, tc := range []struct {
		name    string
		handler http.Handler
	}{
		{"router", router},
		{"connection limits", netlimit.Handler(router, netlimit.HandlerOptions{WriteTimeout: time.Minute})},
	} {
		in, out = -1, -1
		sink := &fileSink{header: http.Header{}}
		tc.handler.ServeHTTP(sink, newRequest(http.MethodGet, "/cas/"+obj.Hash.String(), nil))
		if sink.status != http.StatusOK || !bytes.Equal(sink.body.Bytes(), content) {
			t.Fatalf("%s: GET = %d with %d bytes, want 200 with the %d bytes stored", tc.name, sink.status, sink.body.Len(), len(content))
		}
		if !sink.fromFile {
			t.Errorf("%s: the body reached the connection through %d ReadFrom calls, none of them from the object's file", tc.name, sink.readFrom)
		}
		if in != 0 || out != int64(len(content)) {
			t.Errorf("%s: counted %d bytes in and %d out, want 0 and %d", tc.name, in, out, len(content))
		}
	}
}

// TestContentCount checks what the content routes count: the body of a stored PUT and of a
// GET, nothing of an answer that failed, and the whole body when a handler writes it with
// Write to a writer without ReadFrom.
func TestContentCount(t *testing.T) {
	t.Parallel()
	store, err := cas.OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	type counted struct{ in, out int64 }
	var got []counted
	router := NewRouter(Deps{MCP: http.NotFoundHandler(), Services: func() []string { return nil },
		Content: &Content{Backend: &metadata{store: store}, Store: store, Count: func(i, o int64) { got = append(got, counted{i, o}) }}})

	rec := httptest.NewRecorder()
	router.ServeHTTP(rec, newRequest(http.MethodPut, "/cas", strings.NewReader("counted bytes")))
	if rec.Code != http.StatusCreated {
		t.Fatalf("PUT = %d %s", rec.Code, rec.Body)
	}
	putAnswer := int64(rec.Body.Len())
	h := cas.Sum([]byte("counted bytes")).String()

	// httptest's recorder has no ReadFrom: ServeContent's copy goes through Write.
	rec = httptest.NewRecorder()
	router.ServeHTTP(rec, newRequest(http.MethodGet, "/cas/"+h, nil))
	if rec.Code != http.StatusOK || rec.Body.String() != "counted bytes" {
		t.Fatalf("GET = %d %q", rec.Code, rec.Body)
	}
	rec = httptest.NewRecorder()
	router.ServeHTTP(rec, newRequest(http.MethodGet, "/cas/"+strings.Repeat("0", 64), nil))
	if rec.Code != http.StatusNotFound {
		t.Fatalf("GET of an unknown hash = %d %s", rec.Code, rec.Body)
	}
	want := []counted{{int64(len("counted bytes")), putAnswer}, {0, int64(len("counted bytes"))}}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("counted %v, want %v (nothing for the 404)", got, want)
	}
}
