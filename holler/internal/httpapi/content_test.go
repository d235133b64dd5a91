package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/cas/storetest"
	"github.com/hootenanny/hoot/hooteproto"
)

// metadata answers cas_inspect and artifact_get from the store, as a worker would.
type metadata struct {
	store     cas.Store
	artifacts map[string]string // id -> hash
	artTypes  map[string]string // id -> media type, when not audio/midi
	known     map[string]string // hash -> media type, answered without the store
	down      bool
}

func (m *metadata) Call(_ context.Context, c hooteproto.Call) (*hootv1.Result, error) {
	p := c.Payload
	if m.down {
		return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "no worker serves the service")
	}
	notFound := &hootv1.Result{Result: &hootv1.Result_Error{Error: &hootv1.ToolError{Category: hootv1.ErrorCategory_ERROR_CATEGORY_NOT_FOUND, Message: "not here"}}}
	switch x := p.GetRequest().(type) {
	case *hootv1.Payload_CasInspect:
		if mt, ok := m.known[x.CasInspect.GetHash()]; ok {
			return &hootv1.Result{Result: &hootv1.Result_CasInspect{CasInspect: &hootv1.CasInspectResult{Hash: x.CasInspect.GetHash(), MimeType: mt}}}, nil
		}
		h, _ := cas.ParseHash(x.CasInspect.GetHash())
		obj, err := m.store.Stat(context.Background(), h)
		if errors.Is(err, cas.ErrUnavailable) {
			return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "the content store cannot be reached now").WithHint("call again in a few seconds")
		}
		if err != nil {
			return notFound, nil
		}
		return &hootv1.Result{Result: &hootv1.Result_CasInspect{CasInspect: &hootv1.CasInspectResult{Hash: obj.Hash.String(), MimeType: obj.MimeType}}}, nil
	case *hootv1.Payload_ArtifactGet:
		hash, ok := m.artifacts[x.ArtifactGet.GetId()]
		if !ok {
			return notFound, nil
		}
		mt := "audio/midi"
		if t, ok := m.artTypes[x.ArtifactGet.GetId()]; ok {
			mt = t
		}
		return &hootv1.Result{Result: &hootv1.Result_ArtifactGet{ArtifactGet: &hootv1.ArtifactGetResult{
			Artifact: &hootv1.Artifact{Id: x.ArtifactGet.GetId(), Hash: hash, MimeType: mt}}}}, nil
	}
	return nil, hooteproto.NewError(hooteproto.CodeInternal, "unexpected call")
}

