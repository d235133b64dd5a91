// Package audioservice serves the "audio" tools: MIDI rendered to WAV or FLAC with a SoundFont
// (package synth), SoundFonts described, and audio measured (package audio). MIDI, SoundFonts
// and audio come from artifacts or the content store; rendered audio goes into the content
// store as an artifact whose parent is the MIDI's artifact.
package audioservice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/membudget"
	"github.com/hootenanny/hoot/hootenanny/internal/outage"
	"github.com/hootenanny/hoot/hootenanny/internal/synth"
	"github.com/hootenanny/hoot/hooteproto"
)

// SoundFontPaths are where the worker looks for its default General MIDI SoundFont, in order:
// Debian's timgm6mb-soundfont first (small, and what the tests are measured with), then the
// system's chosen default and the larger FluidR3.
var SoundFontPaths = []string{
	"/usr/share/sounds/sf2/TimGM6mb.sf2",
	"/usr/share/sounds/sf2/default-GM.sf2",
	"/usr/share/sounds/sf2/FluidR3_GM.sf2",
}

// Media types of what the tools read and store.
const (
	WAVMediaType  = "audio/wav"
	FLACMediaType = "audio/flac"
)

// Bounds on what the tools read and make.
const (
	// MaxStoredMIDI bounds a MIDI file that midi_render reads.
	MaxStoredMIDI = 16 << 20
	// MaxAudioBytes bounds the audio that midi_render stores and audio_info reads: about 12
	// minutes of 16-bit stereo WAV at 44.1 kHz.
	MaxAudioBytes = 128 << 20
	// MaxRenderSeconds bounds the length of what midi_render plays.
	MaxRenderSeconds = 20 * 60
	// MaxInlineAudio bounds the audio a result carries as content; longer audio is linked only.
	MaxInlineAudio = 1 << 20
	// MaxListed bounds the presets and instruments soundfont_inspect lists.
	MaxListed = 1000
)

// Config is what the handler works with.
type Config struct {
	CAS       cas.Store
	Artifacts *artifacts.Store
	// SoundFont is the default SoundFont's path; empty looks through SoundFontPaths.
	SoundFont string
	// Logger receives internal failures (default: discard).
	Logger *slog.Logger
	// Budget is the worker's memory budget, which midi_render, soundfont_inspect and
	// audio_info reserve their memory from before they start (nil: no budget).
	Budget *membudget.Budget
}

// Handler implements hootv1hoot.AudioHandler.
type Handler struct {
	cfg Config

	mu sync.Mutex
	// def is the default SoundFont once loaded, and defPath where it came from.
	def     *synth.SoundFont
	defPath string
	// last is the SoundFont most recently loaded from the content store, by hash: a session
	// usually renders with one uploaded SoundFont many times.
	lastHash string
	last     *synth.SoundFont
	// lastRelease gives back the memory reserved for last while it is kept.
	lastRelease func()
}

// New returns a handler over cfg's stores.
func New(cfg Config) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Handler{cfg: cfg}
}

// defaultSoundFont loads the worker's default SoundFont, once. field is the request field that
// names a SoundFont instead, for the error when there is none.
func (h *Handler) defaultSoundFont(field string) (*synth.SoundFont, string, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.def != nil {
		return h.def, h.defPath, nil
	}
	p, err := h.defaultSoundFontPath(field)
	if err != nil {
		return nil, "", err
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, "", h.internal("reading the default SoundFont", err)
	}
	sf, err := synth.Load(b)
	if err != nil {
		h.cfg.Logger.Error("audioservice: the default SoundFont does not load", "path", p, "err", err)
		return nil, "", hooteproto.NewError(hooteproto.CodeUnavailable,
			fmt.Sprintf("the worker's default SoundFont %s does not load: %v", p, err)).
			WithHint("reinstall it (apt-get install --reinstall timgm6mb-soundfont), or upload an SF2 artifact and pass it as soundfont_artifact_id")
	}
	h.def, h.defPath = sf, p
	return sf, p, nil
}

