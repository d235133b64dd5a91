package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hooteproto"
)

// A Backend carries a typed call to a worker, as the MCP server's does.
type Backend interface {
	Call(ctx context.Context, c hooteproto.Call) (*hootv1.Result, error)
}

// Content serves stored bytes over HTTP:
//
//	GET  /cas/{hash}              the object's bytes
//	GET  /artifacts/{id}/content  the bytes of the artifact's content
//	PUT  /cas                     stores the request body; answers its hash
//
// The bytes are read from, and uploads written to, the content store directly, which the
// gateway shares with the workers: the same directory on one machine, or the same S3 bucket
// and prefix. An artifact's hash and media type come from a worker over the wire
// (artifact_get); an object's come with its bytes from the store, and a worker is asked
// (cas_inspect) only when the gateway's store does not have the object, to tell an unknown
// hash from a gateway whose store is not the workers'. The gateway passes the bytes
// through itself rather than redirecting to the object store, so that clients have one origin
// and one place where access is checked. GETs carry the media type, an ETag (the hash, since content never changes at an
// address), Last-Modified, and support Range and conditional requests.
type Content struct {
	// Backend asks the workers for metadata.
	Backend Backend
	// Store is the content store the workers write. Nil answers 503 with a hint.
	Store cas.Store
	// CallTimeout bounds one metadata call (default 30 s).
	CallTimeout time.Duration
	// MaxUploads bounds the PUT /cas that run at once, from all clients (default
	// DefaultMaxUploads); MaxUploadsPerClient bounds those of one client, a token or, without
	// access control, an address (default DefaultMaxUploadsPerClient). One more is refused
	// with 503 or 429 and a Retry-After.
	MaxUploads, MaxUploadsPerClient int
	// Count, if not nil, is told the bytes of content each successful request took in (a
	// PUT's body) and sent out (a GET's body), for metrics.
	Count func(in, out int64)
}

// mount adds the content routes to r.
func (c *Content) mount(r chi.Router) {
	r = r.With(protect, c.count)
	r.Get("/cas/{hash}", c.getObject)
	r.Head("/cas/{hash}", c.getObject)
	r.With(c.limitUploads()).Put("/cas", c.putObject)
	r.Get("/artifacts/{id}/content", c.getArtifact)
	r.Head("/artifacts/{id}/content", c.getArtifact)
}

// protect sets the content routes' security headers (contentSecurity) on every answer,
// errors included, before anything is written.
func protect(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		for k, v := range contentSecurity {
			h.Set(k, v)
		}
		next.ServeHTTP(w, r)
	})
}

// getObject serves an object from the store. Its metadata comes with it: the media type and
// stored time are the store's, which is what cas_inspect would answer, so no worker is asked
// for what the gateway reads anyway (on S3 that would be a HEAD more, besides the hop).
func (c *Content) getObject(w http.ResponseWriter, r *http.Request) {
	hash := chi.URLParam(r, "hash")
	h, err := cas.ParseHash(hash)
	if err != nil {
		httpError(w, http.StatusBadRequest, err.Error())
		return
	}
	if c.Store == nil {
		noStore(w)
		return
	}
	f, obj, err := c.open(r, h)
	if errors.Is(err, cas.ErrNotFound) {
		// A worker tells an unknown hash (404, with its hint) from a gateway whose store is
		// not the workers' (they have the object).
		if _, ok := c.call(w, r, "cas", &hootv1.Payload{Request: &hootv1.Payload_CasInspect{CasInspect: &hootv1.CasInspectRequest{Hash: hash}}}); ok {
			notShared(w, hash)
		}
		return
	}
	if err != nil {
		storeError(w, err, "reading the object failed")
		return
	}
	defer f.Close()
	c.write(w, r, hash, hash, obj.MimeType, f, obj)
}

