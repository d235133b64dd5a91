package analysis

import "github.com/hootenanny/hoot/hootenanny/internal/midi"

// Frame is what writing a file out as notation needs from the analysis: the key, the meter and
// where the first full bar starts.
type Frame struct {
	// Key is the most likely key of the pitched notes (drums apart); Sounding is false when no
	// pitched note sounds, and then Key is C major.
	Key      Key
	Sounding bool
	// Meter is the file's first time signature, or the estimate from the onsets.
	Meter Meter
	// Downbeat is the tick of the first bar line: 0, or the length of a pickup when the
	// onsets say the file starts with one.
	Downbeat int64
}

// Sharps is the number of sharps (positive) or flats (negative) of the key's signature, -5 to 6.
func (k Key) Sharps() int { return signatureSharps(k.parentMajor()) }

// FrameOf finds f's key, meter and first downbeat as Analyze does, without the chords and
// voices. It reads at most MaxNotes notes; the caller bounds the file.
func FrameOf(f *midi.File) Frame {
	tpq := int64(f.TicksPerQuarter)
	if tpq <= 0 {
		tpq = 480
	}
	var pitched []midi.Note
	var hist [12]float64
	for _, n := range midi.NoteEvents(f) {
		if n.Channel != drumChannel {
			pitched = append(pitched, n)
			hist[n.Pitch%12] += float64(n.DurTicks) / float64(tpq)
		}
	}
	fr := Frame{Key: Key{Mode: "major"}, Sounding: len(pitched) > 0}
	if fr.Sounding {
		fr.Key = Keys(hist)[0]
	}
	info := midi.Inspect(f)
	fr.Meter, fr.Downbeat = meter(info.TimeSignatures, pitched, tpq)
	return fr
}
