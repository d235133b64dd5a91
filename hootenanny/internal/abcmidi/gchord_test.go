package abcmidi

import (
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/midi"
)

// chNotes lists the notes on channel ch (0-based) as pitch@onset+duration:velocity, in onset
// then pitch order.
func chNotes(f *midi.File, ch int) []string {
	ns := midi.NoteEvents(f)
	sort.SliceStable(ns, func(i, j int) bool {
		if ns[i].OnTick != ns[j].OnTick {
			return ns[i].OnTick < ns[j].OnTick
		}
		return ns[i].Pitch < ns[j].Pitch
	})
	var out []string
	for _, n := range ns {
		if n.Channel == ch {
			out = append(out, fmt.Sprintf("%d@%d+%d:%d", n.Pitch, n.OnTick, n.DurTicks, n.Velocity))
		}
	}
	return out
}

func wantCh(t *testing.T, f *midi.File, ch int, want ...string) {
	t.Helper()
	if got := chNotes(f, ch); !reflect.DeepEqual(got, want) {
		t.Errorf("channel %d\n got %v\nwant %v", ch+1, got, want)
	}
}

// convertWith converts src with its %%MIDI lines read as the callers of Convert read them.
func convertWith(t *testing.T, src string, opts Options) *midi.File {
	t.Helper()
	tu := parseTune(t, src)
	opts.Voices, opts.Directives = MIDIDirectives(src, tu), Directives(src, tu)
	f, err := Convert(tu, opts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// The figures below are abc2midi 4.84's output for the same tunes, less its one-tick-late
// note starts.

func TestGuitarChordFourFour(t *testing.T) {
	src := "X:1\nM:4/4\nL:1/8\nK:G\n\"G\"GABc dedB|\"Em/B\"e2 \"C\"c2 \"D7\"d2 \"am\"A2|\n"
	f := convertWith(t, src, Options{})
	if f.Format != 1 || len(f.Tracks) != 3 {
		t.Fatalf("format %d with %d tracks, want format 1 with conductor, melody and accompaniment", f.Format, len(f.Tracks))
	}
	// The pattern fzczfzcz: bass on eighths 1 and 5, chords on 3 and 7.
	wantCh(t, f, 1, "43@0+240:80", "43@960+240:80", "47@1920+240:80", "38@2880+240:80", "45@3360+240:80")
	wantCh(t, f, 2,
		"55@480+240:75", "59@480+240:75", "62@480+240:75",
		"55@1440+240:75", "59@1440+240:75", "62@1440+240:75",
		"48@2400+240:75", "52@2400+240:75", "55@2400+240:75")
	if got := len(chNotes(f, 0)); got != 12 {
		t.Errorf("%d melody notes on channel 1, want 12", got)
	}
	// Melody only: one track, no accompaniment.
	m := convertWith(t, src, Options{MelodyOnly: true})
	if m.Format != 0 || len(chNotes(m, 1))+len(chNotes(m, 2)) != 0 {
		t.Errorf("melody only: format %d, %d accompaniment notes", m.Format, len(chNotes(m, 1))+len(chNotes(m, 2)))
	}
}

func TestGuitarChordNames(t *testing.T) {
	for _, c := range []struct {
		sym       string
		bass      int
		intervals []int
		ok        bool
	}{
		{"C", 0, []int{0, 4, 7}, true},
		{"Cm7b5", 0, []int{0, 3, 6, 10}, true},
		{"C9", 0, []int{0, 4, 7, 10, 14}, true},
		{"Csus4", 0, []int{0, 4, 7}, true}, // abc2midi's quirk: sus4 is a major triad
		{"Csus", 0, []int{0, 5, 7}, true},
		{"C7(b9)", 0, []int{0, 4, 7, 10}, true},
		{"Fine", 5, []int{5, 9, 12}, true}, // an unknown name is the major triad
		{"(Am)", 9, []int{9, 12, 16}, true},
		{"Cb", -1, []int{-1, 3, 6}, true},
		{"G/B", 11, []int{19, 11, 14}, true}, // the notes before the slash note go up an octave
		{"Am7/G", 7, []int{21, 24, 28, 19}, true},
		{"A/G#", 8, []int{9, 13, 16}, true}, // G# is not in A: the chord is unchanged
		{"N.C.", 0, nil, false},
	} {
		g, ok := parseGuitarChord(c.sym, chordNames)
		if ok != c.ok {
			t.Errorf("%q: ok %v", c.sym, ok)
			continue
		}
		if !ok {
			continue
		}
		bass := g.root
		if g.slash {
			bass = g.bass
		}
		if bass != c.bass || !reflect.DeepEqual(g.voicing(), c.intervals) {
			t.Errorf("%q: bass %d voicing %v, want %d %v", c.sym, bass, g.voicing(), c.bass, c.intervals)
		}
	}
}

func TestGuitarChordDirectives(t *testing.T) {
	src := "X:1\nM:4/4\nL:1/8\n%%MIDI gchord fzc2ghijGHIJbx\n%%MIDI chordprog 24\n%%MIDI bassprog 33\n" +
		"%%MIDI chordvol 60\n%%MIDI bassvol 70\nK:C\n\"G7\"c8|\"C\"c8|\n%%MIDI gchordoff\n\"D\"c8|\n%%MIDI gchordon\nc8|\n"
	f := convertWith(t, src, Options{})
	// 14 units a bar: 137 ticks each, truncated as abc2midi's queue does.
	wantCh(t, f, 1, "43@0+137:70", "43@1644+137:70", "36@1920+137:70", "36@3564+137:70", "38@5760+137:70", "38@7404+137:70")
	got := chNotes(f, 2)
	want := []string{"55@274+274:60", "59@274+274:60", "62@274+274:60", "65@274+274:60",
		"55@548+137:60", "59@685+137:60", "62@822+137:60", "65@959+137:60",
		"43@1096+137:60", "47@1233+137:60", "50@1370+137:60", "53@1507+137:60"}
	if !reflect.DeepEqual(got[:len(want)], want) {
		t.Errorf("first bar of chords\n got %v\nwant %v", got[:len(want)], want)
	}
	// C has three notes: j and J play the fourth note left from G7 (abc2midi's quirk).
	for _, n := range []string{"65@2879+137:60", "65@3427+137:60"} {
		if !contains(got, n) {
			t.Errorf("chords lack %s: %v", n, got)
		}
	}
	// gchordoff silences bar 3 (3840..5760); gchordon brings D back in bar 4.
	for _, n := range append(chNotes(f, 1), got...) {
		var p, on, d, v int
		fmt.Sscanf(n, "%d@%d+%d:%d", &p, &on, &d, &v)
		if on >= 3840 && on < 5760 {
			t.Errorf("note %s while gchordoff", n)
		}
	}
	var progs []string
	for _, tr := range f.Tracks {
		for _, e := range tr.Events {
			if e.Kind == midi.KindProgramChange {
				progs = append(progs, fmt.Sprintf("ch%d=%d", e.Channel+1, e.Data1))
			}
		}
	}
	if !reflect.DeepEqual(progs, []string{"ch3=24", "ch2=33"}) {
		t.Errorf("programs %v, want chordprog on channel 3 and bassprog on channel 2", progs)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestGuitarChordBarsAndNames(t *testing.T) {
	// gchordbars takes effect with the next gchord line: here the pattern spans two bars and
	// is not started again at the bar line between them.
	src := "X:1\nM:4/4\nL:1/8\n%%MIDI gchordbars 2\n%%MIDI gchord fzczfzcz\n%%MIDI chordname sus4 0 5 7\nK:C\n\"G\"c8|\"Csus4\"c8|\n"
	f := convertWith(t, src, Options{})
	wantCh(t, f, 1, "43@0+480:80", "36@1920+480:80")
	wantCh(t, f, 2, "55@960+480:75", "59@960+480:75", "62@960+480:75", "48@2880+480:75", "53@2880+480:75", "55@2880+480:75")
	// Alone, gchordbars changes nothing.
	f = convertWith(t, "X:1\nM:4/4\nL:1/8\n%%MIDI gchordbars 2\nK:C\n\"G\"c8|\n", Options{})
	wantCh(t, f, 1, "43@0+240:80", "43@960+240:80")
}

func TestGuitarChordMeters(t *testing.T) {
	for _, c := range []struct {
		meter string
		notes string
		bass  []string
		chord []string // first chord note times
	}{
		{"6/8", "c6", []string{"43@0+240:80", "43@720+240:80"}, []string{"55@480+240:75", "55@1200+240:75"}},
		{"3/4", "c6", []string{"43@0+240:80"}, []string{"55@480+240:75", "55@960+240:75"}},
		{"2/4", "c4", []string{"43@0+240:80"}, []string{"55@480+240:75"}},
		{"5/4", "c10", []string{"43@0+480:80", "43@960+480:80"}, []string{"55@960+480:75", "55@1440+480:75"}},
		{"9/8", "c9", []string{"43@0+240:80", "43@720+240:80", "43@1440+240:80"}, []string{"55@480+240:75", "55@1200+240:75", "55@1920+240:75"}},
		{"3/2", "c6", nil, nil}, // no default pattern: nothing
	} {
		f := convertWith(t, "X:1\nM:"+c.meter+"\nL:1/8\nK:C\n\"G\""+c.notes+"|\n", Options{})
		if got := chNotes(f, 1); !reflect.DeepEqual(got, c.bass) {
			t.Errorf("M:%s bass %v, want %v", c.meter, got, c.bass)
		}
		var roots []string
		for _, n := range chNotes(f, 2) {
			if n[:2] == "55" {
				roots = append(roots, n)
			}
		}
		if !reflect.DeepEqual(roots, c.chord) {
			t.Errorf("M:%s chords %v, want %v", c.meter, roots, c.chord)
		}
	}
}

func TestGuitarChordAcrossRepeats(t *testing.T) {
	// The pickup has no chord yet; the short last bar before :| runs on into the pickup
	// when the section repeats, so the pattern is not started again there (bass D at 4800).
	src := "X:1\nM:4/4\nL:1/8\nK:C\nc|\"G\"c8|\"C\"c6 z|\"D\"c4:|\n"
	f := convertWith(t, src, Options{})
	wantCh(t, f, 1, "43@240+240:80", "43@1200+240:80", "36@2160+240:80", "36@3120+240:80", "38@3840+240:80",
		"38@4800+240:80", "43@5040+240:80", "43@6000+240:80", "36@6960+240:80", "36@7920+240:80", "38@8640+240:80")
	// A short bar not before a repeat starts the pattern again at the next bar line: the
	// pending chord of G at 480 gives way to C's bass.
	f = convertWith(t, "X:1\nM:4/4\nL:1/8\nK:C\n\"G\"c2|\"C\"c8|\n", Options{})
	wantCh(t, f, 1, "43@0+240:80", "36@480+240:80", "36@1440+240:80")
	wantCh(t, f, 2, "48@960+240:75", "52@960+240:75", "55@960+240:75", "48@1920+240:75", "52@1920+240:75", "55@1920+240:75")
}

func TestGuitarChordVoicesAndChannels(t *testing.T) {
	src := "X:1\nM:4/4\nL:1/8\nK:C\nV:1\n\"G\"c8|\nV:2\n\"D\"C8|\n"
	f := convertWith(t, src, Options{})
	// Voice 1 on channel 1, its bass on 2 and chords on 3; voice 2 on 4, 5 and 6.
	wantCh(t, f, 1, "43@0+240:80", "43@960+240:80")
	wantCh(t, f, 4, "38@0+240:80", "38@960+240:80")
	if len(chNotes(f, 3)) != 1 || len(chNotes(f, 5)) != 6 || len(chNotes(f, 2)) != 6 {
		t.Errorf("channels 3, 4, 6: %v %v %v", chNotes(f, 2), chNotes(f, 3), chNotes(f, 5))
	}
	// Transposing and a fixed velocity reach the accompaniment too.
	f = convertWith(t, "X:1\nM:2/4\nL:1/8\nK:C\n\"G\"c4|\n", Options{Transpose: 2, Velocity: 100})
	wantCh(t, f, 1, "45@0+240:100")
	wantCh(t, f, 2, "57@480+240:100", "61@480+240:100", "64@480+240:100")
}

func TestGuitarChordLowercase(t *testing.T) {
	f := convertWith(t, "X:1\nM:2/4\nL:1/8\nK:C\n\"am\"c4|\"bb/F\"c4|\n", Options{})
	// A lowercase root plays the bass only, on the chord beats too.
	wantCh(t, f, 1, "45@0+240:80", "45@480+240:80", "41@960+240:80", "41@1440+240:80")
	wantCh(t, f, 2)
}

// TestRepeatsAsABC2MIDI plays repeat structures without an opening |: as abc2midi 4.84 plays
// them (its melody, read from its output).
func TestRepeatsAsABC2MIDI(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		// After a repeated section, || |] [| start the next one...
		{"C D|E F:|G A||B c|d e:|", "C D E F C D E F G A B c d e B c d e"},
		{"C D:|E F|G A||B c:|", "C D C D E F G A B c B c"},
		{"|:C D:|E F|]G A|B c:|", "C D C D E F G A B c G A B c"},
		// ...but not before the first repeat, nor inside a |: section.
		{"C D|E F||G A|B c:|", "C D E F G A B c C D E F G A B c"},
		{"|:C D|E F||G A:|", "C D E F G A C D E F G A"},
		// :||: and :: end one section and start the next.
		{"C D|E F:||:G A|B c:||", "C D E F C D E F G A B c G A B c"},
		{"C D|E F::G A|B c:|", "C D E F C D E F G A B c G A B c"},
		// Endings right after a repeated section belong to a new section.
		{"C D|E F:|[1G A:|[2B c||", "C D E F C D E F G A B c"},
		{"|:C D:|[1E F:|[2G A||", "C D C D E F G A"},
		{"C D|E F:|[1G A:|[2B c||d e|f g:|", "C D E F C D E F G A B c d e f g d e f g"},
		{"C D|E F:|G A|[1B c:|[2d e||", "C D E F C D E F G A B c G A d e"},
		// ||: is a section line and a stray colon for abc2midi, not a repeat start.
		{"C||:D E|F G:|", "C D E F G C D E F G"},
		// :[|] is a dotted bar line and [|] for abc2midi, not a repeat end.
		{"C D|:E F:[|]|] G A|", "C D E F G A"},
		{"C D::E F:[|]|] G A|", "C D C D E F G A"},
		// A repeat sign right after another bar line still ends the repeat; [|]:| is [|] :|.
		{"C D|E F [|]:|G A|", "C D E F C D E F G A"},
		{"C D|E F [|] :|G A|", "C D E F C D E F G A"},
		{"C D|E F || :|G A|", "C D E F C D E F G A"},
		// After a second ending, a later :| goes back to the section's start once more,
		// skipping the endings; then no :| repeats until the next |: or ::.
		{"C D|[1E F:|[2G A||B c|d e:|", "C D E F C D G A B c d e C D B c d e"},
		{"C D|[1E F:|[2G A||B c|d e:|f g|a b:|", "C D E F C D G A B c d e C D B c d e f g a b"},
		{"C D|[1E F:|[2G A||B c:|d e||f g:|", "C D E F C D G A B c C D B c d e f g"},
		{"C D|[1E F:|[2G A|B c|d e:|", "C D E F C D G A B c d e C D"},
		{"C D:|E F|[1G A:|[2B c||d e|f g:|", "C D C D E F G A E F B c d e f g E F d e f g"},
		// Endings before that jump are chosen by the pass still counted.
		{"C D|[1E F:|[2G A||B c|[1d e:|[2f g||", "C D E F C D G A B c f g"},
		// A |: after an ending's plain bar line ends the ending.
		{"C D|[1E F:|[2G A|\n|:B c:|", "C D E F C D G A B c B c"},
		// |: and :: start afresh.
		{"C D|[1E F:|[2G A::B c|d e:|", "C D E F C D G A B c d e B c d e"},
		{"C D|[1E F:|[2G A|:B c|d e:|", "C D E F C D G A B c d e B c d e"},
	} {
		f := convert(t, "X:1\nM:2/4\nL:1/4\nK:C\n"+c.body+"\n", Options{MelodyOnly: true})
		var got []string
		for _, n := range midi.NoteEvents(f) {
			name := []string{"C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"}[n.Pitch%12]
			if n.Pitch >= 72 {
				name = strings.ToLower(name)
			}
			got = append(got, name)
		}
		if g := strings.Join(got, " "); g != c.want {
			t.Errorf("%s\n got %s\nwant %s", c.body, g, c.want)
		}
	}
}

func TestDrumPattern(t *testing.T) {
	// The pattern starts again at every bar line, as the chord pattern does; %%MIDI drum gives
	// the key and then the velocity of each hit. The drums play on channel 10, also with the
	// melody alone, and need no chord symbol.
	src := "X:1\nM:4/4\nL:1/8\nK:C\n%%MIDI drum d2zdd2d2 65 50 50 50 90 90 90 70\n%%MIDI drumon\nD2|FGA2 A2A2|\n%%MIDI drumoff\nc8|\n"
	for _, melody := range []bool{false, true} {
		f := convertWith(t, src, Options{MelodyOnly: melody})
		wantCh(t, f, 9, "65@0+480:90", "65@480+480:90", "50@1200+240:90", "50@1440+480:90", "50@1920+480:70")
		if n := len(chNotes(f, 1)) + len(chNotes(f, 2)); n != 0 {
			t.Errorf("%d bass and chord notes without chord symbols", n)
		}
	}
}

func TestTrim(t *testing.T) {
	// %%MIDI trim 1/5 takes a fifth of L: (here an eighth: 48 ticks) off each note longer than
	// that, but not off a slurred note before the slur's last or a tied note; a staccato note
	// is trimmed instead of halved; trim 0/1 stops it, and staccato then changes nothing.
	// (abc2midi 4.84's figures.)
	src := "X:1\nM:4/4\nL:1/8\nK:C\n%%MIDI trim 1/5\nC D (E F) G-G A/B/ !staccato!c2|\n%%MIDI trim 0/1\nC !staccato!D|\n"
	f := convertWith(t, src, Options{MelodyOnly: true})
	wantCh(t, f, 0, "60@0+192:105", "62@240+192:80", "64@480+240:80", "65@720+192:80", "67@960+480:95",
		"69@1440+72:80", "71@1560+72:80", "72@1680+432:80", "60@2160+240:105", "62@2400+240:80")
}

func TestTrill(t *testing.T) {
	// A trill alternates thirty-second notes (60 ticks) of the next letter up, in the key and
	// the bar's accidentals, and the note, starting above; a chord is not trilled.
	src := "X:1\nM:4/4\nL:1/16\nK:G\nTG3 ^cTc B [CE]T[CE]|\n"
	f := convertWith(t, src, Options{MelodyOnly: true})
	got := notes(f)
	want := []string{"69@0+60", "67@60+60", "69@120+60", "67@180+60", "69@240+60", "67@300+60", "73@360+120",
		"74@480+60", "73@540+60", "71@600+120"}
	if !reflect.DeepEqual(got[:len(want)], want) {
		t.Errorf("trills\n got %v\nwant %v", got[:len(want)], want)
	}
	if s := convertWith(t, src, Options{MelodyOnly: true, Straight: true}); len(notes(s)) != 8 {
		t.Errorf("straight: %v, want the notes as written", notes(s))
	}
}

func TestBrokenRhythmRatio(t *testing.T) {
	// %%MIDI ratio 2 1 plays A>B 2:1 and A<B 1:2; A>>B keeps 7:1; ratio 3 1 is the default.
	src := "X:1\nM:4/4\nL:1/8\nK:C\n%%MIDI ratio 2 1\nC>D E<F G>>A B2|\n%%MIDI ratio 3 1\nC>D E6|\n"
	f := convertWith(t, src, Options{MelodyOnly: true})
	wantNotes(t, f, "60@0+320", "62@320+160", "64@480+160", "65@640+320", "67@960+420", "69@1380+60", "71@1440+480",
		"60@1920+360", "62@2280+120", "64@2400+1440")
}

func TestHornpipeByMeter(t *testing.T) {
	// abc2midi swings even eighths in a 4/4 hornpipe only (sixteenths in 2/4), and plays A>B
	// 2:1 in every meter.
	for _, c := range []struct{ meter, unit, body, want string }{
		{"4/4", "1/8", "dA BG", "74@0+320 69@320+160 71@480+320 67@800+160"},
		{"C|", "1/8", "dA BG", "74@0+240 69@240+240 71@480+240 67@720+240"},
		{"C|", "1/8", "A>B c>d", "69@0+320 71@320+160 73@480+320 74@800+160"},
		{"2/4", "1/16", "dA BG", "74@0+160 69@160+80 71@240+160 67@400+80"},
		{"2/4", "1/8", "dA BG", "74@0+240 69@240+240 71@480+240 67@720+240"},
		{"3/4", "1/8", "A>B c>d e2", "69@0+320 71@320+160 73@480+320 74@800+160 76@960+480"},
		// In 4/4 a written A<B on the beat swings as A>B; off the beat it stays; a pair
		// written dotted (A3/2B/) is not swung; after %%MIDI ratio 3 1 the pairs swing 3:1.
		{"4/4", "1/8", "B<A G3/2F/ zB<A", "71@0+320 69@320+160 67@480+360 66@840+120 71@1200+160 69@1360+320"},
		{"4/4", "1/8", "B<A GF|\n%%MIDI ratio 3 1\nBA G<F", "71@0+320 69@320+160 67@480+320 66@800+160 71@960+360 69@1320+120 67@1440+360 66@1800+120"},
		{"3/4", "1/8", "B<A G2", "71@0+160 69@160+320 67@480+480"},
	} {
		f := convertWith(t, "X:1\nR:hornpipe\nM:"+c.meter+"\nL:"+c.unit+"\nK:D\n"+c.body+"|\n", Options{MelodyOnly: true})
		if got := strings.Join(notes(f), " "); got != c.want {
			t.Errorf("M:%s L:%s %s\n got %s\nwant %s", c.meter, c.unit, c.body, got, c.want)
		}
	}
}

func TestChordAttack(t *testing.T) {
	// The notes of a chord start 10 ticks apart; %%MIDI chordattack n makes it n from where
	// it is written, and !arpeggio! spreads the next chord three times as far. The notes end
	// together. (abc2midi 4.84's figures; its chordattack is not random: randomchordattack is.)
	src := "X:1\nM:4/4\nL:1/8\nK:C\n[CEG]2 [CE]2 !arpeggio![CEG]2 [CEG]2|\n%%MIDI chordattack 30\n[CEG]2 !arpeggio![CE]2 z4|\n"
	f := convertWith(t, src, Options{MelodyOnly: true})
	wantNotes(t, f, "60@0+480", "64@10+470", "67@20+460", "60@480+480", "64@490+470",
		"60@960+480", "64@990+450", "67@1020+420", "60@1440+480", "64@1450+470", "67@1460+460",
		"60@1920+480", "64@1950+450", "67@1980+420", "60@2400+480", "64@2490+390")
	if s := convertWith(t, src, Options{MelodyOnly: true, Straight: true}); notes(s)[1] != "64@0+480" {
		t.Errorf("straight: %v, want the chords as written", notes(s))
	}
}

func TestRoll(t *testing.T) {
	// ~ on a note three units long plays five notes: a third, the letter up for a twelfth, a
	// quarter, the letter down for a twelfth, and the rest (a tie adds to the last); on any
	// other note the letter up takes a quarter of the unit first. The letters are those of the
	// key (D: C is C#). !roll! and a roll on a chord change nothing. (abc2midi 4.84's figures.)
	src := "X:1\nM:4/4\nL:1/8\nK:D\n~A3 ~c2 ~e/ z/ z2|~A z ~F3- F2 z|!roll!A2 ~[FA]2 z4|\nL:1/16\n~A6 ~B3 z7|\n"
	f := convertWith(t, src, Options{MelodyOnly: true})
	wantCh(t, f, 0,
		"69@0+240:105", "71@240+60:80", "69@300+180:80", "67@480+60:80", "69@540+180:80",
		"74@720+60:80", "73@780+420:80", "78@1200+60:80", "76@1260+60:80",
		"71@1920+60:105", "69@1980+180:80", "66@2400+240:80", "67@2640+60:80", "66@2700+180:80",
		"64@2880+60:95", "66@2940+660:80",
		"69@3840+480:105", "66@4320+480:80", "69@4330+470:80",
		"71@5760+30:105", "69@5790+690:80", "71@6480+120:80", "73@6600+30:80", "71@6630+90:80", "69@6720+30:95", "71@6750+90:80")
	if s := convertWith(t, src, Options{MelodyOnly: true, Straight: true}); len(notes(s)) != 10 {
		t.Errorf("straight: %v, want the notes as written", notes(s))
	}
}

func TestFermata(t *testing.T) {
	// A fermata (H or !fermata!) doubles its note, chord or rest, and what follows moves on;
	// beats count with the doubled length, and the accompaniment's pattern waits for the next
	// bar line. Straight keeps the written time. (abc2midi 4.84's figures.)
	src := "X:1\nM:4/4\nL:1/8\nK:D\n!fermata!A2 B2 HA2 c2|H[DF]4 E2|Hz2 A2 HA/ B3/ A2|\n"
	f := convertWith(t, src, Options{MelodyOnly: true})
	wantCh(t, f, 0, "69@0+960:105", "71@960+480:95", "69@1440+960:80", "73@2400+480:80",
		"62@2880+1920:105", "66@2890+1910:105", "64@4800+480:95",
		"69@6240+480:95", "69@6720+240:80", "71@6960+360:80", "69@7320+480:80")
	acc := convertWith(t, "X:1\nM:2/4\nL:1/8\nK:G\n\"G\"GA Bc|\"D\"HA4|\"G\"G2 Hz2|\"C\"c2 G2|\n", Options{})
	wantCh(t, acc, 1, "43@0+240:80", "38@960+240:80", "43@2880+240:80", "36@4320+240:80")
	if s := convertWith(t, src, Options{MelodyOnly: true, Straight: true}); notes(s)[1] != "71@480+480" {
		t.Errorf("straight: %v, want the written time", notes(s))
	}
}

func TestTransposeDirective(t *testing.T) {
	// %%MIDI transpose n plays n semitones away from where it is written, the accompaniment
	// too; rtranspose n moves n further; a later transpose sets it again. (abc2midi 4.84's
	// figures.)
	src := "X:1\nM:2/4\nL:1/4\n%%MIDI transpose 1\nK:C\n\"C\"C D|\n%%MIDI transpose 2\n\"G\"C D|\n" +
		"%%MIDI rtranspose 3\n\"C\"C [CE]|\n%%MIDI transpose -1\n\"g\"C D|\n"
	f := convertWith(t, src, Options{})
	wantCh(t, f, 0, "61@0+480:105", "63@480+480:80", "62@960+480:105", "64@1440+480:80",
		"65@1920+480:105", "65@2400+480:80", "69@2410+470:80", "59@2880+480:105", "61@3360+480:80")
	wantCh(t, f, 1, "37@0+240:80", "45@960+240:80", "41@1920+240:80", "42@2880+240:80", "42@3360+240:80")
	wantCh(t, f, 2, "49@480+240:75", "53@480+240:75", "56@480+240:75", "57@1440+240:75", "61@1440+240:75",
		"64@1440+240:75", "53@2400+240:75", "57@2400+240:75", "60@2400+240:75")
}

func TestSectionLineAfterShortBar(t *testing.T) {
	// After a short bar, || |] and [| do not start a new bar, as a repeat sign does not: the
	// pickup after them is off the beat and the pattern goes on (its chord step plays the
	// pickup's G). A plain bar line starts one. (abc2midi 4.84's figures.)
	for _, bl := range []string{"||", "|]", "[|", "|"} {
		f := convertWith(t, "X:1\nM:4/4\nL:1/8\nK:C\nCDEF GABc|\"C\"C6 "+bl+"\"G\"G2|\"C\"c8|\n", Options{})
		pickup, bass := "67@3360+480:80", []string{"36@1920+240:80", "36@2880+240:80", "36@3840+240:80", "36@4800+240:80"}
		if bl == "|" {
			pickup, bass = "67@3360+480:105", []string{"36@1920+240:80", "36@2880+240:80", "43@3360+240:80", "36@3840+240:80", "36@4800+240:80"}
		}
		if got := chNotes(f, 0); got[9] != pickup {
			t.Errorf("%s: pickup %s, want %s", bl, got[9], pickup)
		}
		if got := chNotes(f, 1); !reflect.DeepEqual(got, bass) {
			t.Errorf("%s: bass\n got %v\nwant %v", bl, got, bass)
		}
	}
}

func TestDrone(t *testing.T) {
	// %%MIDI droneon holds A, and A,, (keys 45 and 33, velocity 80) on the bassoon on the
	// channel after the voice's accompaniment until droneoff or the end, with the melody alone
	// too; %%MIDI drone p n1 n2 v1 v2 sets them. abc2midi plays the same notes, but starts
	// them late: 1 and 2 ticks after its own one-tick-late notes at the start, and at twice
	// the time (the second note three times) after it.
	f := convertWith(t, "X:1\nM:4/4\nL:1/8\nK:D\n%%MIDI droneon\n\"D\"A8|\"G\"B8|\n", Options{})
	wantCh(t, f, 3, "33@0+3840:80", "45@0+3840:80")
	src := "X:1\nM:4/4\nL:1/8\nK:D\nA8|\n%%MIDI drone 71 50 38 60 70\n%%MIDI droneon\nB8|c8|\n%%MIDI droneoff\nd8|\n"
	m := convertWith(t, src, Options{MelodyOnly: true})
	wantCh(t, m, 1, "38@1920+3840:70", "50@1920+3840:60")
	progs := map[int]int{}
	for _, tr := range m.Tracks {
		for _, e := range tr.Events {
			if e.Kind == midi.KindProgramChange {
				progs[int(e.Channel)] = int(e.Data1)
			}
		}
	}
	if progs[1] != 71 {
		t.Errorf("programs %v, want 71 on channel 2", progs)
	}
}

func TestStaleChordNoteFromTheMelodyPass(t *testing.T) {
	// g h i j past a chord's notes, or before the first chord, play the slot abc2midi's note
	// array holds: at the start, what its pass over the melody left there, where the chords
	// have no octave base (C7's fourth slot: 10); then what the last longer chord left (58).
	// (abc2midi 4.84's figures.)
	f := convertWith(t, "X:1\nM:3/4\nL:1/4\nK:F\n%%MIDI gchord ghijGj\nF A c|\"F\"c2 A|\"C7\"F A c|\"Dm\"F A c|\n", Options{})
	wantCh(t, f, 2, "10@0+240:75", "10@240+240:75", "10@480+240:75", "10@720+240:75", "10@960+240:75", "10@1200+240:75",
		"53@1440+240:75", "57@1680+240:75", "60@1920+240:75", "10@2160+240:75", "41@2400+240:75", "10@2640+240:75",
		"48@2880+240:75", "52@3120+240:75", "55@3360+240:75", "58@3600+240:75", "36@3840+240:75", "58@4080+240:75",
		"50@4320+240:75", "53@4560+240:75", "57@4800+240:75", "58@5040+240:75", "38@5280+240:75", "58@5520+240:75")
}

func TestMeterChangeMidBar(t *testing.T) {
	// A meter change sets its default pattern but the step goes on from where it was (only a
	// bar line starts the pattern again); a step past the new pattern's end waits for the next
	// bar line. (abc2midi 4.84's figures.)
	f := convertWith(t, "X:1\nM:4/4\nL:1/8\nK:G\n\"G\"G2 G2 G2 [M:6/8]\"D\"D2 D|\"G\"G2 A2 B2|\n", Options{})
	wantCh(t, f, 2, "55@480+240:75", "59@480+240:75", "62@480+240:75", "55@2640+240:75", "59@2640+240:75", "62@2640+240:75",
		"55@3360+240:75", "59@3360+240:75", "62@3360+240:75")
	// After a short bar and :| the bar goes on into the 4/4 pickup: fzczfzcz from its sixth
	// step, so its D chord plays on the pickup's second eighth.
	g := convertWith(t, "X:1\nM:6/8\nL:1/8\nK:G\n|:\"G\"G3 G3|\"Am\"A3 A2:|[M:4/4]\"D\"D2|\"G\"G8|\n", Options{})
	if got := chNotes(g, 2); !slices.Contains(got, "50@5520+240:75") {
		t.Errorf("chords %v: want the D chord at 5520", got)
	}
	wantCh(t, g, 1, "43@0+240:80", "43@720+240:80", "45@1440+240:80", "45@2160+240:80", "45@4080+240:80", "45@4800+240:80",
		"43@5760+240:80", "43@6720+240:80")
}