func (c *Content) getArtifact(w http.ResponseWriter, r *http.Request) {
	id := chi.URLParam(r, "id")
	res, ok := c.call(w, r, "artifact", &hootv1.Payload{Request: &hootv1.Payload_ArtifactGet{ArtifactGet: &hootv1.ArtifactGetRequest{Id: id}}})
	if !ok {
		return
	}
	a := res.GetArtifactGet().GetArtifact()
	c.serve(w, r, id, a.GetHash(), a.GetMimeType())
}

// call validates and sends one metadata call, and answers the client itself when it fails.
func (c *Content) call(w http.ResponseWriter, r *http.Request, service string, p *hootv1.Payload) (*hootv1.Result, bool) {
	if err := hooteproto.Validate(hooteproto.RequestOf(p)); err != nil {
		httpError(w, http.StatusBadRequest, hooteproto.AsError(err).Message())
		return nil, false
	}
	timeout := c.CallTimeout
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	ctx, cancel := context.WithTimeout(r.Context(), timeout)
	defer cancel()
	res, err := c.Backend.Call(ctx, hooteproto.Call{Service: service, Payload: p})
	if err == nil && res.GetError() != nil {
		err = hooteproto.ErrorFromTool(res.GetError())
	}
	if err != nil {
		e := hooteproto.AsError(err)
		status := http.StatusBadGateway
		switch e.Code() {
		case hooteproto.CodeNotFound:
			status = http.StatusNotFound
		case hooteproto.CodeInvalidArgument:
			status = http.StatusBadRequest
		case hooteproto.CodeUnavailable, hooteproto.CodeOverloaded:
			status = http.StatusServiceUnavailable
		case hooteproto.CodeDeadlineExceeded:
			status = http.StatusGatewayTimeout
		}
		if e.Retryable() {
			// As long as the worker asks callers to wait (a content store that is down asks
			// for seconds), at least a second.
			w.Header().Set("Retry-After", strconv.Itoa(int(max(time.Second, e.RetryAfter()+time.Second-1)/time.Second)))
		}
		msg := e.Message()
		if e.Hint() != "" {
			msg += "\nhint: " + e.Hint()
		}
		httpError(w, status, msg)
		return nil, false
	}
	return res, true
}

// maxRemoteRanges is the most byte ranges that one request may ask of an object in a store
// that is not on this machine.
const maxRemoteRanges = 4

// serve writes the bytes of the object hash, which a worker says exists (an artifact's
// content), under the file name name, as write says.
func (c *Content) serve(w http.ResponseWriter, r *http.Request, name, hash, mimeType string) {
	if c.Store == nil {
		noStore(w)
		return
	}
	h, err := cas.ParseHash(hash)
	if err != nil {
		httpError(w, http.StatusBadGateway, "the worker named a malformed hash")
		return
	}
	f, obj, err := c.open(r, h)
	if errors.Is(err, cas.ErrNotFound) {
		notShared(w, hash)
		return
	}
	if err != nil {
		storeError(w, err, "reading the object failed")
		return
	}
	defer f.Close()
	c.write(w, r, name, hash, mimeType, f, obj)
}

// open opens the object h for the request r: streamed from its start when r will read it
// whole (a GET without a range or a condition) and the store can save a request that way (see
// cas.Streamer), else with Open.
func (c *Content) open(r *http.Request, h cas.Hash) (io.ReadSeekCloser, cas.Object, error) {
	if s, ok := c.Store.(cas.Streamer); ok && readsWhole(r) {
		return s.OpenStream(r.Context(), h)
	}
	return c.Store.Open(r.Context(), h)
}

// readsWhole reports whether answering r reads the whole object in order: a GET that asks for
// no range and sets no condition, which could make the answer 304, 412 or a part.
func readsWhole(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	for _, k := range []string{"Range", "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range"} {
		if _, ok := r.Header[k]; ok {
			return false
		}
	}
	return true
}

// notShared answers a GET of an object that a worker has and the gateway's store does not.
func notShared(w http.ResponseWriter, hash string) {
	httpError(w, http.StatusBadGateway, "a worker has object "+hash+" but this gateway's content store does not: "+
		"start holler with --cas naming the workers' content store (or --data their data directory)")
}

