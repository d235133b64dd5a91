// Package musicservice serves the "music" tools: ABC notation parsed, checked, transposed and
// converted to MIDI (packages abc and abcmidi), MIDI files described (package midi), and the
// prompt that walks a model through them. ABC comes inline, from an artifact or from the content
// store; MIDI files go into the content store as artifacts whose parent is the ABC's artifact.
package musicservice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/artifactservice"
	"github.com/hootenanny/hoot/hootenanny/internal/membudget"
	"github.com/hootenanny/hoot/hootenanny/internal/outage"
	"github.com/hootenanny/hoot/hootenanny/internal/textenc"
	"github.com/hootenanny/hoot/hooteproto"
)

// ABCMediaType is the media type of ABC text the tools store.
const ABCMediaType = "text/vnd.abc"

// MIDIMediaType is the media type of the MIDI files the tools store.
const MIDIMediaType = "audio/midi"

// MaxStoredABC bounds ABC text read from an artifact or the content store: what the parser
// reads in one go, as for inline text.
const MaxStoredABC = abc.DefaultMaxBytes

// MaxStoredMIDI bounds a MIDI file that midi_info reads.
const MaxStoredMIDI = 16 << 20

// MaxBookTunes bounds the tunes that one abc_book_to_midi job converts.
const MaxBookTunes = 2000

// Config is what the handler works with.
type Config struct {
	CAS       cas.Store
	Artifacts *artifacts.Store
	// Logger receives internal failures (default: discard).
	Logger *slog.Logger
	// Budget is the worker's memory budget, which midi_info, midi_analyze and midi_to_abc
	// reserve their memory from before they start (nil: no budget).
	Budget *membudget.Budget
}

// Handler implements hootv1hoot.MusicHandler.
type Handler struct {
	cfg Config
}

// New returns a handler over cfg's stores.
func New(cfg Config) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Handler{cfg: cfg}
}

// source is content read from where a request's "source" oneof points.
type source struct {
	text string
	// field is the member of the oneof that was set: "abc", "artifact_id" or "hash".
	field string
	// parent is the artifact the content came from, or "".
	parent string
}

// sourceField returns the set member of m's oneof "source", and its string value.
func sourceField(m proto.Message) (protoreflect.FieldDescriptor, string) {
	r := m.ProtoReflect()
	od := r.Descriptor().Oneofs().ByName("source")
	if od == nil {
		return nil, ""
	}
	fd := r.WhichOneof(od)
	if fd == nil {
		return nil, ""
	}
	return fd, r.Get(fd).String()
}

// loadABC reads the ABC text a request names. tool names the tool in errors.
func (h *Handler) loadABC(ctx context.Context, tool string, m proto.Message) (source, error) {
	fd, value := sourceField(m)
	if fd == nil {
		return source{}, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			tool+" needs ABC notation: give the text in abc, or an artifact_id or hash of stored ABC").
			WithField("abc").
			WithHint(`put the tune in abc, starting with its X: line, e.g. "X:1\nT:Title\nM:4/4\nL:1/8\nK:G\nGABc dedB|"`)
	}
	field := string(fd.Name())
	if field == "abc" {
		return source{text: value, field: field}, nil
	}
	b, parent, mimeType, _, err := h.read(ctx, field, value, MaxStoredABC, "")
	if err != nil {
		return source{}, err
	}
	// ABC written before ABC 2.1 made UTF-8 the default is often Latin-1: it is read as
	// Windows-1252 (package textenc), and what looks binary is refused.
	text, ok := textenc.Text(b)
	if !textual(mimeType) || !ok {
		return source{}, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("%s %s holds %s content, not ABC text", what(field), value, mimeType)).
			WithField(field).
			WithHint("name an artifact or object that holds ABC notation (text/vnd.abc or text/plain), or give the text in abc")
	}
	return source{text: text, field: field, parent: parent}, nil
}

// read returns the bytes of the artifact or stored object that field ("artifact_id" or "hash")
// names, the artifact's id (or "") and the media type, refusing content larger than limit.
//
// With tool, it reserves the object's size in the memory budget for tool before it reads, and
// the caller calls release when it no longer holds the bytes; without, release does nothing.
func (h *Handler) read(ctx context.Context, field, value string, limit int64, tool string) (b []byte, parent, mimeType string, release func(), err error) {
	b, parent, mimeType, release, err = h.readReserved(ctx, field, value, limit, tool)
	if err != nil && release != nil {
		release()
		release = nil
	}
	return b, parent, mimeType, release, err
}

