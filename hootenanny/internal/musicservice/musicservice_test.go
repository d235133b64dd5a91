package musicservice

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

func newHandler(t *testing.T) *Handler {
	t.Helper()
	dir := t.TempDir()
	store, err := cas.OpenDir(filepath.Join(dir, "cas"), nil)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := servicetest.Database(t)
	return New(Config{CAS: store, Artifacts: artifacts.NewStore(db)})
}

func inline(s string) *hootv1.AbcValidateRequest {
	return &hootv1.AbcValidateRequest{Source: &hootv1.AbcValidateRequest_Abc{Abc: s}}
}

func TestSources(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	ctx := context.Background()
	tune := "X:1\nT:Stored\nK:D\nDEFG|\n"
	put := func(b []byte, mt string) string {
		obj, _, err := h.cfg.CAS.Put(ctx, bytes.NewReader(b), mt)
		if err != nil {
			t.Fatal(err)
		}
		return obj.Hash.String()
	}
	abcHash := put([]byte(tune), cas.DefaultMediaType) // stored without a type: read as text
	binHash := put([]byte{0xff, 0xfe, 0}, cas.DefaultMediaType)
	midiHash := put([]byte("MThd"), MIDIMediaType)

	res, err := h.AbcValidate(ctx, &hootv1.AbcValidateRequest{Source: &hootv1.AbcValidateRequest_Hash{Hash: abcHash}})
	if err != nil || !res.GetValid() || res.GetTunes()[0].GetTitle() != "Stored" {
		t.Errorf("validate by hash = %v, %v", res, err)
	}
	_, err = h.AbcValidate(ctx, &hootv1.AbcValidateRequest{Source: &hootv1.AbcValidateRequest_Hash{Hash: binHash}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "hash", "not ABC text")
	_, err = h.AbcValidate(ctx, &hootv1.AbcValidateRequest{Source: &hootv1.AbcValidateRequest_Hash{Hash: midiHash}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "hash", "audio/midi")
	_, err = h.AbcValidate(ctx, &hootv1.AbcValidateRequest{Source: &hootv1.AbcValidateRequest_Hash{Hash: strings.Repeat("0", 64)}})
	servicetest.WantError(t, err, hooteproto.CodeNotFound, "hash", "no stored object")
	_, err = h.AbcValidate(ctx, &hootv1.AbcValidateRequest{Source: &hootv1.AbcValidateRequest_ArtifactId{ArtifactId: "art_00000000000000000000000000"}})
	servicetest.WantError(t, err, hooteproto.CodeNotFound, "artifact_id", "no artifact")
	_, err = h.AbcValidate(ctx, &hootv1.AbcValidateRequest{})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "abc", "needs ABC notation")
	// An explicitly empty text is a source, and holds no tune.
	res, err = h.AbcValidate(ctx, inline(""))
	if err != nil || res.GetValid() || res.GetErrors() != 1 {
		t.Errorf("validate(\"\") = %v, %v; want one error", res, err)
	}
	// midi_info refuses what is not MIDI, and says at which byte.
	_, err = h.MidiInfo(ctx, &hootv1.MidiInfoRequest{Source: &hootv1.MidiInfoRequest_Hash{Hash: midiHash}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "hash", "not a readable MIDI file")
}

func TestBars(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	src := "X:1\nK:C\n|:CD EF::GA Bc|\n[1 cBAG:|[2 c4|]\n"
	res, err := h.AbcParse(context.Background(), &hootv1.AbcParseRequest{Source: &hootv1.AbcParseRequest_Abc{Abc: src}})
	if err != nil {
		t.Fatal(err)
	}
	bars := res.GetTunes()[0].GetVoices()[0].GetBars()
	type bar struct {
		line       string
		start, end bool
		ending     []uint32
		notes      int
	}
	want := []bar{{"::", true, true, nil, 4}, {"|", true, false, nil, 4}, {":|", false, true, []uint32{1}, 4}, {"|]", false, false, []uint32{2}, 1}}
	if len(bars) != len(want) {
		t.Fatalf("%d bars, want %d: %v", len(bars), len(want), bars)
	}
	for i, b := range bars {
		w := want[i]
		if b.GetNumber() != uint32(i+1) || b.GetBarLine() != w.line || b.GetRepeatStart() != w.start || b.GetRepeatEnd() != w.end ||
			len(b.GetElements()) != w.notes || len(b.GetEnding()) != len(w.ending) || (len(w.ending) > 0 && b.GetEnding()[0] != w.ending[0]) {
			t.Errorf("bar %d = %v, want %+v", i+1, b, w)
		}
	}
	if n := res.GetTunes()[0].GetVoices()[0].GetNotes(); n != 13 {
		t.Errorf("notes = %d, want 13", n)
	}
}

func TestTuneDiagnosticsAndPicking(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	book := "X:1\nT:One\nK:C\nCDEF|\n\nX:2\nT:Two\nM:4/4\nL:1/8\nK:C\nCDEFGABc|CDE|CDEFGABc|\n"
	res, err := h.AbcToMidi(context.Background(), &hootv1.AbcToMidiRequest{Source: &hootv1.AbcToMidiRequest_Abc{Abc: book}, X: 2})
	if err != nil {
		t.Fatal(err)
	}
	// The short bar of tune 2 is reported with it; tune 1 has no problems of its own.
	if d := res.GetDiagnostics(); len(d) != 1 || d[0].GetLine() != 11 || d[0].GetSeverity() != "warning" {
		t.Errorf("diagnostics of X:2 = %v", d)
	}
	_, err = h.AbcToMidi(context.Background(), &hootv1.AbcToMidiRequest{Source: &hootv1.AbcToMidiRequest_Abc{Abc: book}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "x", "X:1 (One), X:2 (Two)")
	_, err = h.AbcToMidi(context.Background(), &hootv1.AbcToMidiRequest{Source: &hootv1.AbcToMidiRequest_Abc{Abc: book}, X: 5})
	servicetest.WantError(t, err, hooteproto.CodeNotFound, "x", "no tune X:5")
	_, err = h.AbcToMidi(context.Background(), &hootv1.AbcToMidiRequest{Source: &hootv1.AbcToMidiRequest_Abc{Abc: "just words"}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "abc", "no tune")
}

func TestBookLimitAndCancel(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	tooMany := strings.Repeat("X:1\nK:C\nC|\n\n", MaxBookTunes+1)
	_, err := h.AbcBookToMidi(context.Background(), &hootv1.AbcBookToMidiRequest{Source: &hootv1.AbcBookToMidiRequest_Abc{Abc: tooMany}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "abc", "at most")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = h.AbcBookToMidi(ctx, &hootv1.AbcBookToMidiRequest{Source: &hootv1.AbcBookToMidiRequest_Abc{Abc: "X:1\nK:C\nC|\n"}})
	if hooteproto.CodeOf(err) != hooteproto.CodeCanceled {
		t.Errorf("a cancelled job = %v, want cancelled", err)
	}
}

func TestTransposeNames(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	src := "X:1\nK:Ddor\nDEFG|\n"
	for _, tc := range []struct {
		target      any
		semis       int32
		from, to    string
		wantInText  string
		wantErrText string
	}{
		{&hootv1.AbcTransposeRequest_Semitones{Semitones: -2}, -2, "D dorian", "C dorian", "K:Cdor", ""},
		{&hootv1.AbcTransposeRequest_ToKey{ToKey: "A"}, -5, "D dorian", "A dorian", "K:Ador", ""},
		{&hootv1.AbcTransposeRequest_ToKey{ToKey: "nonsense"}, 0, "", "", "", "to_key"},
		{&hootv1.AbcTransposeRequest_Semitones{Semitones: 99}, 0, "", "", "", "semitones"},
	} {
		req := &hootv1.AbcTransposeRequest{Source: &hootv1.AbcTransposeRequest_Abc{Abc: src}}
		switch x := tc.target.(type) {
		case *hootv1.AbcTransposeRequest_Semitones:
			req.Target = x
		case *hootv1.AbcTransposeRequest_ToKey:
			req.Target = x
		}
		res, err := h.AbcTranspose(context.Background(), req)
		if tc.wantErrText != "" {
			var e *hooteproto.Error
			if !errors.As(err, &e) || e.Field() != tc.wantErrText {
				t.Errorf("%v: err = %v, want one on %s", tc.target, err, tc.wantErrText)
			}
			continue
		}
		if err != nil || res.GetSemitones() != tc.semis || res.GetFromKey() != tc.from || res.GetToKey() != tc.to || !strings.Contains(res.GetAbc(), tc.wantInText) {
			t.Errorf("%v: %v, %v", tc.target, res, err)
		}
	}
}

func TestParseBound(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	bar := strings.Repeat("CDEF GABc|", MaxParseElements/8/2+1)
	book := "X:1\nK:C\n" + bar + "\n\nX:2\nK:C\n" + bar + "\n"
	parse := func(x uint32) error {
		_, err := h.AbcParse(context.Background(), &hootv1.AbcParseRequest{Source: &hootv1.AbcParseRequest_Abc{Abc: book}, X: x})
		return err
	}
	// Both tunes together are too many; each alone fits.
	servicetest.WantError(t, parse(0), hooteproto.CodeInvalidArgument, "x", "more than the 20000")
	if err := parse(2); err != nil {
		t.Errorf("parse x=2: %v", err)
	}
}

// A book the parser does not read whole is refused by the tools that write, not handled in part.
func TestTruncatedBookRefused(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	ctx := context.Background()
	var b strings.Builder
	for i := 1; b.Len() < 400_000; i++ {
		fmt.Fprintf(&b, "X:%d\nL:1/16\nK:G\n%s|\n\n", i, strings.Repeat("G", 300))
	}
	book := b.String()
	_, err := h.AbcBookToMidi(ctx, &hootv1.AbcBookToMidiRequest{Source: &hootv1.AbcBookToMidiRequest_Abc{Abc: book}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "abc", "elements")
	_, err = h.AbcToMidi(ctx, &hootv1.AbcToMidiRequest{Source: &hootv1.AbcToMidiRequest_Abc{Abc: book}, X: 1})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "abc", "elements")
	_, err = h.AbcTranspose(ctx, &hootv1.AbcTransposeRequest{Source: &hootv1.AbcTransposeRequest_Abc{Abc: book},
		Target: &hootv1.AbcTransposeRequest_Semitones{Semitones: 2}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "abc", "elements")
	// abc_validate reads what it can and says where it stopped.
	res, err := h.AbcValidate(ctx, inline(book))
	if err != nil || res.GetValid() || !strings.Contains(res.GetDiagnostics()[len(res.GetDiagnostics())-1].GetMessage(), "not read") {
		t.Errorf("validate of a cut-short book = %v, %v", res, err)
	}
}

func TestErrorsNameTheirField(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	ctx := context.Background()
	// Stored ABC past what one call reads is refused by size, on the field that named it.
	big, _, err := h.cfg.CAS.Put(ctx, strings.NewReader(strings.Repeat("% comment\n", MaxStoredABC/10+1)), ABCMediaType)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.AbcValidate(ctx, &hootv1.AbcValidateRequest{Source: &hootv1.AbcValidateRequest_Hash{Hash: big.Hash.String()}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "hash", "more than the")
	// A transposition out of the MIDI range is the rendering's fault, not the text's.
	_, err = h.AbcToMidi(ctx, &hootv1.AbcToMidiRequest{Source: &hootv1.AbcToMidiRequest_Abc{Abc: "X:1\nK:C\nc''''|\n"},
		Rendering: &hootv1.MidiRendering{Transpose: 48}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "rendering.transpose", "outside the MIDI range")
	// A tempo slower than MIDI can state is refused, not clamped in silence.
	_, err = h.AbcToMidi(ctx, &hootv1.AbcToMidiRequest{Source: &hootv1.AbcToMidiRequest_Abc{Abc: "X:1\nK:C\nCDEF|\n"},
		Rendering: &hootv1.MidiRendering{TempoBpm: 0.0001}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "rendering.tempo_bpm", "slowest tempo")
	// A book's choice of tune is asked of x; a missing tune is on the source that was given.
	obj, _, err := h.cfg.CAS.Put(ctx, strings.NewReader("no tune here"), ABCMediaType)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.AbcToMidi(ctx, &hootv1.AbcToMidiRequest{Source: &hootv1.AbcToMidiRequest_Hash{Hash: obj.Hash.String()}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "hash", "no tune")
}

func TestTransposeToKeyWithoutTonic(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	for _, src := range []string{"X:1\nK:none\nCDEF|\n", "X:1\nT:no key\nCDEF|\n"} {
		res, err := h.AbcTranspose(context.Background(), &hootv1.AbcTransposeRequest{Source: &hootv1.AbcTransposeRequest_Abc{Abc: src},
			Target: &hootv1.AbcTransposeRequest_ToKey{ToKey: "D"}})
		// Without a tonic the tune counts as C, so it moves up a whole tone.
		if err != nil || res.GetSemitones() != 2 || !strings.Contains(res.GetAbc(), "DE") {
			t.Errorf("%q to D = %v, %v; want +2", src, res, err)
		}
	}
}

func TestParseOneTuneHasItsOwnDiagnostics(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	book := "X:1\nK:C\nC@D|\n\nX:2\nK:C\nCDEF|\n"
	res, err := h.AbcParse(context.Background(), &hootv1.AbcParseRequest{Source: &hootv1.AbcParseRequest_Abc{Abc: book}, X: 2})
	if err != nil || len(res.GetTunes()) != 1 || res.GetErrors() != 0 || len(res.GetDiagnostics()) != 0 {
		t.Errorf("parse x=2 = %v, %v; want tune 2 without tune 1's error", res, err)
	}
	all, _ := h.AbcParse(context.Background(), &hootv1.AbcParseRequest{Source: &hootv1.AbcParseRequest_Abc{Abc: book}})
	if all.GetErrors() == 0 {
		t.Errorf("the whole book's errors = 0, want tune 1's")
	}
}

// A call whose context ended is no fault of the worker's: a book job taken up by another worker
// (its context ends) must not be reported, and logged, as an internal error.
func TestEndedContextIsNotInternal(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	for _, err := range []error{context.Canceled, fmt.Errorf("insert: %w", context.DeadlineExceeded)} {
		if code := h.internal("creating the artifact", err).Code(); code == hooteproto.CodeInternal {
			t.Errorf("internal(%v) has code %v, want the context's", err, code)
		}
	}
	if code := h.internal("creating the artifact", errors.New("disk on fire")).Code(); code != hooteproto.CodeInternal {
		t.Errorf("internal of another error has code %v, want internal", code)
	}
}

func TestMelodyOnlyRendering(t *testing.T) {
	t.Parallel()
	src := "X:1\nM:4/4\nL:1/8\nK:G\n%%MIDI chordvol 60\n\"G\"GABc dedB|\"D7\"A8|\n"
	book, _ := abc.Parse(src, abc.Options{})
	channels := func(r *hootv1.MidiRendering) map[int]int {
		t.Helper()
		c, perr := convert(src, book.Tunes[0], r, "abc")
		if perr != nil {
			t.Fatal(perr)
		}
		f, err := midi.Decode(c.file)
		if err != nil {
			t.Fatal(err)
		}
		out := map[int]int{}
		for _, n := range midi.NoteEvents(f) {
			out[n.Channel]++
			if n.Channel == 2 && n.Velocity != 60 {
				t.Errorf("chord note %+v: velocity %d, want the tune's chordvol 60", n, n.Velocity)
			}
		}
		return out
	}
	// By default the chord symbols are accompanied: bass on channel 2, chords (at the
	// %%MIDI chordvol read from the source) on channel 3.
	if got := channels(nil); got[0] != 9 || got[1] != 4 || got[2] != 14 {
		t.Errorf("default playing: notes per channel %v, want 9 melody, 4 bass, 14 chord", got)
	}
	if got := channels(&hootv1.MidiRendering{MelodyOnly: true}); len(got) != 1 || got[0] != 9 {
		t.Errorf("melody_only: notes per channel %v, want the 9 melody notes alone", got)
	}
}