func TestContent(t *testing.T) {
	t.Parallel()
	store, err := cas.OpenDir(t.TempDir(), &cas.Options{MaxObjectSize: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	testContent(t, store)
}

// TestContentS3 serves the content routes from an S3 store: the gateway passes the bytes
// through, ranges included.
func TestContentS3(t *testing.T) {
	t.Parallel()
	store, err := cas.OpenURL(t.Context(), storetest.S3URL(t), &cas.Options{MaxObjectSize: 1 << 10})
	if err != nil {
		t.Fatal(err)
	}
	testContent(t, store)
}

// TestContentS3Down stops the object store under the gateway: uploads and downloads answer
// 503 with what to do, and work again once it is back.
func TestContentS3Down(t *testing.T) {
	srv := storetest.StartS3Server(t)
	cfg, _ := cas.ParseS3URL(srv.URL("gateway"))
	cfg.Endpoint = srv.Endpoint
	store, err := cas.OpenS3(t.Context(), cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := store.Put(t.Context(), strings.NewReader("kept"), "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	md := &metadata{store: store, known: map[string]string{obj.Hash.String(): "text/plain"}}
	h := NewRouter(Deps{MCP: http.NotFoundHandler(), Services: func() []string { return nil }, Content: &Content{Backend: md, Store: store}})
	do := func(method, path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newRequest(method, path, strings.NewReader(body)))
		return rec
	}

	srv.Stop()
	for _, tc := range []struct{ method, path, want string }{
		{"PUT", "/cas", "the content store cannot be reached now; try again in a few seconds"},
		{"GET", "/cas/" + obj.Hash.String(), "the content store cannot be reached now; try again in a few seconds"},
		{"GET", "/cas/" + cas.Sum([]byte("other")).String(), "the content store cannot be reached now; try again in a few seconds"},
	} {
		rec := do(tc.method, tc.path, "uploaded")
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("%s %s with the store down = %d %q (Retry-After %q), want 503 saying %q", tc.method, tc.path, rec.Code, rec.Body, rec.Header().Get("Retry-After"), tc.want)
		}
	}

	srv.Start()
	if rec := do("GET", "/cas/"+obj.Hash.String(), ""); rec.Code != http.StatusOK || rec.Body.String() != "kept" {
		t.Errorf("GET once the store is back = %d %q", rec.Code, rec.Body)
	}
	if rec := do("PUT", "/cas", "uploaded"); rec.Code != http.StatusCreated {
		t.Errorf("PUT once the store is back = %d %q", rec.Code, rec.Body)
	}
}

func testContent(t *testing.T, store cas.Store) {
	md := &metadata{store: store, artifacts: map[string]string{}}
	h := NewRouter(Deps{MCP: http.NotFoundHandler(), Services: func() []string { return nil }, Content: &Content{Backend: md, Store: store}})
	do := func(method, path, body string, header ...string) *httptest.ResponseRecorder {
		req := newRequest(method, path, strings.NewReader(body))
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}

	// PUT stores the body and answers its hash.
	rec := do(http.MethodPut, "/cas", "hello world", "Content-Type", "text/plain")
	var put struct {
		Hash    string `json:"hash"`
		Size    int64  `json:"size"`
		Existed bool   `json:"existed"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &put); err != nil || rec.Code != http.StatusCreated || put.Size != 11 || rec.Header().Get("Location") != "/cas/"+put.Hash {
		t.Fatalf("PUT = %d %s", rec.Code, rec.Body)
	}
	if rec := do(http.MethodPut, "/cas", "hello world"); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"existed":true`) {
		t.Errorf("PUT again = %d %s", rec.Code, rec.Body)
	}
	md.artifacts["art_01jd8x2k3m4n5p6q7r8s9t0vwx"] = put.Hash

	for _, tc := range []struct {
		name    string
		method  string
		path    string
		header  []string
		status  int
		body    string
		headers map[string]string
	}{
		{"object", "GET", "/cas/" + put.Hash, nil, 200, "hello world", map[string]string{"Content-Type": "text/plain", "ETag": `"` + put.Hash + `"`, "Accept-Ranges": "bytes"}},
		{"head", "HEAD", "/cas/" + put.Hash, nil, 200, "", map[string]string{"Content-Length": "11"}},
		{"range", "GET", "/cas/" + put.Hash, []string{"Range", "bytes=6-"}, 206, "world", map[string]string{"Content-Range": "bytes 6-10/11"}},
		{"not modified", "GET", "/cas/" + put.Hash, []string{"If-None-Match", `"` + put.Hash + `"`}, 304, "", nil},
		{"artifact", "GET", "/artifacts/art_01jd8x2k3m4n5p6q7r8s9t0vwx/content", nil, 200, "hello world", map[string]string{"Content-Type": "audio/midi"}},
		{"unknown object", "GET", "/cas/" + strings.Repeat("0", 64), nil, 404, "not here", nil},
		{"bad hash", "GET", "/cas/xyz", nil, 400, "hash has 3 characters", nil},
		{"unknown artifact", "GET", "/artifacts/art_00000000000000000000000000/content", nil, 404, "not here", nil},
		{"bad artifact id", "GET", "/artifacts/nope/content", nil, 400, "must match", nil},
		{"too large", "PUT", "/cas", nil, 413, "limit", nil},
		{"bad content type", "PUT", "/cas", []string{"Content-Type", "not a type"}, 400, "not a media type", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := ""
			if tc.name == "too large" {
				body = strings.Repeat("x", 2<<10)
			}
			rec := do(tc.method, tc.path, body, tc.header...)
			got, _ := io.ReadAll(rec.Body)
			if rec.Code != tc.status || !strings.Contains(string(got), tc.body) {
				t.Errorf("%s %s = %d %q, want %d with %q", tc.method, tc.path, rec.Code, got, tc.status, tc.body)
			}
			for k, v := range tc.headers {
				if rec.Header().Get(k) != v {
					t.Errorf("%s = %q, want %q", k, rec.Header().Get(k), v)
				}
			}
		})
	}
	if n, _, _ := store.Stats(context.Background()); n != 1 {
		t.Errorf("the store holds %d objects after the failed uploads, want 1", n)
	}

	// An object is served from the store without a worker; an artifact needs one.
	md.down = true
	if rec := do("GET", "/cas/"+put.Hash, ""); rec.Code != http.StatusOK || rec.Body.String() != "hello world" {
		t.Errorf("GET of an object without workers = %d %s, want 200 from the store", rec.Code, rec.Body)
	}
	if rec := do("GET", "/artifacts/art_01jd8x2k3m4n5p6q7r8s9t0vwx/content", ""); rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") == "" {
		t.Errorf("GET of an artifact without workers = %d %s", rec.Code, rec.Body)
	}
	noStore := NewRouter(Deps{MCP: http.NotFoundHandler(), Services: func() []string { return nil }, Content: &Content{Backend: md}})
	rec = httptest.NewRecorder()
	noStore.ServeHTTP(rec, newRequest("PUT", "/cas", strings.NewReader("x")))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "--cas") {
		t.Errorf("PUT without a store = %d %s", rec.Code, rec.Body)
	}
}

