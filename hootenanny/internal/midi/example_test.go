package midi_test

import (
	"fmt"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

func Example() {
	f := midi.File{Format: 0, TicksPerQuarter: 480, Tracks: []midi.Track{{Events: []midi.Event{
		midi.Tempo(0, 400000), // 150 bpm
		midi.TimeSignature(0, 6, 8, 36, 8),
		midi.KeySignature(0, 1, false),
		midi.ProgramChange(0, 0, 73),
		midi.NoteOn(0, 0, 67, 96),
		midi.NoteOff(720, 0, 67, 0),
		midi.NoteOn(720, 0, 71, 80),
		midi.NoteOff(1440, 0, 71, 0),
	}}}}
	data, err := midi.EncodeWith(f, midi.EncodeOptions{RunningStatus: true})
	if err != nil {
		panic(err)
	}
	g, err := midi.Decode(data)
	if err != nil {
		panic(err)
	}
	info := midi.Inspect(g)
	fmt.Printf("%d bytes, format %d, %d track(s), %d ticks per quarter\n", len(data), info.Format, info.Tracks, info.TicksPerQuarter)
	fmt.Printf("%.0f bpm, %d/%d, %s\n", info.TempoMap[0].BPM, info.TimeSignatures[0].Numerator, info.TimeSignatures[0].Denominator, info.KeySignatures[0].Name)
	fmt.Printf("%.2f s, %.0f bar(s), %d notes %d-%d\n", info.DurationSeconds, info.DurationBars, info.Notes, info.Lowest, info.Highest)
	for _, n := range midi.NoteEvents(g) {
		fmt.Printf("pitch %d at %d for %d\n", n.Pitch, n.OnTick, n.DurTicks)
	}
	// Output:
	// 68 bytes, format 0, 1 track(s), 480 ticks per quarter
	// 150 bpm, 6/8, G major
	// 1.20 s, 1 bar(s), 2 notes 67-71
	// pitch 67 at 0 for 720
	// pitch 71 at 720 for 720
}