// write answers r with the object obj, open in f, under the file name name, as classify says
// for mimeType (the object's own when empty). A query parameter download (any value) asks for
// an attachment whatever the type.
func (c *Content) write(w http.ResponseWriter, r *http.Request, name, hash, mimeType string, f io.ReadSeeker, obj cas.Object) {
	if _, local := c.Store.(*cas.Dir); !local && strings.Count(r.Header.Get("Range"), ",") >= maxRemoteRanges {
		// Each range of a remote store's object is a request of its own to the store: a
		// request with many ranges gets the whole object instead, as HTTP allows.
		r.Header.Del("Range")
	}
	if mimeType == "" {
		mimeType = obj.MimeType
	}
	_, download := r.URL.Query()["download"]
	setServedHeaders(w.Header(), mimeType, name, download)
	w.Header().Set("ETag", `"`+hash+`"`)
	// private: with access control a shared cache must not hand one caller's bytes to another.
	w.Header().Set("Cache-Control", "private, max-age=31536000, immutable")
	// A file goes by sendfile; an object of a remote store in writes of a full buffer.
	http.ServeContent(fillingWriter{w}, r, "", obj.StoredAt, f)
}

// putObject streams the request body into the content store.
func (c *Content) putObject(w http.ResponseWriter, r *http.Request) {
	if c.Store == nil {
		noStore(w)
		return
	}
	mimeType := r.Header.Get("Content-Type")
	if mimeType != "" {
		if _, _, err := mime.ParseMediaType(mimeType); err != nil {
			httpError(w, http.StatusBadRequest, fmt.Sprintf("Content-Type %q is not a media type", mimeType))
			return
		}
	}
	if limit := c.Store.MaxObjectSize(); r.ContentLength > limit {
		httpError(w, http.StatusRequestEntityTooLarge, "the body is larger than the store's limit of "+cas.FormatSize(limit))
		return
	}
	obj, existed, err := c.Store.Put(r.Context(), r.Body, mimeType)
	var tl *cas.TooLargeError
	var mt *cas.MediaTypeError
	switch {
	case errors.As(err, &tl):
		httpError(w, http.StatusRequestEntityTooLarge, tl.Error())
		return
	case errors.As(err, &mt):
		httpError(w, http.StatusBadRequest, mt.Problem)
		return
	case err != nil:
		if r.Context().Err() != nil {
			return // the client went away; nothing was kept
		}
		var me *http.MaxBytesError
		if errors.As(err, &me) {
			httpError(w, http.StatusRequestEntityTooLarge, "the body is too large")
			return
		}
		storeError(w, err, "storing the body failed")
		return
	}
	status := http.StatusCreated
	if existed {
		status = http.StatusOK
	}
	w.Header().Set("Location", "/cas/"+obj.Hash.String())
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(struct {
		Hash     string `json:"hash"`
		Size     int64  `json:"size"`
		MimeType string `json:"mime_type"`
		Existed  bool   `json:"existed"`
	}{obj.Hash.String(), obj.Size, obj.MimeType, existed})
}

func noStore(w http.ResponseWriter) {
	httpError(w, http.StatusServiceUnavailable, "this gateway has no content store: start holler with --cas naming the workers' content store (or --data their data directory)")
}

// storeError answers a failure of the content store: 503, with when to try again, when the
// store cannot be reached now; 500 with msg otherwise.
func storeError(w http.ResponseWriter, err error, msg string) {
	if errors.Is(err, cas.ErrUnavailable) {
		w.Header().Set("Retry-After", "5")
		httpError(w, http.StatusServiceUnavailable, "the content store cannot be reached now; try again in a few seconds. "+
			"If it keeps failing, the gateway's operator should check that its object store is running and reachable.")
		return
	}
	httpError(w, http.StatusInternalServerError, msg)
}

func httpError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, strings.TrimSpace(msg)+"\n")
}
