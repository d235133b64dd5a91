package midiabc_test

import (
	"errors"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/midi"
	"github.com/hootenanny/hoot/hootenanny/internal/midiabc"
)

// FuzzConvert feeds any bytes that decode as MIDI to Convert: it must not panic, must keep the
// ABC within MaxBytes, and what it writes must be one tune the project's ABC parser reads
// without an error.
func FuzzConvert(f *testing.F) {
	meta := header(3, 4, -2, true)
	for _, file := range []*midi.File{
		notes(0, meta, [3]float64{0, 60, 1.0 / 3}, [3]float64{1.0 / 3, 61, 1.0 / 3}, [3]float64{2.0 / 3, 63, 1.0 / 3}, [3]float64{1, 66, 2.5}),
		notes(9, nil, [3]float64{0, 36, 0.25}, [3]float64{0.5, 38, 0.25}),
		notes(1, append(header(2, 4, 0, false), midi.Tempo(960, 400000), midi.KeySignature(960, -3, true)),
			[3]float64{0, 66, 2}, [3]float64{2, 66, 1}, [3]float64{3, 72, 1}),
		notes(3, header(7, 8, 7, false), [3]float64{0, 127, 0.2}, [3]float64{0, 0, 3}, [3]float64{0.1, 64, 0.01}),
		play(f, "X:1\nT:Seed\nM:6/8\nL:1/8\nK:D\n\"D\"FAA dAA|\"G\"B>AB (3dAG F2|]\n", false, true),
	} {
		b, err := midi.Encode(*file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, false)
		f.Add(b, true)
	}
	f.Fuzz(func(t *testing.T, data []byte, drums bool) {
		file, err := midi.Decode(data)
		if err != nil {
			return
		}
		const limit = 64 << 10
		r, err := midiabc.Convert(file, midiabc.Options{Drums: drums, MaxBytes: limit})
		var tooLong *midiabc.TooLongError
		var tooMany *midiabc.TooManyNotesError
		switch {
		case errors.Is(err, midiabc.ErrNoNotes), errors.Is(err, midiabc.ErrOnlyDrums), errors.As(err, &tooLong), errors.As(err, &tooMany):
			return
		case err != nil:
			t.Fatalf("unexpected error: %v", err)
		}
		if len(r.ABC) > limit || r.Notes == 0 || len(r.Voices) == 0 {
			t.Fatalf("%d bytes, %d notes, %d voices", len(r.ABC), r.Notes, len(r.Voices))
		}
		book, diags := abc.Parse(r.ABC, abc.Options{})
		if len(book.Tunes) != 1 {
			t.Fatalf("%d tunes in\n%s", len(book.Tunes), r.ABC)
		}
		for _, d := range diags {
			if d.Severity == abc.Error {
				t.Fatalf("error at %d:%d: %s\n%s", d.Line, d.Col, d.Message, r.ABC)
			}
		}
	})
}