func (h *Handler) readReserved(ctx context.Context, field, value string, limit int64, tool string) ([]byte, string, string, func(), error) {
	release := func() {}
	var (
		hashText = value
		parent   string
		mimeType string
	)
	if field == "artifact_id" {
		a, err := h.cfg.Artifacts.Get(ctx, value)
		if errors.Is(err, artifacts.ErrNotFound) {
			return nil, "", "", nil, hooteproto.NewError(hooteproto.CodeNotFound, "no artifact has the id "+value).
				WithField(field).
				WithHint("find artifacts with artifact_list, or pass the content itself")
		}
		if err != nil {
			return nil, "", "", nil, h.internal("reading the artifact", err)
		}
		hashText, parent, mimeType = a.Hash, a.ID, a.MimeType
	}
	hash, err := cas.ParseHash(hashText)
	if err != nil {
		return nil, "", "", nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, err.Error()).WithField(field).
			WithHint("pass the hash exactly as cas_store returned it")
	}
	f, obj, err := h.cfg.CAS.Open(ctx, hash)
	if errors.Is(err, cas.ErrNotFound) {
		return nil, "", "", nil, hooteproto.NewError(hooteproto.CodeNotFound, "no stored object has the hash "+hashText).
			WithField(field).
			WithHint("store the content with cas_store first, or pass it inline")
	}
	if err != nil {
		return nil, "", "", nil, h.internal("opening the stored object", err)
	}
	defer f.Close()
	if obj.Size > limit {
		return nil, "", "", nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("%s %s is %s, more than the %s this tool reads", what(field), value, cas.FormatSize(obj.Size), cas.FormatSize(limit))).
			WithField(field).
			WithHint("split the content into smaller pieces")
	}
	if mimeType == "" {
		mimeType = obj.MimeType
	}
	if tool != "" {
		if release, err = h.cfg.Budget.Acquire(tool, obj.Size, "name a smaller file"); err != nil {
			return nil, "", "", nil, err
		}
	}
	b := make([]byte, obj.Size)
	_, err = io.ReadFull(f, b)
	if err != nil {
		return nil, "", "", release, h.internal("reading the stored object", err)
	}
	if ctx.Err() != nil {
		return nil, "", "", release, hooteproto.AsError(ctx.Err())
	}
	return b, parent, mimeType, release, nil
}

// truncated refuses ABC that the parser did not read whole: converting or transposing part of
// it would look like success.
func truncated(field string, diags []abc.Diagnostic) *hooteproto.Error {
	return hooteproto.NewError(hooteproto.CodeInvalidArgument,
		"the ABC is more than one call reads: "+abc.TruncatedBecause(diags)).
		WithField(field).
		WithHint("split the tune book into parts of at most 1 MiB and a few thousand tunes, and send them one by one")
}

func what(field string) string {
	if field == "artifact_id" {
		return "artifact"
	}
	return "object"
}

// textual reports media types that may hold ABC: text/*, and the generic binary type (content
// stored without a type), which is then checked to be UTF-8.
func textual(mimeType string) bool {
	mt, _, err := mime.ParseMediaType(mimeType)
	if err != nil {
		return false
	}
	return strings.HasPrefix(mt, "text/") || mt == cas.DefaultMediaType
}

// storeArtifact puts b in the content store and records it as an artifact.
func (h *Handler) storeArtifact(ctx context.Context, b []byte, n artifacts.New) (*hootv1.Artifact, error) {
	return artifactservice.StoreNew(ctx, h.cfg.CAS, h.cfg.Artifacts, h.cfg.Logger, "musicservice", "the content", b, n)
}

func (h *Handler) internal(op string, err error) *hooteproto.Error {
	// The call's context ended (its caller went away, or its job was cancelled or taken up by
	// another worker): not a fault of the worker's; outage.Internal says so.
	return outage.Internal(h.cfg.Logger, "musicservice", op, err)
}