// defaultSoundFontPath finds the worker's default SoundFont: the first of its paths that is
// there. field is as for defaultSoundFont.
func (h *Handler) defaultSoundFontPath(field string) (string, error) {
	paths := SoundFontPaths
	if h.cfg.SoundFont != "" {
		paths = []string{h.cfg.SoundFont}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			continue
		}
		if st.Size() > synth.MaxBytes {
			return "", hooteproto.NewError(hooteproto.CodeUnavailable,
				fmt.Sprintf("the worker's default SoundFont %s is %s, more than the %s read", p, cas.FormatSize(st.Size()), cas.FormatSize(synth.MaxBytes))).
				WithHint("start the worker with --soundfont naming a smaller SF2 file, or upload an SF2 artifact and pass it as soundfont_artifact_id")
		}
		return p, nil
	}
	where := "in " + joinPaths(paths)
	return "", hooteproto.NewError(hooteproto.CodeUnavailable,
		"this worker has no default SoundFont: none "+where).
		WithField(field).
		WithHint("on the worker's machine, apt-get install timgm6mb-soundfont (a General MIDI SoundFont); or upload an SF2 file with cas_store or artifact_create and pass its id as " + field)
}

func joinPaths(p []string) string {
	s := ""
	for i, x := range p {
		switch {
		case i == 0:
		case i == len(p)-1:
			s += " or "
		default:
			s += ", "
		}
		s += x
	}
	return s
}

// soundFontCost is the memory loading a SoundFont takes per byte of it: the file's bytes, and
// the synthesiser's copy of its samples, with room for its tables.
const soundFontCost = 2.5

// storedSoundFont loads the SoundFont that field ("artifact_id" or "hash", under the request's
// own names) names, with the memory it takes reserved for tool; the caller calls release when
// it no longer needs the memory the load took (the loaded SoundFont is kept for the next call).
func (h *Handler) storedSoundFont(ctx context.Context, tool, field, kind, value string) (sf *synth.SoundFont, release func(), err error) {
	src, err := h.open(ctx, field, kind, value, synth.MaxBytes)
	if err != nil {
		return nil, nil, err
	}
	defer src.r.Close()
	h.mu.Lock()
	if h.lastHash == src.hash && h.last != nil {
		sf := h.last
		h.mu.Unlock()
		return sf, func() {}, nil
	}
	h.mu.Unlock()
	release, err = h.cfg.Budget.Acquire(tool, int64(soundFontCost*float64(src.obj.Size)),
		"use a smaller SoundFont, or leave the SoundFont out to use the worker's General MIDI default")
	if err != nil {
		return nil, nil, err
	}
	data, err := src.readAll(ctx, h)
	if err != nil {
		release()
		return nil, nil, err
	}
	sf, err = synth.Load(data)
	if err != nil {
		release()
		return nil, nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("%s %s (%s) is not a SoundFont that can be played: %v", kind, value, src.mimeType, err)).
			WithField(field).
			WithHint("name an SF2 SoundFont, or leave the SoundFont out to use the worker's General MIDI default")
	}
	// The loaded SoundFont is kept for the next render with its samples' memory reserved (about
	// its size); when the budget has no room for it, it is not kept.
	keep, keepErr := h.cfg.Budget.Acquire("keeping the SoundFont for the next render", src.obj.Size, "")
	h.mu.Lock()
	if h.lastRelease != nil {
		h.lastRelease()
	}
	h.lastHash, h.last, h.lastRelease = "", nil, nil
	if keepErr == nil {
		h.lastHash, h.last, h.lastRelease = src.hash, sf, keep
	}
	h.mu.Unlock()
	return sf, release, nil
}

