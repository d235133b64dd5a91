package e2e

import (
	"strings"
	"testing"
)

// TestMidiAnalyzeOverHTTP converts the reel to MIDI and analyses it through the gateway: the key,
// meter and tempo it was written with come back, with a chord for each of its 8 played bars.
func TestMidiAnalyzeOverHTTP(t *testing.T) {
	t.Parallel()
	c := newCaller(t, connectHTTP(t, startStack(t)))
	midiArt := obj(c.call("abc_to_midi", map[string]any{"abc": reel}), "artifact")

	a := c.call("midi_analyze", map[string]any{"artifact_id": midiArt["id"], "max_chords": 3})
	if k := obj(a, "key"); k["name"] != "G major" || k["tonic"] != "G" || k["mode"] != "major" || k["correlation"].(float64) < 0.5 {
		t.Errorf("key = %v", k)
	}
	if r := obj(a, "runner_up"); r["name"] == "" || r["correlation"].(float64) >= obj(a, "key")["correlation"].(float64) {
		t.Errorf("runner-up = %v", r)
	}
	if a["declared_key"] != "G major" {
		t.Errorf("declared_key = %v", a["declared_key"])
	}
	if m := obj(a, "meter"); jsonNumber(m["numerator"]) != 4 || jsonNumber(m["denominator"]) != 4 || m["source"] != "time signature event" {
		t.Errorf("meter = %v", m)
	}
	if tp := obj(a, "tempo"); tp["bpm"] != float64(120) || tp["source"] != "tempo event" {
		t.Errorf("tempo = %v", tp)
	}
	chords := list(a["chords"])
	if len(chords) != 3 || jsonNumber(a["chords_total"]) != 8 || !strings.Contains(toString(a["chords_note"]), "3 of 8 chords listed") ||
		jsonNumber(obj(chords[0])["bar"]) != 1 || toString(obj(chords[0])["name"]) == "" {
		t.Errorf("chords = %v, total %v, note %v", chords, a["chords_total"], a["chords_note"])
	}
	voices := list(a["voices"])
	if len(voices) != 1 || obj(voices[0])["lowest_name"] != "F#4" || obj(voices[0])["highest_name"] != "F#5" || jsonNumber(a["notes"]) != 58 {
		t.Errorf("voices = %v, notes %v", voices, a["notes"])
	}

	perBeat := c.call("midi_analyze", map[string]any{"hash": midiArt["hash"], "chords_per": "beat", "section_bars": 4})
	if perBeat["chords_per"] != "beat" || jsonNumber(perBeat["chords_total"]) != 32 {
		t.Errorf("per beat: %v chords per %v", perBeat["chords_total"], perBeat["chords_per"])
	}
	// Two sections of four bars, the played A part and then the B part with its endings.
	if s := list(perBeat["sections"]); len(s) != 2 || jsonNumber(obj(s[1])["first_bar"]) != 5 || jsonNumber(obj(s[1])["last_bar"]) != 8 ||
		obj(s[1], "key")["name"] != "G major" {
		t.Errorf("sections = %v", s)
	}
	c.fail("midi_analyze", map[string]any{"artifact_id": midiArt["id"], "section_bars": 65}, "section_bars")
	c.fail("midi_analyze", map[string]any{"artifact_id": midiArt["id"], "chords_per": "bars"}, "chords_per")
	c.fail("midi_analyze", map[string]any{}, "artifact_id")
}
