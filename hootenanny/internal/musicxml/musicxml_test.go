package musicxml

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/abc"
)

// node is an element of a parsed document, for the tests' queries.
type node struct {
	name  string
	attrs map[string]string
	kids  []*node
	text  string
}

func parseDoc(t testing.TB, b []byte) *node {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	root := &node{}
	stack := []*node{root}
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch x := tok.(type) {
		case xml.StartElement:
			n := &node{name: x.Name.Local, attrs: map[string]string{}}
			for _, a := range x.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			top := stack[len(stack)-1]
			top.kids = append(top.kids, n)
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			stack[len(stack)-1].text += strings.TrimSpace(string(x))
		}
	}
	return root.kids[0]
}

// all returns the descendants named by a path of element names ("part/measure/note").
func (n *node) all(path string) []*node {
	cur := []*node{n}
	for _, name := range strings.Split(path, "/") {
		var next []*node
		for _, c := range cur {
			for _, k := range c.kids {
				if k.name == name {
					next = append(next, k)
				}
			}
		}
		cur = next
	}
	return cur
}

// get is the text of the first element at path, or "".
func (n *node) get(path string) string {
	if xs := n.all(path); len(xs) > 0 {
		return xs[0].text
	}
	return ""
}

func (n *node) has(path string) bool { return len(n.all(path)) > 0 }

// pitch writes a note as "C#5" or "rest".
func (n *node) pitch() string {
	if n.has("rest") {
		return "rest"
	}
	s := n.get("pitch/step")
	switch n.get("pitch/alter") {
	case "1":
		s += "#"
	case "-1":
		s += "b"
	case "2":
		s += "##"
	case "-2":
		s += "bb"
	}
	return s + n.get("pitch/octave")
}

const features = `X:1
T:Test
C:Someone
M:6/8
L:1/8
Q:3/8=100
K:Dm
|:"Dm"!p!A2B (3cde .f|"Bb/D"{g}f>e ^c2- c/d/e/|1 d3 z3:|2 d6||
[K:G]Z2|[M:3/4] [CEG]2 !fermata!A2 B2|]
w:lo-ve is_ ev-ery thing * here
`