// sourceField returns the set member of m's oneof named oneof, and its string value.
func sourceField(m proto.Message, oneof string) (protoreflect.FieldDescriptor, string) {
	r := m.ProtoReflect()
	od := r.Descriptor().Oneofs().ByName(protoreflect.Name(oneof))
	if od == nil {
		return nil, ""
	}
	fd := r.WhichOneof(od)
	if fd == nil {
		return nil, ""
	}
	return fd, r.Get(fd).String()
}

// stored is content read from an artifact or the content store.
type stored struct {
	data     []byte
	hash     string
	mimeType string
	// artifact is the artifact's id, or "".
	artifact string
}

// source is a stored object opened for reading.
type source struct {
	r   io.ReadSeekCloser
	obj cas.Object
	// hash, mimeType and artifact are as in stored.
	hash, mimeType, artifact string
}

// open opens the content that value names: an artifact id when kind is "artifact", a hash when
// it is "object". field is the request field, for errors; content over limit is refused. The
// caller closes the source's reader.
func (h *Handler) open(ctx context.Context, field, kind, value string, limit int64) (*source, error) {
	src := &source{hash: value}
	if kind == "artifact" {
		a, err := h.cfg.Artifacts.Get(ctx, value)
		if errors.Is(err, artifacts.ErrNotFound) {
			return nil, hooteproto.NewError(hooteproto.CodeNotFound, "no artifact has the id "+value).
				WithField(field).
				WithHint("find artifacts with artifact_list")
		}
		if err != nil {
			return nil, h.internal("reading the artifact", err)
		}
		src.hash, src.artifact, src.mimeType = a.Hash, a.ID, a.MimeType
	}
	hash, err := cas.ParseHash(src.hash)
	if err != nil {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, err.Error()).WithField(field).
			WithHint("pass the hash exactly as cas_store returned it")
	}
	f, obj, err := h.cfg.CAS.Open(ctx, hash)
	if errors.Is(err, cas.ErrNotFound) {
		return nil, hooteproto.NewError(hooteproto.CodeNotFound, "no stored object has the hash "+src.hash).
			WithField(field).
			WithHint("store the content with cas_store first")
	}
	if err != nil {
		return nil, h.internal("opening the stored object", err)
	}
	if obj.Size > limit {
		f.Close()
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("%s %s is %s, more than the %s this tool reads", kind, value, cas.FormatSize(obj.Size), cas.FormatSize(limit))).
			WithField(field).
			WithHint("name a smaller file")
	}
	if src.mimeType == "" {
		src.mimeType = obj.MimeType
	}
	src.r, src.obj = f, obj
	return src, nil
}

// readAll reads the whole of src.
func (src *source) readAll(ctx context.Context, h *Handler) ([]byte, error) {
	data := make([]byte, src.obj.Size)
	if _, err := io.ReadFull(src.r, data); err != nil {
		return nil, h.internal("reading the stored object", err)
	}
	if ctx.Err() != nil {
		return nil, hooteproto.AsError(ctx.Err())
	}
	return data, nil
}

// read returns the content that value names (see open), with need(size) bytes of the memory
// budget reserved for tool before it is read: the caller calls release when it no longer holds
// what it made of the content. tooLarge says how to ask for less when need is more than the
// whole budget.
func (h *Handler) read(ctx context.Context, field, kind, value string, limit int64, tool string, need func(size int64) int64, tooLarge string) (st stored, release func(), err error) {
	src, err := h.open(ctx, field, kind, value, limit)
	if err != nil {
		return st, nil, err
	}
	defer src.r.Close()
	release, err = h.cfg.Budget.Acquire(tool, need(src.obj.Size), tooLarge)
	if err != nil {
		return st, nil, err
	}
	st = stored{hash: src.hash, mimeType: src.mimeType, artifact: src.artifact}
	if st.data, err = src.readAll(ctx, h); err != nil {
		release()
		return st, nil, err
	}
	return st, release, nil
}

func (h *Handler) internal(op string, err error) *hooteproto.Error {
	return outage.Internal(h.cfg.Logger, "audioservice", op, err)
}
