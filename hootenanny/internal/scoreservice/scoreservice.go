// Package scoreservice serves the "score" tools, which make music visible: midi_piano_roll draws
// a MIDI file as a piano roll (package pianoroll) and abc_render engraves an ABC tune (package
// engrave). Inputs come from artifacts or the content store; the images go into the content
// store as artifacts whose parent is the input's artifact.
package scoreservice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image/png"
	"io"
	"log/slog"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/artifactservice"
	"github.com/hootenanny/hoot/hootenanny/internal/engrave"
	"github.com/hootenanny/hoot/hootenanny/internal/membudget"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
	"github.com/hootenanny/hoot/hootenanny/internal/outage"
	"github.com/hootenanny/hoot/hootenanny/internal/pianoroll"
	"github.com/hootenanny/hoot/hootenanny/internal/textenc"
	"github.com/hootenanny/hoot/hooteproto"
)

// Bounds.
const (
	// MaxStoredMIDI bounds a MIDI file that midi_piano_roll reads.
	MaxStoredMIDI = 16 << 20
	// MaxInlineImage bounds the PNG a result carries as an image block; larger ones are linked.
	MaxInlineImage = 2 << 20
)

// Config is what the handler works with.
type Config struct {
	CAS       cas.Store
	Artifacts *artifacts.Store
	// Logger receives internal failures (default: discard).
	Logger *slog.Logger
	// Budget is the worker's memory budget, which midi_piano_roll reserves its memory from
	// before it decodes, and abc_render before it runs each program (nil: no budget).
	Budget *membudget.Budget
}

// Handler implements hootv1hoot.ScoreHandler.
type Handler struct{ cfg Config }

// New returns a handler over cfg's stores.
func New(cfg Config) *Handler {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return &Handler{cfg: cfg}
}

// pianoRollImageMemory bounds the image midi_piano_roll draws and its PNG.
const pianoRollImageMemory = 32 << 20

// MidiPianoRoll draws a MIDI file and stores the PNG.
func (h *Handler) MidiPianoRoll(ctx context.Context, req *hootv1.MidiPianoRollRequest) (*hootv1.MidiPianoRollResult, error) {
	field, value := "artifact_id", req.GetArtifactId()
	if req.GetHash() != "" {
		field, value = "hash", req.GetHash()
	}
	if value == "" {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "midi_piano_roll needs a MIDI file: give an artifact_id or a hash").
			WithField("artifact_id").
			WithHint("pass the artifact id that abc_to_midi returned, or the hash of a MIDI file stored with cas_store")
	}
	src, err := h.read(ctx, field, value, MaxStoredMIDI)
	if err != nil {
		return nil, err
	}
	notMIDI := func(err error) error {
		return hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("%s %s is not a readable MIDI file (%s): %v", what(field), value, src.mimeType, err)).
			WithField(field).
			WithHint("name a Standard MIDI File (audio/midi), such as an artifact abc_to_midi made")
	}
	decoded, err := midi.DecodedSize(src.data)
	if err != nil {
		return nil, notMIDI(err)
	}
	// The decoded file, its notes paired (about as much again), and the image.
	release, err := h.cfg.Budget.Acquire("midi_piano_roll", 2*decoded+pianoRollImageMemory,
		"draw a MIDI file with fewer events: split the piece into sections")
	if err != nil {
		return nil, err
	}
	defer release()
	f, err := midi.Decode(src.data)
	if err != nil {
		return nil, notMIDI(err)
	}
	roll, err := pianoroll.Draw(f, pianoroll.Options{
		Width: int(req.GetWidth()), Height: int(req.GetHeight()),
		Start: req.GetStartSeconds(), End: req.GetEndSeconds(),
		Low: int(req.GetLowPitch()), High: int(req.GetHighPitch()),
	})
	if err != nil {
		var re *pianoroll.RangeError
		if errors.As(err, &re) {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, re.Field+" "+re.Problem).
				WithField(re.Field).WithHint(rangeHint(re.Field))
		}
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("%s %s cannot be drawn: %v", what(field), value, err)).
			WithField(field).WithHint("name a MIDI file with a metrical time division (ticks per quarter note)")
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, roll.Image); err != nil {
		return nil, h.internal("encoding the PNG", err)
	}
	n := artifacts.New{MimeType: "image/png", Tags: req.GetTags(), Creator: "midi_piano_roll"}
	if src.artifact != "" {
		n.ParentIDs = []string{src.artifact}
	}
	a, err := h.store(ctx, buf.Bytes(), n)
	if err != nil {
		return nil, err
	}
	res := &hootv1.MidiPianoRollResult{
		Artifact: a, Width: uint32(roll.Image.Bounds().Dx()), Height: uint32(roll.Image.Bounds().Dy()),
		StartSeconds: roll.Start, EndSeconds: roll.End,
		LowPitch: uint32(roll.Low), HighPitch: uint32(roll.High),
		NotesDrawn: uint32(roll.Drawn), NotesTotal: uint32(roll.Total),
	}
	var chans []string
	for _, c := range roll.Channels {
		hex := fmt.Sprintf("#%02x%02x%02x", c.Color.R, c.Color.G, c.Color.B)
		res.Channels = append(res.Channels, &hootv1.PianoRollChannel{Channel: uint32(c.Channel), Color: hex, Notes: uint32(c.Notes)})
		chans = append(chans, fmt.Sprintf("channel %d %s", c.Channel+1, hex))
	}
	summary := fmt.Sprintf("Piano roll of %.2f to %.2f s, keys %d to %d: %d of %d notes drawn (%s), into artifact %s.",
		roll.Start, roll.End, roll.Low, roll.High, roll.Drawn, roll.Total, orNone(chans), a.GetId())
	if roll.Cut {
		summary += " Not every note in view is drawn (too many, or too many stacked); choose a shorter time range or fewer keys."
	}
	res.Content = content(summary, buf.Bytes())
	return res, nil
}