func TestConvertFeatures(t *testing.T) {
	doc := parseDoc(t, convertText(t, features))
	if v := doc.attrs["version"]; v != "4.0" {
		t.Errorf("version %q", v)
	}
	if got := doc.get("work/work-title"); got != "Test" {
		t.Errorf("title %q", got)
	}
	if got := doc.all("identification/creator"); len(got) != 1 || got[0].text != "Someone" || got[0].attrs["type"] != "composer" {
		t.Errorf("composer %+v", got)
	}
	ms := doc.all("part/measure")
	if len(ms) != 7 {
		t.Fatalf("%d measures, want 7", len(ms))
	}
	m1 := ms[0]
	if m1.get("attributes/divisions") != "12" || m1.get("attributes/key/fifths") != "-1" || m1.get("attributes/key/mode") != "minor" ||
		m1.get("attributes/time/beats") != "6" || m1.get("attributes/time/beat-type") != "8" || m1.get("attributes/clef/sign") != "G" {
		t.Errorf("first attributes wrong")
	}
	if m1.get("direction/direction-type/metronome/beat-unit") != "quarter" || !m1.has("direction/direction-type/metronome/beat-unit-dot") ||
		m1.get("direction/direction-type/metronome/per-minute") != "100" || m1.all("direction/sound")[0].attrs["tempo"] != "150" {
		t.Errorf("tempo wrong")
	}
	if !m1.has("direction/direction-type/dynamics/p") {
		t.Errorf("no p dynamic")
	}
	if lb := m1.all("barline"); len(lb) != 1 || lb[0].attrs["location"] != "left" || lb[0].all("repeat")[0].attrs["direction"] != "forward" {
		t.Errorf("no repeat start")
	}
	h := m1.all("harmony")
	if len(h) != 1 || h[0].get("root/root-step") != "D" || h[0].get("kind") != "minor" {
		t.Errorf("harmony Dm wrong")
	}
	notes := m1.all("note")
	var ps, durs, types, syl, words []string
	for _, n := range notes {
		ps = append(ps, n.pitch())
		durs = append(durs, n.get("duration"))
		types = append(types, n.get("type"))
		for _, l := range n.all("lyric") {
			syl = append(syl, l.get("syllabic"))
			words = append(words, l.get("text"))
		}
	}
	// B is flat in D minor; the triplet's eighths take 4 divisions of 12.
	if got := strings.Join(ps, " "); got != "A4 Bb4 C5 D5 E5 F5" {
		t.Errorf("pitches %s", got)
	}
	if got := strings.Join(durs, " "); got != "12 6 4 4 4 6" {
		t.Errorf("durations %s", got)
	}
	if got := strings.Join(types, " "); got != "quarter eighth eighth eighth eighth eighth" {
		t.Errorf("types %s", got)
	}
	if notes[2].get("time-modification/actual-notes") != "3" || notes[2].get("time-modification/normal-notes") != "2" ||
		notes[2].all("notations/tuplet")[0].attrs["type"] != "start" || notes[4].all("notations/tuplet")[0].attrs["type"] != "stop" {
		t.Errorf("triplet wrong")
	}
	var beams []string
	for _, n := range notes {
		beams = append(beams, n.get("beam")+".")
	}
	if got := strings.Join(beams, ""); got != "..begin.continue.end.." {
		t.Errorf("beams in bar 1: %s", got)
	}
	if !notes[5].has("notations/articulations/staccato") {
		t.Errorf("no staccato")
	}
	if got := strings.Join(syl, " ") + "|" + strings.Join(words, " "); got != "begin end single begin end|lo ve is ev ery" {
		t.Errorf("lyrics %s", got)
	}
	if !notes[2].has("lyric/extend") {
		t.Errorf("is_ has no extend")
	}

	m2 := ms[1]
	h = m2.all("harmony")
	if len(h) != 1 || h[0].get("root/root-step") != "B" || h[0].get("root/root-alter") != "-1" || h[0].get("bass/bass-step") != "D" {
		t.Errorf("harmony Bb/D wrong")
	}
	notes = m2.all("note")
	if !notes[0].has("grace") || notes[0].has("duration") || notes[0].pitch() != "G5" {
		t.Errorf("grace note wrong")
	}
	// f>e is a dotted eighth and a sixteenth; ^c2- c/ ties a quarter to a sixteenth.
	if notes[1].get("type") != "eighth" || !notes[1].has("dot") || notes[2].get("type") != "16th" {
		t.Errorf("broken rhythm wrong")
	}
	if notes[3].pitch() != "C#5" || notes[3].get("accidental") != "sharp" || notes[3].all("tie")[0].attrs["type"] != "start" ||
		notes[4].pitch() != "C#5" || notes[4].has("accidental") || notes[4].all("tie")[0].attrs["type"] != "stop" {
		t.Errorf("tie wrong")
	}
	beams = nil
	for _, n := range notes {
		beams = append(beams, n.get("beam")+".")
	}
	// {g} is a grace note; f>e is beamed, ^c2 is not, and c/d/e/ after a space is a group.
	if got := strings.Join(beams, ""); got != ".begin.end..begin.continue.end." {
		t.Errorf("beams in bar 2: %s", got)
	}
	if got := notes[len(notes)-1].all("lyric"); len(got) != 0 {
		t.Errorf("skipped note has a lyric")
	}
	if got := notes[3].get("lyric/text"); got != "here" {
		t.Errorf("last syllable under %q", got)
	}

	// The endings: 1 from bar 3 to its :|, 2 from bar 4 to the ||.
	e1 := ms[2].all("barline")
	if len(e1) != 2 || e1[0].all("ending")[0].attrs["number"] != "1" || e1[0].all("ending")[0].attrs["type"] != "start" ||
		e1[1].all("ending")[0].attrs["type"] != "stop" || e1[1].all("repeat")[0].attrs["direction"] != "backward" {
		t.Errorf("first ending wrong")
	}
	e2 := ms[3].all("barline")
	if len(e2) != 2 || e2[0].all("ending")[0].attrs["number"] != "2" || e2[1].all("ending")[0].attrs["type"] != "stop" ||
		e2[1].get("bar-style") != "light-light" {
		t.Errorf("second ending wrong")
	}
	// [K:G] then Z2: the key changes and two bars of rest follow.
	if ms[4].get("attributes/key/fifths") != "1" || !ms[4].has("note/rest") || ms[4].all("note/rest")[0].attrs["measure"] != "yes" ||
		ms[5].all("note/rest")[0].attrs["measure"] != "yes" || ms[4].get("note/duration") != "36" {
		t.Errorf("Z2 wrong")
	}
	m7 := ms[6]
	notes = m7.all("note")
	if m7.get("attributes/time/beats") != "3" || len(notes) != 5 || notes[0].has("chord") || !notes[1].has("chord") ||
		!notes[2].has("chord") || notes[3].has("chord") || !notes[3].has("notations/fermata") {
		t.Errorf("chord or fermata wrong")
	}
	if m7.all("barline")[0].get("bar-style") != "light-heavy" {
		t.Errorf("final bar wrong")
	}
}

