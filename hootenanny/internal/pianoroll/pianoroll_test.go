package pianoroll

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"slices"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// song is two bars of 4/4 at 120 bpm (half a second a beat): middle C on channel 0 for the
// first beat, E on channel 1 for the third and fourth beats, a soft G on channel 0 in bar two,
// and a snare on the drum channel.
func song(t testing.TB, sig ...midi.Event) []byte {
	t.Helper()
	meta := []midi.Event{midi.Tempo(0, 500000)}
	if len(sig) == 0 {
		sig = []midi.Event{midi.TimeSignature(0, 4, 4, 24, 8)}
	}
	meta = append(meta, sig...)
	f := midi.File{Format: 1, TicksPerQuarter: 480, Tracks: []midi.Track{
		{Events: meta},
		{Events: []midi.Event{
			midi.NoteOn(0, 0, 60, 127), midi.NoteOff(480, 0, 60, 0),
			midi.NoteOn(960, 1, 64, 127), midi.NoteOff(1920, 1, 64, 0),
			midi.NoteOn(1920, 0, 67, 40), midi.NoteOff(2880, 0, 67, 0),
			midi.NoteOn(2880, 9, 38, 100), midi.NoteOff(3840, 9, 38, 0),
		}},
	}}
	b, err := midi.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func render(t *testing.T, b []byte, o Options) (*Roll, image.Image) {
	t.Helper()
	f, err := midi.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Draw(f, o)
	if err != nil {
		t.Fatal(err)
	}
	// Check the pixels of the PNG, as a client sees them.
	var buf bytes.Buffer
	if err := png.Encode(&buf, r.Image); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	return r, img
}

func rgba(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

func TestNotesWhereTheMIDIHasThem(t *testing.T) {
	// 800 pixels of time for 4 seconds: 200 a second; 13 keys of 20 pixels from G4 (67) down
	// to G3 (55).
	r, img := render(t, song(t), Options{Width: 840, Height: 260, Low: 55, High: 67})
	if r.Start != 0 || r.End != 4 {
		t.Fatalf("time range %g..%g, want 0..4", r.Start, r.End)
	}
	at := func(x, y int) color.RGBA { return rgba(img.At(x, y)) }
	row := func(p int) int { top, bottom := r.Row(p); return (top + bottom) / 2 }
	if top, bottom := r.Row(60); top != 140 || bottom != 160 {
		t.Fatalf("key 60 occupies rows %d..%d, want 140..160", top, bottom)
	}
	cases := []struct {
		name string
		x, y int
		want color.RGBA
	}{
		{"C4 on channel 0 in the first beat", 90, row(60), ChannelColor(0)},
		{"E4 on channel 1 in beats three and four", 340, row(64), ChannelColor(1)},
		{"soft G4 in bar two", 540, row(67), Shade(0, 40)},
		{"no note on D4 (a white key's row)", 90, row(62), WhiteRow},
		{"no note on C#4 (a black key's row)", 90, row(61), BlackRow},
		{"no note on C4 after the first beat", 190, row(60), WhiteRow},
		{"the second beat's line", 140, row(62), BeatLine},
		{"bar two's line", 440, row(62), BarLine},
		{"a white key of the keyboard", 30, row(62), WhiteKey},
		{"a black key of the keyboard", 5, row(61), BlackKey},
	}
	for _, c := range cases {
		if got := at(c.x, c.y); got != c.want {
			t.Errorf("%s: pixel (%d,%d) is %v, want %v", c.name, c.x, c.y, got, c.want)
		}
	}
	if Shade(0, 40) == ChannelColor(0) {
		t.Fatal("a soft note has the colour of a loud one")
	}
	// The drum note is below the range, so it is not drawn.
	if r.Drawn != 3 || r.Total != 4 {
		t.Errorf("drew %d of %d notes, want 3 of 4", r.Drawn, r.Total)
	}
	if !slices.Equal(r.Bars, []int{40, 440}) {
		t.Errorf("bar lines at %v, want [40 440]", r.Bars)
	}
	if len(r.Channels) != 2 || r.Channels[0].Notes != 2 || r.Channels[1].Notes != 1 {
		t.Errorf("channels %+v, want channel 0 with 2 notes and channel 1 with 1", r.Channels)
	}
}

func TestTimeSignaturesMoveTheBarLines(t *testing.T) {
	// 3/4 from the start, then 2/4 from tick 2880 (after two bars of 3/4): bars at 0, 1.5,
	// 3 and 4 seconds, 200 pixels a second.
	b := song(t, midi.TimeSignature(0, 3, 4, 24, 8), midi.TimeSignature(2880, 2, 4, 24, 8))
	r, _ := render(t, b, Options{Width: 1040, Height: 260, End: 5})
	if want := []int{40, 340, 640, 840}; !slices.Equal(r.Bars, want) {
		t.Errorf("bar lines at %v, want %v", r.Bars, want)
	}
}

func TestRangesChosenAndFitted(t *testing.T) {
	// Fitted: the snare (38) to G4 (67) with two keys of margin.
	r, img := render(t, song(t), Options{})
	if r.Low != 36 || r.High != 69 {
		t.Errorf("fitted keys %d..%d, want 36..69", r.Low, r.High)
	}
	if b := img.Bounds(); b.Dx() != DefaultWidth || b.Dy() != DefaultHeight {
		t.Errorf("default size %v", b)
	}
	// The drum note is drawn in the drum colour.
	top, bottom := r.Row(38)
	x := r.X(3.5)
	if got := rgba(img.At(x, (top+bottom)/2)); got != Shade(DrumChannel, 100) {
		t.Errorf("snare pixel %v, want %v", got, Shade(DrumChannel, 100))
	}
	// A time window: from 1 to 2 seconds only E4 sounds (C4 ends at 0.5).
	r, img = render(t, song(t), Options{Start: 1, End: 2, Width: 440, Height: 200})
	if r.Drawn != 1 || r.Low != 58 || r.High != 70 {
		t.Errorf("window drew %d notes in keys %d..%d, want 1 in 58..70", r.Drawn, r.Low, r.High)
	}
	top, bottom = r.Row(64)
	if got := rgba(img.At(240, (top+bottom)/2)); got != ChannelColor(1) {
		t.Errorf("E4 in the window: %v", got)
	}
}

func TestBadOptions(t *testing.T) {
	f, err := midi.Decode(song(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		o     Options
		field string
	}{
		{Options{Width: 100}, "width"},
		{Options{Height: 5000}, "height"},
		{Options{Start: 3, End: 2}, "end_seconds"},
		{Options{Start: -1}, "start_seconds"},
		{Options{Low: 70, High: 60}, "high_pitch"},
		{Options{Low: 10, High: 200}, "high_pitch"},
	} {
		_, err := Draw(f, c.o)
		var re *RangeError
		if !errors.As(err, &re) || re.Field != c.field {
			t.Errorf("%+v: got %v, want an error about %s", c.o, err, c.field)
		}
	}
}

func FuzzDraw(f *testing.F) {
	f.Add(song(f))
	f.Add(song(f, midi.TimeSignature(0, 7, 8, 24, 8)))
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := midi.Decode(b)
		if err != nil {
			return
		}
		r, err := Draw(m, Options{Width: MinSize, Height: MinSize})
		if err != nil {
			return
		}
		if r.Image.Bounds().Dx() != MinSize || r.Drawn > r.Total {
			t.Fatalf("bad roll: %v, %d of %d", r.Image.Bounds(), r.Drawn, r.Total)
		}
	})
}

func TestStackedNotesAreBounded(t *testing.T) {
	// 20000 notes, each as long as the file, on one key: without a bound each would paint a
	// whole row of the image again.
	var evs []midi.Event
	for i := range 20000 {
		evs = append(evs, midi.NoteOn(int64(i%2), 0, 60, 100))
	}
	for range 20000 {
		evs = append(evs, midi.NoteOff(96000, 0, 60, 0))
	}
	f := &midi.File{TicksPerQuarter: 96, Tracks: []midi.Track{{Events: evs}}}
	r, err := Draw(f, Options{Width: MaxSize, Height: MaxSize, Low: 60, High: 60})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Cut || r.Drawn >= 20000 || r.Drawn < MaxPaint {
		t.Errorf("drew %d of %d stacked notes (cut %v), want the paint bound to stop it", r.Drawn, r.Total, r.Cut)
	}
}