func rangeHint(field string) string {
	switch field {
	case "width", "height":
		return fmt.Sprintf("give %d to %d pixels, or leave it out for %d by %d", pianoroll.MinSize, pianoroll.MaxSize, pianoroll.DefaultWidth, pianoroll.DefaultHeight)
	case "low_pitch", "high_pitch":
		return "give MIDI keys with low_pitch at most high_pitch (60 is middle C), or leave both out to fit the notes"
	}
	return "give start_seconds before end_seconds, or leave both out for the whole file (midi_info gives its duration)"
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "no notes in view"
	}
	return strings.Join(s, ", ")
}

// content is the summary, and the PNG when it is small enough to send.
func content(summary string, pngData []byte) []*hootv1.Content {
	if len(pngData) > MaxInlineImage {
		return []*hootv1.Content{{Block: &hootv1.Content_Text{Text: summary + fmt.Sprintf(
			" The PNG is %d bytes, more than the %d sent inline; read it from the artifact's content link.", len(pngData), MaxInlineImage)}}}
	}
	return []*hootv1.Content{
		{Block: &hootv1.Content_Text{Text: summary}},
		{Block: &hootv1.Content_Image{Image: &hootv1.Media{MimeType: "image/png", Data: pngData}}},
	}
}

// AbcRender engraves one tune and stores its SVG and PNG.
func (h *Handler) AbcRender(ctx context.Context, req *hootv1.AbcRenderRequest) (*hootv1.AbcRenderResult, error) {
	var (
		text  string
		field string
		src   stored
	)
	switch {
	case req.GetAbc() != "":
		text, field = req.GetAbc(), "abc"
	case req.GetArtifactId() != "" || req.GetHash() != "":
		field = "artifact_id"
		value := req.GetArtifactId()
		if value == "" {
			field, value = "hash", req.GetHash()
		}
		var err error
		if src, err = h.read(ctx, field, value, engrave.MaxABC); err != nil {
			return nil, err
		}
		// Latin-1 ABC is read as Windows-1252 (package textenc); what looks binary is refused.
		var ok bool
		if text, ok = textenc.Text(src.data); !ok {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
				fmt.Sprintf("%s %s holds %s content, not ABC text", what(field), value, src.mimeType)).
				WithField(field).WithHint("name an artifact that holds ABC notation, or give the text in abc")
		}
	default:
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			"abc_render needs ABC notation: give the text in abc, or an artifact_id or hash of stored ABC").
			WithField("abc").
			WithHint(`put the tune in abc, starting with its X: line, e.g. "X:1\nT:Title\nM:4/4\nL:1/8\nK:G\nGABc dedB|"`)
	}
	if err := engrave.CheckABC(text); err != nil {
		return nil, h.engraveError(err, field)
	}
	book, _ := abc.Parse(text, abc.Options{})
	tune, err := pickTune(book, req.GetX(), field)
	if err != nil {
		return nil, err
	}
	score, err := engrave.Render(ctx, text, engrave.Options{X: tune.Header.X, Width: int(req.GetWidth()),
		Reserve: func(program string, need int64) (func(), error) {
			return h.cfg.Budget.Acquire("abc_render ("+program+")", need, "give a smaller width, or engrave fewer lines at a time")
		}})
	if err != nil {
		return nil, h.engraveError(err, field)
	}
	var parents []string
	if src.artifact != "" {
		parents = []string{src.artifact}
	}
	svg, err := h.store(ctx, score.SVG, artifacts.New{MimeType: "image/svg+xml", Tags: req.GetTags(), Creator: "abc_render", ParentIDs: parents})
	if err != nil {
		return nil, err
	}
	pngArt, err := h.store(ctx, score.PNG, artifacts.New{MimeType: "image/png", Tags: req.GetTags(), Creator: "abc_render", ParentIDs: parents})
	if err != nil {
		return nil, err
	}
	t := ""
	if len(tune.Header.Titles) > 0 {
		t = tune.Header.Titles[0]
	}
	summary := fmt.Sprintf("Engraved X:%d %q in %d staff systems: SVG artifact %s, PNG artifact %s (%d by %d).",
		tune.Header.X, t, score.Systems, svg.GetId(), pngArt.GetId(), score.Width, score.Height)
	return &hootv1.AbcRenderResult{
		Svg: svg, Png: pngArt, X: uint32(tune.Header.X), Title: t, Systems: uint32(score.Systems),
		Width: uint32(score.Width), Height: uint32(score.Height), Log: score.Log,
		Content: content(summary, score.PNG),
	}, nil
}