func TestConvertVoicesAndOverlay(t *testing.T) {
	src := "X:1\nT:Two\nM:C\nL:1/4\nV:1 name=\"Fiddle\"\nV:2 name=Cello clef=bass\nK:Ador\nV:1\nE A2 B & c4|\nV:2\nA,,4|]\n"
	doc := parseDoc(t, convertText(t, src))
	parts := doc.all("part-list/score-part")
	if len(parts) != 2 || parts[0].get("part-name") != "Fiddle" || parts[1].get("part-name") != "Cello" ||
		parts[1].all("score-instrument")[0].attrs["id"] != "P2-I1" || parts[1].get("score-instrument/instrument-name") != "Cello" {
		t.Fatalf("parts wrong")
	}
	if doc.all("part")[1].get("measure/attributes/clef/sign") != "F" {
		t.Errorf("cello clef is not bass")
	}
	if doc.all("part")[0].get("measure/attributes/key/mode") != "dorian" {
		t.Errorf("mode wrong")
	}
	m := doc.all("part")[0].all("measure")[0]
	if m.get("backup/duration") != "4" {
		t.Errorf("overlay has no backup of the bar")
	}
	notes := m.all("note")
	if len(notes) != 4 || notes[2].get("voice") != "1" || notes[3].get("voice") != "2" || notes[3].pitch() != "C5" {
		t.Errorf("overlay voice wrong")
	}
	if got := doc.all("part")[1].all("measure/note")[0].pitch(); got != "A2" {
		t.Errorf("A,, is %s", got)
	}
}

func TestConvertPickupAndVerses(t *testing.T) {
	src := "X:1\nT:Pick\nM:3/4\nL:1/4\nK:C\nG|c2 d|e3|]\nw:one two three four\nw:five six sev-en\n"
	doc := parseDoc(t, convertText(t, src))
	ms := doc.all("part/measure")
	if ms[0].attrs["number"] != "0" || ms[0].attrs["implicit"] != "yes" || ms[1].attrs["number"] != "1" {
		t.Errorf("pickup numbering wrong: %v %v", ms[0].attrs, ms[1].attrs)
	}
	var verses []string
	for _, n := range doc.all("part/measure/note") {
		var s []string
		for _, l := range n.all("lyric") {
			s = append(s, l.attrs["number"]+":"+l.get("text"))
		}
		verses = append(verses, strings.Join(s, ","))
	}
	if got := strings.Join(verses, " "); got != "1:one,2:five 1:two,2:six 1:three,2:sev 1:four,2:en" {
		t.Errorf("verses %s", got)
	}
}

func TestConvertExplicitKeyAndFreeMeter(t *testing.T) {
	doc := parseDoc(t, convertText(t, "X:1\nT:K\nM:none\nL:1/8\nK:D exp _b ^f\nBf=f|]\n"))
	key := doc.all("part/measure/attributes/key")[0]
	var steps []string
	for _, k := range key.kids {
		steps = append(steps, k.name+"="+k.text)
	}
	if got := strings.Join(steps, " "); got != "key-step=F key-alter=1 key-step=B key-alter=-1" {
		t.Errorf("key %s", got)
	}
	if !doc.has("part/measure/attributes/time/senza-misura") {
		t.Errorf("free meter is not senza-misura")
	}
	var ps []string
	for _, n := range doc.all("part/measure/note") {
		ps = append(ps, n.pitch()+n.get("accidental"))
	}
	if got := strings.Join(ps, " "); got != "Bb4 F#5 F5natural" {
		t.Errorf("pitches %s", got)
	}
}