// TestContentManyRangesRemote: a request for many byte ranges of an object in a remote store
// gets the whole object (each range would be a request of its own to the store); a few ranges
// are served as asked, and a local store serves many.
func TestContentManyRangesRemote(t *testing.T) {
	t.Parallel()
	remote, err := cas.OpenURL(t.Context(), storetest.S3URL(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	local, err := cas.OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("0123456789", 100)
	many := "bytes=0-0,10-10,20-20,30-30,40-40,50-50"
	for _, tc := range []struct {
		name   string
		store  cas.Store
		ranges string
		want   int
	}{
		{"remote, many ranges", remote, many, http.StatusOK},
		{"remote, two ranges", remote, "bytes=0-0,10-10", http.StatusPartialContent},
		{"local, many ranges", local, many, http.StatusPartialContent},
	} {
		obj, _, err := tc.store.Put(t.Context(), strings.NewReader(body), "text/plain")
		if err != nil {
			t.Fatal(err)
		}
		md := &metadata{store: tc.store, known: map[string]string{obj.Hash.String(): "text/plain"}}
		h := NewRouter(Deps{MCP: http.NotFoundHandler(), Services: func() []string { return nil }, Content: &Content{Backend: md, Store: tc.store}})
		req := newRequest("GET", "/cas/"+obj.Hash.String(), nil)
		req.Header.Set("Range", tc.ranges)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.want || (tc.want == http.StatusOK && rec.Body.String() != body) {
			t.Errorf("%s: GET with Range %q = %d (%d bytes), want %d", tc.name, tc.ranges, rec.Code, rec.Body.Len(), tc.want)
		}
	}
}

// retryAfter is a backend whose every call fails as unavailable, retryable after d.
type retryAfter time.Duration

func (d retryAfter) Call(context.Context, hooteproto.Call) (*hootv1.Result, error) {
	e := hooteproto.NewError(hooteproto.CodeUnavailable, "the content store cannot be reached now")
	if d > 0 {
		e = e.WithRetryAfter(time.Duration(d))
	}
	return nil, e
}

// TestContentRetryAfter: the Retry-After of a 503 is the wait the worker asked for, in whole
// seconds rounded up, and at least one.
func TestContentRetryAfter(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		wait time.Duration
		want string
	}{{0, "1"}, {300 * time.Millisecond, "1"}, {time.Second, "1"}, {5 * time.Second, "5"}, {4500 * time.Millisecond, "5"}} {
		h := NewRouter(Deps{MCP: http.NotFoundHandler(), Services: func() []string { return nil }, Content: &Content{Backend: retryAfter(tc.wait)}})
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newRequest("GET", "/artifacts/art_01jd8x2k3m4n5p6q7r8s9t0vwx/content", nil))
		if rec.Code != http.StatusServiceUnavailable || rec.Header().Get("Retry-After") != tc.want {
			t.Errorf("a worker asking to wait %v: %d, Retry-After %q; want 503, %q", tc.wait, rec.Code, rec.Header().Get("Retry-After"), tc.want)
		}
	}
}