func pickTune(book *abc.Book, x uint32, field string) (*abc.Tune, error) {
	if len(book.Tunes) == 0 {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			"no tune found: a tune starts with an X: line, and its header ends with K:").
			WithField(field).
			WithHint(`start with "X:1", then "T:Title", "M:4/4", "L:1/8", "K:C" on lines of their own, then the notes`)
	}
	if x == 0 {
		if len(book.Tunes) == 1 {
			return book.Tunes[0], nil
		}
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("the ABC is a tune book of %d tunes (%s); say which one to engrave", len(book.Tunes), tuneList(book))).
			WithField("x").WithHint("pass its X: number in x")
	}
	for _, t := range book.Tunes {
		if uint32(t.Header.X) == x {
			return t, nil
		}
	}
	return nil, hooteproto.NewError(hooteproto.CodeNotFound, fmt.Sprintf("the ABC has no tune X:%d; it has %s", x, tuneList(book))).
		WithField("x").WithHint("pass one of those X: numbers in x")
}

func tuneList(book *abc.Book) string {
	var parts []string
	for i, t := range book.Tunes {
		if i == 10 {
			parts = append(parts, fmt.Sprintf("and %d more", len(book.Tunes)-10))
			break
		}
		parts = append(parts, fmt.Sprintf("X:%d", t.Header.X))
	}
	return strings.Join(parts, ", ")
}

func (h *Handler) engraveError(err error, field string) error {
	var me *engrave.MissingError
	var ie *engrave.InputError
	var he *hooteproto.Error
	switch {
	case errors.As(err, &he):
		return he
	case errors.As(err, &me):
		return hooteproto.NewError(hooteproto.CodeUnavailable, "this worker cannot engrave scores: "+me.Error()).
			WithHint(fmt.Sprintf("on the worker's machine, apt-get install %s; midi_piano_roll draws a tune without it (abc_to_midi first)", me.Package))
	case errors.As(err, &ie):
		f := ie.Field
		if f == "abc" {
			f = field
		}
		return hooteproto.NewError(hooteproto.CodeInvalidArgument, ie.Problem).WithField(f).
			WithHint("check the tune with abc_validate, and give width 200 to 4000")
	}
	return h.internal("engraving", err)
}

// stored is content read from an artifact or the content store.
type stored struct {
	data     []byte
	mimeType string
	// artifact is the artifact's id, or "".
	artifact string
}

// read returns the content that field ("artifact_id" or "hash") names, refusing more than limit.
func (h *Handler) read(ctx context.Context, field, value string, limit int64) (stored, error) {
	var st stored
	hashText := value
	if field == "artifact_id" {
		a, err := h.cfg.Artifacts.Get(ctx, value)
		if errors.Is(err, artifacts.ErrNotFound) {
			return st, hooteproto.NewError(hooteproto.CodeNotFound, "no artifact has the id "+value).
				WithField(field).WithHint("find artifacts with artifact_list")
		}
		if err != nil {
			return st, h.internal("reading the artifact", err)
		}
		hashText, st.artifact, st.mimeType = a.Hash, a.ID, a.MimeType
	}
	hash, err := cas.ParseHash(hashText)
	if err != nil {
		return st, hooteproto.NewError(hooteproto.CodeInvalidArgument, err.Error()).WithField(field).
			WithHint("pass the hash exactly as cas_store returned it")
	}
	f, obj, err := h.cfg.CAS.Open(ctx, hash)
	if errors.Is(err, cas.ErrNotFound) {
		return st, hooteproto.NewError(hooteproto.CodeNotFound, "no stored object has the hash "+hashText).
			WithField(field).WithHint("store the content with cas_store first")
	}
	if err != nil {
		return st, h.internal("opening the stored object", err)
	}
	defer f.Close()
	if obj.Size > limit {
		return st, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("%s %s is %s, more than the %s this tool reads", what(field), value, cas.FormatSize(obj.Size), cas.FormatSize(limit))).
			WithField(field).WithHint("name a smaller file")
	}
	if st.mimeType == "" {
		st.mimeType = obj.MimeType
	}
	if st.data, err = io.ReadAll(io.LimitReader(f, limit)); err != nil {
		return st, h.internal("reading the stored object", err)
	}
	return st, nil
}

func what(field string) string {
	if field == "artifact_id" {
		return "artifact"
	}
	return "object"
}

// store puts b in the content store and records it as an artifact.
func (h *Handler) store(ctx context.Context, b []byte, n artifacts.New) (*hootv1.Artifact, error) {
	return artifactservice.StoreNew(ctx, h.cfg.CAS, h.cfg.Artifacts, h.cfg.Logger, "scoreservice", "the image", b, n)
}

func (h *Handler) internal(op string, err error) *hooteproto.Error {
	return outage.Internal(h.cfg.Logger, "scoreservice", op, err)
}
