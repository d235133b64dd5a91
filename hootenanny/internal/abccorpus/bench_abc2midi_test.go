//go:build abc2midi

package abccorpus

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkCorpusABC2MIDI runs abc2midi (ABC2MIDIArgs) as a process on every corpus tune, the
// tunes BenchmarkCorpusConvert converts in process, and reports tunes/s. The tune files are
// written once, outside the timing; each run writes its MIDI file and the next overwrites it.
func BenchmarkCorpusABC2MIDI(b *testing.B) {
	needABC2MIDI(b)
	tunes, err := Tunes()
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	for _, name := range Files() {
		src, err := Source(name)
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), src, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	out := filepath.Join(dir, "out.mid")
	ctx := context.Background()
	n := 0
	for b.Loop() {
		for _, tu := range tunes {
			if err := RunABC2MIDI(ctx, filepath.Join(dir, tu.File), tu.Ref, out, nil); err != nil {
				b.Fatalf("%s: %v", tu.ID(), err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "tunes/s")
}