// counting is a backend that counts its calls before passing them on.
type counting struct {
	Backend
	calls atomic.Int64
}

func (c *counting) Call(ctx context.Context, call hooteproto.Call) (*hootv1.Result, error) {
	c.calls.Add(1)
	return c.Backend.Call(ctx, call)
}

// TestContentObjectFromStore: an object's GETs and HEADs, ranges and conditions included, are
// answered from the store without a call to a worker, with the store's media type; a worker is
// asked only about a hash the store lacks, and its answer tells an unknown hash (404) from a
// gateway whose store is not the workers' (502, saying what to start holler with).
func TestContentObjectFromStore(t *testing.T) {
	t.Parallel()
	store, err := cas.OpenDir(t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := store.Put(t.Context(), strings.NewReader("from the store"), "text/plain")
	if err != nil {
		t.Fatal(err)
	}
	elsewhere := cas.Sum([]byte("only in the workers' store")).String()
	md := &counting{Backend: &metadata{store: store, known: map[string]string{elsewhere: "text/plain"}}}
	h := NewRouter(Deps{MCP: http.NotFoundHandler(), Services: func() []string { return nil }, Content: &Content{Backend: md, Store: store}})
	path := "/cas/" + obj.Hash.String()
	for _, tc := range []struct {
		method string
		header []string
		status int
		body   string
	}{
		{"GET", nil, 200, "from the store"},
		{"HEAD", nil, 200, ""},
		{"GET", []string{"Range", "bytes=5-7"}, 206, "the"},
		{"GET", []string{"If-None-Match", `"` + obj.Hash.String() + `"`}, 304, ""},
	} {
		req := newRequest(tc.method, path, nil)
		for i := 0; i+1 < len(tc.header); i += 2 {
			req.Header.Set(tc.header[i], tc.header[i+1])
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tc.status || rec.Body.String() != tc.body || (tc.status == 200 && rec.Header().Get("Content-Type") != "text/plain") {
			t.Errorf("%s %v = %d %q (%s), want %d %q as text/plain", tc.method, tc.header, rec.Code, rec.Body, rec.Header().Get("Content-Type"), tc.status, tc.body)
		}
	}
	if n := md.calls.Load(); n != 0 {
		t.Errorf("serving a stored object made %d calls to workers, want none", n)
	}

	for _, tc := range []struct {
		hash   string
		status int
		want   string
	}{
		{strings.Repeat("0", 64), http.StatusNotFound, "not here"},
		{elsewhere, http.StatusBadGateway, "start holler with --cas naming the workers' content store"},
	} {
		before := md.calls.Load()
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, newRequest("GET", "/cas/"+tc.hash, nil))
		if rec.Code != tc.status || !strings.Contains(rec.Body.String(), tc.want) {
			t.Errorf("GET /cas/%s = %d %q, want %d saying %q", tc.hash[:8], rec.Code, rec.Body, tc.status, tc.want)
		}
		if n := md.calls.Load() - before; n != 1 {
			t.Errorf("GET of an object the store lacks made %d calls to workers, want 1", n)
		}
	}
}
