// Package casservice serves the tools of the "cas" service, cas_store, cas_get, cas_inspect
// and cas_verify (a job), over a content-addressed store.
//
// # Text or base64
//
// cas_get returns a part as text in content when the object's media type says it is text and
// the part is valid UTF-8; otherwise as bytes in content_base64. Text media types are text/*,
// the structured-syntax suffixes +json, +xml and +yaml, and a few application types that are
// text in practice (json, xml, javascript, yaml, toml, sql, graphql, ndjson, x-sh,
// x-www-form-urlencoded). Content of the unknown type application/octet-stream, and text whose
// charset parameter names an encoding other than UTF-8 or US-ASCII, comes back as text when the
// part is valid UTF-8 without control characters other than tab, newline, carriage return and
// form feed. Every other type, such as audio/midi or image/png, comes back as base64.
//
// A part never ends in the middle of a UTF-8 sequence when it is returned as text: if the
// requested bytes would cut a character in two, the part is shortened to end before that
// character, and truncated says the object goes on, so reading on from offset plus the part's
// length in bytes picks up the whole character. A part that would shrink to nothing that way,
// or that starts in the middle of a character, is returned as base64.
package casservice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"mime"
	"strings"
	"unicode/utf8"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/outage"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/types/known/timestamppb"
)

const (
	// MaxPartLength is the most bytes cas_get returns in one call, and what it returns when
	// the call asks for no length: 1 MiB.
	MaxPartLength = 1 << 20
	// DefaultTextMediaType is the media type recorded for text given in cas_store's content
	// without a mime_type.
	DefaultTextMediaType = "text/plain; charset=utf-8"
)

// A Handler serves the "cas" tools over a store.
type Handler struct {
	store cas.Store
	// Logger receives the causes of internal failures, which the caller is not shown. Nil
	// means slog.Default(). Set it before the Handler serves calls.
	Logger *slog.Logger
}

var _ hootv1hoot.CasHandler = (*Handler)(nil)

// New returns a Handler that serves the "cas" tools over store.
func New(store cas.Store) *Handler { return &Handler{store: store} }

// CasStore stores the content of req and returns its hash. Text in content without a media
// type is recorded as [DefaultTextMediaType], bytes in content_base64 without one as
// application/octet-stream. Content already stored keeps the media type it was first stored
// with, which the result reports.
func (h *Handler) CasStore(ctx context.Context, req *hootv1.CasStoreRequest) (*hootv1.CasStoreResult, error) {
	var (
		r     io.Reader
		size  int
		field string
	)
	mimeType := req.GetMimeType()
	switch data := req.GetData().(type) {
	case *hootv1.CasStoreRequest_Content:
		r, size, field = strings.NewReader(data.Content), len(data.Content), "content"
		if mimeType == "" {
			mimeType = DefaultTextMediaType
		}
	case *hootv1.CasStoreRequest_ContentBase64:
		r, size, field = bytes.NewReader(data.ContentBase64), len(data.ContentBase64), "content_base64"
	default:
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			"no content was given; cas_store takes the content in content (text) or content_base64 (base64, for binary data)").
			WithField("content").
			WithHint("set content to the text to store, or content_base64 to binary data in base64, and call cas_store again")
	}
	if limit := h.store.MaxObjectSize(); int64(size) > limit {
		return nil, tooLarge(field, fmt.Sprintf("%s is %s, more than the store's limit of %s", field, cas.FormatSize(int64(size)), cas.FormatSize(limit)), limit)
	}
	obj, existed, err := h.store.Put(ctx, r, mimeType)
	if err != nil {
		var tl *cas.TooLargeError
		var mt *cas.MediaTypeError
		switch {
		case errors.As(err, &tl):
			return nil, tooLarge(field, fmt.Sprintf("%s is more than the store's limit of %s", field, cas.FormatSize(tl.Limit)), tl.Limit)
		case errors.As(err, &mt):
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, mt.Problem).
				WithField("mime_type").
				WithHint("give a media type such as text/plain, text/vnd.abc or audio/midi, or leave mime_type out")
		case ctx.Err() != nil && errors.Is(err, ctx.Err()):
			return nil, hooteproto.AsError(ctx.Err())
		}
		return nil, h.internal("storing the content", err)
	}
	return &hootv1.CasStoreResult{
		Hash:     obj.Hash.String(),
		Size:     uint64(obj.Size),
		MimeType: obj.MimeType,
		Existed:  existed,
	}, nil
}

