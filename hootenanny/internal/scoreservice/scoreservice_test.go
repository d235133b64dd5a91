package scoreservice

import (
	"bytes"
	"context"
	"image/png"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/membudget"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
	"github.com/hootenanny/hoot/hootenanny/internal/pianoroll"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

func newHandler(t *testing.T) *Handler {
	t.Helper()
	store, err := cas.OpenDir(filepath.Join(t.TempDir(), "cas"), nil)
	if err != nil {
		t.Fatal(err)
	}
	db, _ := servicetest.Database(t)
	return New(Config{CAS: store, Artifacts: artifacts.NewStore(db)})
}

func put(t *testing.T, h *Handler, b []byte, mimeType string) string {
	t.Helper()
	ctx := context.Background()
	obj, _, err := h.cfg.CAS.Put(ctx, bytes.NewReader(b), mimeType)
	if err != nil {
		t.Fatal(err)
	}
	a, err := h.cfg.Artifacts.Create(ctx, artifacts.New{Hash: obj.Hash.String(), Size: obj.Size, MimeType: mimeType, Creator: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

func imageOf(t *testing.T, content []*hootv1.Content) []byte {
	t.Helper()
	for _, c := range content {
		if img := c.GetImage(); img != nil {
			if img.GetMimeType() != "image/png" {
				t.Fatalf("image block of %s", img.GetMimeType())
			}
			return img.GetData()
		}
	}
	t.Fatal("no image block in the result")
	return nil
}

func TestPianoRollStoresAChildArtifact(t *testing.T) {
	h := newHandler(t)
	f := midi.File{Format: 0, TicksPerQuarter: 96, Tracks: []midi.Track{{Events: []midi.Event{
		midi.NoteOn(0, 2, 72, 127), midi.NoteOff(384, 2, 72, 0),
	}}}}
	b, err := midi.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	id := put(t, h, b, "audio/midi")
	res, err := h.MidiPianoRoll(context.Background(), &hootv1.MidiPianoRollRequest{
		Source: &hootv1.MidiPianoRollRequest_ArtifactId{ArtifactId: id}, Width: 440, Height: 260,
	})
	if err != nil {
		t.Fatal(err)
	}
	a := res.GetArtifact()
	if a.GetMimeType() != "image/png" || len(a.GetParentIds()) != 1 || a.GetParentIds()[0] != id {
		t.Fatalf("artifact %v, want image/png with parent %s", a, id)
	}
	img, err := png.Decode(bytes.NewReader(imageOf(t, res.GetContent())))
	if err != nil {
		t.Fatal(err)
	}
	// One note fills the whole time range (the file's only two seconds), in channel 2's colour.
	top := int(res.GetHighPitch()-72) * 260 / int(res.GetHighPitch()-res.GetLowPitch()+1)
	r, g, bl, _ := img.At(240, top+5).RGBA()
	want := pianoroll.ChannelColor(2)
	if uint8(r>>8) != want.R || uint8(g>>8) != want.G || uint8(bl>>8) != want.B {
		t.Errorf("note pixel %x %x %x, want %v", r>>8, g>>8, bl>>8, want)
	}
	if res.GetNotesDrawn() != 1 || len(res.GetChannels()) != 1 || res.GetChannels()[0].GetChannel() != 2 {
		t.Errorf("result %v", res)
	}
}

func TestPianoRollErrorsNameTheirField(t *testing.T) {
	h := newHandler(t)
	id := put(t, h, []byte("X:1\nK:C\nC|"), "text/vnd.abc")
	for _, c := range []struct {
		req   *hootv1.MidiPianoRollRequest
		field string
	}{
		{&hootv1.MidiPianoRollRequest{}, "artifact_id"},
		{&hootv1.MidiPianoRollRequest{Source: &hootv1.MidiPianoRollRequest_ArtifactId{ArtifactId: id}}, "artifact_id"},
		{&hootv1.MidiPianoRollRequest{Source: &hootv1.MidiPianoRollRequest_ArtifactId{ArtifactId: "art_01jd8x4k2m3n4p5q6r7s8t9v0w"}}, "artifact_id"},
	} {
		_, err := h.MidiPianoRoll(context.Background(), c.req)
		e := hooteproto.AsError(err)
		if e == nil || e.Field() != c.field {
			t.Errorf("%v: got %v, want an error about %s", c.req, err, c.field)
		}
	}
}

func TestAbcRender(t *testing.T) {
	h := newHandler(t)
	tune := "X:3\nT:Two Lines\nM:4/4\nL:1/8\nK:G\nGABc defg|gfed cBAG|\nGABc defg|gfed cBAG|]\n"
	id := put(t, h, []byte(tune), "text/vnd.abc")
	res, err := h.AbcRender(context.Background(), &hootv1.AbcRenderRequest{Source: &hootv1.AbcRenderRequest_ArtifactId{ArtifactId: id}, Width: 600})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetSystems() != 2 || res.GetX() != 3 || res.GetTitle() != "Two Lines" {
		t.Errorf("result %v, want X:3 in 2 systems", res)
	}
	for _, a := range []*hootv1.Artifact{res.GetSvg(), res.GetPng()} {
		if len(a.GetParentIds()) != 1 || a.GetParentIds()[0] != id {
			t.Errorf("artifact %v has not the ABC as its parent", a)
		}
	}
	if res.GetSvg().GetMimeType() != "image/svg+xml" || res.GetPng().GetMimeType() != "image/png" {
		t.Errorf("media types %s and %s", res.GetSvg().GetMimeType(), res.GetPng().GetMimeType())
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(imageOf(t, res.GetContent())))
	if err != nil || cfg.Width != 600 {
		t.Errorf("PNG %v, %v", cfg, err)
	}
	_, err = h.AbcRender(context.Background(), &hootv1.AbcRenderRequest{Source: &hootv1.AbcRenderRequest_Abc{Abc: tune}, X: 4})
	if e := hooteproto.AsError(err); e == nil || e.Field() != "x" || !strings.Contains(e.Message(), "X:3") {
		t.Errorf("X:4 gave %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	_, err = h.AbcRender(context.Background(), &hootv1.AbcRenderRequest{Source: &hootv1.AbcRenderRequest_Abc{Abc: tune}})
	if e := hooteproto.AsError(err); e == nil || !strings.Contains(e.Hint(), "apt-get install abcm2ps") {
		t.Errorf("without abcm2ps: %v", err)
	}
}

// TestAttackAbcRenderBusy: abc_render reserves the programs' memory (rsvg-convert's image grows
// with the width) and is refused as busy when it does not fit.
func TestAttackAbcRenderBusy(t *testing.T) {
	if _, err := exec.LookPath("abcm2ps"); err != nil {
		t.Fatal("abcm2ps is needed (apt-get install abcm2ps)")
	}
	h := newHandler(t)
	budget := membudget.New(96 << 20)
	h.cfg.Budget = budget
	tune := "X:1\nT:Scale\nM:4/4\nL:1/8\nK:G\nGABc defg|gfed cBAG|\n"
	held, err := budget.Acquire("other calls", 40<<20, "")
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.AbcRender(context.Background(), &hootv1.AbcRenderRequest{Source: &hootv1.AbcRenderRequest_Abc{Abc: tune}, Width: 4000})
	e := hooteproto.AsError(err)
	if e == nil || e.Code() != hooteproto.CodeOverloaded || !strings.Contains(e.Message(), "abc_render") {
		t.Errorf("abc_render beside other calls: %v", err)
	}
	held()
	if _, err := h.AbcRender(context.Background(), &hootv1.AbcRenderRequest{Source: &hootv1.AbcRenderRequest_Abc{Abc: tune}, Width: 600}); err != nil {
		t.Errorf("abc_render alone: %v", err)
	}
	if budget.InUse() != 0 {
		t.Errorf("%d bytes still reserved", budget.InUse())
	}
}