const hairpins = "X:1\nT:Hairpins\nP:AB\nM:2/4\nL:1/8\nK:C\nP:A\n!segno!!crescendo(!cd!crescendo)!ef|!diminuendo(!gf!diminuendo)!e2|\nP:B\n!coda!c4|]\n"

// TestConvertHairpinsAndSigns: hairpins start and stop around their notes; segno, coda and the
// parts' labels are directions.
func TestConvertHairpinsAndSigns(t *testing.T) {
	doc := parseDoc(t, convertText(t, hairpins))
	var got []string
	for _, m := range doc.all("part/measure") {
		for _, k := range m.kids {
			switch k.name {
			case "note":
				got = append(got, k.pitch())
			case "direction":
				for _, dt := range k.all("direction-type") {
					for _, x := range dt.kids {
						s := x.name
						if x.attrs["type"] != "" {
							s += "=" + x.attrs["type"]
						}
						if x.text != "" {
							s += "=" + x.text
						}
						got = append(got, s)
					}
				}
			}
		}
	}
	want := "rehearsal=A segno wedge=crescendo C5 D5 wedge=stop E5 F5 wedge=diminuendo G5 F5 wedge=stop E5 rehearsal=B coda C5"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestValues(t *testing.T) {
	for _, c := range []struct {
		l    abc.Rat
		want string
	}{
		{abc.R(1, 4), "quarter"}, {abc.R(3, 8), "quarter."}, {abc.R(15, 16), "half..."},
		{abc.R(5, 8), "half eighth"}, {abc.R(3, 1), "breve."}, {abc.R(9, 8), "whole eighth"}, {abc.R(1, 3), ""},
		{abc.R(1, 512), ""}, {abc.R(0, 1), ""}, {abc.R(-1, 4), ""},
	} {
		var got []string
		for _, v := range values(c.l) {
			got = append(got, v.typ+strings.Repeat(".", v.dots))
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("values(%s) = %v, want %s", c.l, got, c.want)
		}
	}
}

func TestParseHarmony(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"G", "G0 major"}, {"Am", "A0 minor"}, {"F#m7", "F1 minor-seventh"}, {"Bb", "B-1 major"},
		{"D7/F#", "D0 dominant /F1"}, {"Edim7", "E0 diminished-seventh"}, {"C7sus4", "C0 other"},
		{"(G)", "G0 major"}, {"N.C.", "none"}, {"fine", ""}, {"3", ""}, {"Gee whiz", ""}, {"A/x", ""},
	} {
		h := parseHarmony(c.in)
		got := ""
		if h != nil {
			if h.kind == "none" {
				got = "none"
			} else {
				got = string(h.rootStep) + itoa(h.rootAlter) + " " + h.kind
				if h.hasBass {
					got += " /" + string(h.bassStep) + itoa(h.bassAlter)
				}
			}
		}
		if got != c.want {
			t.Errorf("parseHarmony(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

func itoa(n int) string { return verseNumber(n) }

func TestLyricTokens(t *testing.T) {
	var got []string
	for _, tk := range lyricTokens(`lo-ve me_ * | well~done a\-b --x`) {
		s := string(tk.kind) + tk.text
		if tk.hyphen {
			s += "-"
		}
		got = append(got, s)
	}
	if s := strings.Join(got, " "); s != "wlo- wve wme _ * | wwell done wa-b- wx" {
		t.Errorf("tokens %s", s)
	}
}

func TestConvertErrors(t *testing.T) {
	book, _ := abc.Parse("X:1\nT:Empty\nK:C\n", abc.Options{})
	if _, err := Convert(book.Tunes[0]); !errors.Is(err, ErrNoMusic) {
		t.Errorf("empty tune: %v", err)
	}
	// Lengths of 1/1009, 1/1013 and 1/1019 of a note need more divisions than allowed.
	book, _ = abc.Parse("X:1\nT:Fine\nL:1/4\nK:C\nA/1009 B/1013 c/1019|\n", abc.Options{})
	if _, err := Convert(book.Tunes[0]); err == nil || !strings.Contains(err.Error(), "divisions") {
		t.Errorf("fine lengths: %v", err)
	}
}

// TestConvertBounds: long rests count every bar, in one voice and across voices.
func TestConvertBounds(t *testing.T) {
	book, _ := abc.Parse("X:1\nT:Long\nM:4/4\nK:C\nZ30000|\n", abc.Options{})
	if _, err := Convert(book.Tunes[0]); err == nil || !strings.Contains(err.Error(), "more than 20000 bars") {
		t.Errorf("one voice: %v", err)
	}
	var b strings.Builder
	b.WriteString("X:1\nT:Many\nM:4/4\nK:C\n")
	for v := range 8 {
		fmt.Fprintf(&b, "V:%d\nZ15000|\n", v+1)
	}
	book, _ = abc.Parse(b.String(), abc.Options{})
	if _, err := Convert(book.Tunes[0]); err == nil || !strings.Contains(err.Error(), "more than 100000 bars in all") {
		t.Errorf("eight voices: %v", err)
	}
}

// TestSchemaRejectsInvalid shows the validation is real: a document missing its parts fails.
func TestSchemaRejectsInvalid(t *testing.T) {
	good := convertText(t, "X:1\nT:S\nK:C\nCDE|\n")
	bad := []byte(strings.Replace(string(good), "<octave>4</octave>", "<octave>high</octave>", 1))
	res := validate(t, [][]byte{good, bad})
	if res[0] != "" {
		t.Errorf("valid document rejected: %s", res[0])
	}
	if !strings.Contains(res[1], "octave") {
		t.Errorf("invalid document passed: %q", res[1])
	}
}

// featureTunes are the tunes of the tests above, each showing features of the conversion; their
// documents are validated against the schema and opened in Verovio.
var featureTunes = []string{
	features,
	"X:1\nT:Two\nM:C\nL:1/4\nV:1 name=\"Fiddle\"\nV:2 name=Cello clef=bass\nK:Ador\nV:1\nE A2 B & c4|\nV:2\nA,,4|]\n",
	"X:1\nT:Pick\nM:3/4\nL:1/4\nK:C\nG|c2 d|e3|]\nw:one two three four\nw:five six sev-en\n",
	"X:1\nT:K\nM:none\nL:1/8\nK:D exp _b ^f\nBf=f|]\n",
	"X:1\nT:Odd\nM:5/8\nL:1/8\nK:none\n\"N.C.\"A5|\"^text\"(5abcde|(B/3c/3d/3)x2 X|[1 A5 :|[2,3 B5|]\n",
	hairpins,
	"X:1\nT:Edges\nM:2+3/8\nL:1/8\nQ:\"Allegro\"\nK:HP clef=perc\n&A2B3|(3:2:4ABcd e|{/[ce]g}[C2E]F2 G|[K:none clef=bass-8]C,5|[K:Hp treble+8]c5|]\n",
	beams,
}

// TestConvertFeaturesValidate validates the documents of the tests above.
func TestConvertFeaturesValidate(t *testing.T) {
	var docs [][]byte
	for _, src := range featureTunes {
		docs = append(docs, convertText(t, src))
	}
	for i, msg := range validate(t, docs) {
		if msg != "" {
			t.Errorf("document %d is not valid MusicXML:\n%s", i, msg)
		}
	}
}

const beams = "X:1\nT:B\nM:4/4\nL:1/8\nK:C\nabc\ndef|gazb c2de-|ef [ce]g|\n"

// TestBeams: notes written together are beamed, and a space, a line end, a bar line, a rest or a
// quarter note ends the group.
func TestBeams(t *testing.T) {
	doc := parseDoc(t, convertText(t, beams))
	var got []string
	for _, n := range doc.all("part/measure/note") {
		if n.has("chord") {
			continue
		}
		b := n.get("beam")
		if b == "" {
			b = "-"
		}
		got = append(got, b)
	}
	want := "begin continue end begin continue end begin end - - - begin end begin end begin end"
	if strings.Join(got, " ") != want {
		t.Errorf("beams %s\nwant  %s", strings.Join(got, " "), want)
	}
}

// TestTiesToNoNote: a tie whose note does not come (a chord tied to one of its notes, a tie
// before a rest, at the end) is not written, so no reader finds it left open; the tie that
// reaches its note is written at both ends.
func TestTiesToNoNote(t *testing.T) {
	doc := parseDoc(t, convertText(t, "X:1\nT:T\nM:2/4\nL:1/8\nK:C\n[DFd]4-|d2 c2-|z2 e2-|e4-|]\n"))
	var got []string
	for _, n := range doc.all("part/measure/note") {
		s := n.pitch()
		for _, ti := range n.all("tie") {
			s += " " + ti.attrs["type"]
		}
		for _, ti := range n.all("notations/tied") {
			s += " tied-" + ti.attrs["type"]
		}
		got = append(got, s)
	}
	want := "D4|F4|D5 start tied-start|D5 stop tied-stop|C5|rest|E5 start tied-start|E5 stop tied-stop"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
}

// TestImpliedTuplets: lengths that no note value writes (thirds and fifths of an eighth) are
// notes of a tuplet the ABC leaves unsaid, grouped until their lengths add up to a note value.
func TestImpliedTuplets(t *testing.T) {
	doc := parseDoc(t, convertText(t, "X:1\nT:I\nM:2/4\nL:1/8\nK:C\nB/3c/3d/3 e A/5B/5c/5d/5e/5 f|c/3 z/3 c/3 c3|]\n"))
	var got []string
	for _, n := range doc.all("part/measure/note") {
		s := n.pitch() + ":" + n.get("type")
		if n.has("time-modification") {
			s += " " + n.get("time-modification/actual-notes") + "/" + n.get("time-modification/normal-notes")
		}
		for _, tu := range n.all("notations/tuplet") {
			s += " " + tu.attrs["type"]
		}
		got = append(got, s)
	}
	want := "B4:16th 3/2 start|C5:16th 3/2|D5:16th 3/2 stop|E5:eighth|" +
		"A4:32nd 5/4 start|B4:32nd 5/4|C5:32nd 5/4|D5:32nd 5/4|E5:32nd 5/4 stop|F5:eighth|" +
		"C5:16th 3/2 start|rest:16th 3/2|C5:16th 3/2 stop|C5:quarter"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
	for _, c := range []struct {
		l    abc.Rat
		m, n int64
	}{{abc.R(1, 24), 3, 2}, {abc.R(1, 40), 5, 4}, {abc.R(3, 56), 7, 4}, {abc.R(1, 72), 9, 8}, {abc.R(1, 8), 0, 0}, {abc.R(1, 1031), 0, 0}, {abc.R(0, 1), 0, 0}} {
		if m, n := impliedTuplet(c.l); m != c.m || n != c.n {
			t.Errorf("impliedTuplet(%s) = %d:%d, want %d:%d", c.l, m, n, c.m, c.n)
		}
	}
}

// TestMeasureRestBesideNotes: Z or X in a bar with other notes is written as ordinary rests of
// the bar's length; alone in its bar it stays a whole-measure rest.
func TestMeasureRestBesideNotes(t *testing.T) {
	doc := parseDoc(t, convertText(t, "X:1\nT:Z\nM:5/8\nL:1/8\nK:C\nA x X|Z|c Z|]\n"))
	var got []string
	for _, m := range doc.all("part/measure") {
		var s []string
		for _, n := range m.all("note") {
			r := n.pitch()
			if rs := n.all("rest"); len(rs) > 0 && rs[0].attrs["measure"] == "yes" {
				r = "measure-rest"
			}
			if n.attrs["print-object"] == "no" {
				r += " hidden"
			}
			s = append(s, r+" "+n.get("duration")+" "+n.get("type"))
		}
		got = append(got, strings.Join(s, ", "))
	}
	want := "A4 1 eighth, rest hidden 1 eighth, rest hidden 4 half, rest hidden 1 eighth|measure-rest 5 |C5 1 eighth, rest 4 half, rest 1 eighth"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
}

// TestSlursVerovioWarnedOf: a slur around grace notes and their note starts on the first grace
// note; a slur over one note, and one the ABC never closes, are not written.
func TestSlursVerovioWarnedOf(t *testing.T) {
	doc := parseDoc(t, convertText(t, "X:1\nT:S\nM:3/4\nL:1/8\nK:G\n({GA}B2) (c2) (d2|(e2f2)(g2|a6|]\n"))
	var got []string
	for _, n := range doc.all("part/measure/note") {
		s := n.pitch()
		for _, sl := range n.all("notations/slur") {
			s += " " + sl.attrs["type"] + sl.attrs["number"]
		}
		got = append(got, s)
	}
	want := "G4 start1|A4|B4 stop1|C5|D5|E5 start2|F#5 stop2|G5|A5"
	if strings.Join(got, "|") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, "|"), want)
	}
}