// CasGet returns a part of a stored object: length bytes (at most [MaxPartLength], and that
// many when length is 0) from offset on, as text or as base64 (see the package documentation).
func (h *Handler) CasGet(ctx context.Context, req *hootv1.CasGetRequest) (*hootv1.CasGetResult, error) {
	hash, herr := parseHash(req.GetHash())
	if herr != nil {
		return nil, herr
	}
	length := req.GetLength()
	switch {
	case length == 0:
		length = MaxPartLength
	case length > MaxPartLength:
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("length %d is more than the %s that one call returns", length, cas.FormatSize(MaxPartLength))).
			WithField("length").
			WithHint(fmt.Sprintf("ask for at most %d bytes, or leave length out to get that many; read larger objects in parts with offset", MaxPartLength))
	}
	offset := req.GetOffset()
	if offset > math.MaxInt64 {
		obj, err := h.store.Stat(ctx, hash)
		if err != nil {
			return nil, h.readError(hash, "reading the object", err)
		}
		return nil, pastEnd(offset, obj.Size)
	}
	part, obj, err := h.store.ReadRange(ctx, hash, int64(offset), int(length))
	if err != nil {
		var re *cas.RangeError
		if errors.As(err, &re) {
			return nil, pastEnd(offset, re.Size)
		}
		return nil, h.readError(hash, "reading the object", err)
	}
	res := &hootv1.CasGetResult{
		Hash:     obj.Hash.String(),
		MimeType: obj.MimeType,
		Size:     uint64(obj.Size),
		Offset:   offset,
	}
	more := int64(offset)+int64(len(part)) < obj.Size
	if text, ok := textOf(part, obj.MimeType, more); ok {
		res.Data = &hootv1.CasGetResult_Content{Content: text}
		part = part[:len(text)]
	} else {
		res.Data = &hootv1.CasGetResult_ContentBase64{ContentBase64: part}
	}
	res.Truncated = int64(offset)+int64(len(part)) < obj.Size
	return res, nil
}

// CasInspect returns what the store knows about an object: its size, media type and when it
// was stored.
func (h *Handler) CasInspect(ctx context.Context, req *hootv1.CasInspectRequest) (*hootv1.CasInspectResult, error) {
	hash, herr := parseHash(req.GetHash())
	if herr != nil {
		return nil, herr
	}
	obj, err := h.store.Stat(ctx, hash)
	if err != nil {
		return nil, h.readError(hash, "inspecting the object", err)
	}
	return &hootv1.CasInspectResult{
		Hash:     obj.Hash.String(),
		Size:     uint64(obj.Size),
		MimeType: obj.MimeType,
		StoredAt: timestamppb.New(obj.StoredAt),
	}, nil
}

// parseHash parses the hash argument, or says what is wrong with it.
func parseHash(s string) (cas.Hash, *hooteproto.Error) {
	hash, err := cas.ParseHash(s)
	if err == nil {
		return hash, nil
	}
	problem := err.Error()
	var he *cas.HashError
	if errors.As(err, &he) {
		problem = he.Problem
	}
	return cas.Hash{}, hooteproto.NewError(hooteproto.CodeInvalidArgument,
		problem+"; a hash is 64 lowercase hex digits as returned by cas_store").
		WithField("hash").
		WithHint("pass the hash exactly as cas_store returned it, without a prefix, quotes or spaces")
}

// readError turns an error from reading the object hash into the caller's error.
func (h *Handler) readError(hash cas.Hash, op string, err error) *hooteproto.Error {
	if errors.Is(err, cas.ErrNotFound) {
		return hooteproto.NewError(hooteproto.CodeNotFound, fmt.Sprintf("no object has the hash %s", hash)).
			WithField("hash").
			WithHint("store content with cas_store first; the hash it returns is what cas_get and cas_inspect take")
	}
	return h.internal(op, err)
}

func (h *Handler) logger() *slog.Logger {
	if h.Logger == nil {
		return slog.Default()
	}
	return h.Logger
}

// tooLarge is the error for content larger than limit.
func tooLarge(field, msg string, limit int64) *hooteproto.Error {
	return hooteproto.NewError(hooteproto.CodeInvalidArgument, msg).
		WithField(field).
		WithHint(fmt.Sprintf("store at most %d bytes in one object; split larger content into parts and store each part", limit))
}

// pastEnd is the error for an offset past the end of an object of size bytes.
func pastEnd(offset uint64, size int64) *hooteproto.Error {
	return hooteproto.NewError(hooteproto.CodeInvalidArgument,
		fmt.Sprintf("offset %d is past the end of the object, which is %s long", offset, cas.FormatSize(size))).
		WithField("offset").
		WithHint(fmt.Sprintf("read from an offset between 0 and %d; cas_inspect shows an object's size", size))
}

// internal logs err and returns an error that tells the caller what failed without the
// store's paths or other details.
func (h *Handler) internal(op string, err error) *hooteproto.Error {
	if e := outage.Error(op, err); e != nil {
		h.logger().Warn("casservice: "+op+" failed", "err", err)
		return e
	}
	h.logger().Error("casservice: "+op+" failed", "err", err)
	return hooteproto.NewError(hooteproto.CodeInternal, op+" failed inside the content store").
		WithHint("this is a fault in the server, not in the call; if it keeps happening, tell the server's operator")
}

// A textKind says whether objects of a media type are returned as text.
type textKind int

const (
	kindBinary  textKind = iota // always base64
	kindText                    // text when the part is valid UTF-8
	kindUnknown                 // text when the part is valid UTF-8 and looks like text
)

// textualApplicationTypes are the application/* types that are text in practice.
var textualApplicationTypes = map[string]bool{
	"application/json":                  true,
	"application/xml":                   true,
	"application/javascript":            true,
	"application/ecmascript":            true,
	"application/yaml":                  true,
	"application/x-yaml":                true,
	"application/toml":                  true,
	"application/sql":                   true,
	"application/graphql":               true,
	"application/x-ndjson":              true,
	"application/x-sh":                  true,
	"application/x-www-form-urlencoded": true,
}

// kindOf returns how objects of the media type mediaType are returned.
// A text type whose charset parameter names another encoding than UTF-8 (or its subset
// US-ASCII) is treated like application/octet-stream.
func kindOf(mediaType string) textKind {
	base, params, err := mime.ParseMediaType(mediaType)
	if err != nil {
		base, _, _ = strings.Cut(mediaType, ";")
		base = strings.ToLower(strings.TrimSpace(base))
	}
	switch {
	case base == cas.DefaultMediaType:
		return kindUnknown
	case strings.HasPrefix(base, "text/"),
		strings.HasSuffix(base, "+json"), strings.HasSuffix(base, "+xml"), strings.HasSuffix(base, "+yaml"),
		textualApplicationTypes[base]:
		switch strings.ToLower(params["charset"]) {
		case "", "utf-8", "utf8", "us-ascii", "ascii":
			return kindText
		}
		return kindUnknown
	}
	return kindBinary
}

// textOf returns part as text, if an object of the media type mediaType is returned as text
// and part is valid UTF-8. When more of the object follows part, a UTF-8 sequence cut off at
// the end of part is left out, and the text is shorter than part.
func textOf(part []byte, mediaType string, more bool) (string, bool) {
	kind := kindOf(mediaType)
	if kind == kindBinary {
		return "", false
	}
	if !utf8.Valid(part) && more {
		part = part[:completeRunes(part)]
		if len(part) == 0 {
			return "", false
		}
	}
	if !utf8.Valid(part) {
		return "", false
	}
	if kind == kindUnknown && !looksLikeText(part) {
		return "", false
	}
	return string(part), true
}

// completeRunes returns the length of b without a UTF-8 sequence that starts in its last
// three bytes and is cut off by its end.
func completeRunes(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax+1; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				return i
			}
			break
		}
	}
	return len(b)
}

// looksLikeText reports whether the valid UTF-8 b holds no control characters other than tab,
// newline, form feed and carriage return.
func looksLikeText(b []byte) bool {
	for _, r := range string(b) {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\f' && r != '\r' || r == 0x7f {
			return false
		}
	}
	return true
}
