package e2e

import (
	"strings"
	"testing"
)

// TestMidiToAbcOverHTTP converts the reel to MIDI and back to ABC through the gateway: the key,
// meter and notes it was written with come back, the ABC is an artifact that is the MIDI's
// child, and abc_to_midi plays it again with as many notes.
func TestMidiToAbcOverHTTP(t *testing.T) {
	t.Parallel()
	c := newCaller(t, connectHTTP(t, startStack(t)))
	midiArt := obj(c.call("abc_to_midi", map[string]any{"abc": reel}), "artifact")

	a := c.call("midi_to_abc", map[string]any{"artifact_id": midiArt["id"], "title": "The Reel"})
	if a["key"] != "G" || a["key_source"] != "key signature event" || a["meter"] != "4/4" || a["unit"] != "1/8" || a["grid"] != "eighth notes" {
		t.Errorf("key %v (%v), meter %v, unit %v, grid %v", a["key"], a["key_source"], a["meter"], a["unit"], a["grid"])
	}
	abc := toString(a["abc"])
	if !strings.HasPrefix(abc, "X:1\nT:The Reel\nM:4/4\nL:1/8\nQ:1/4=120\nK:G\n") || a["abc_truncated"] == true || jsonNumber(a["notes"]) != 58 {
		t.Errorf("notes %v, ABC:\n%s", a["notes"], abc)
	}
	art := obj(a, "artifact")
	if art["mime_type"] != "text/vnd.abc" || len(list(art["parent_ids"])) != 1 || list(art["parent_ids"])[0] != midiArt["id"] {
		t.Errorf("artifact = %v", art)
	}
	again := c.call("abc_to_midi", map[string]any{"artifact_id": art["id"]})
	if jsonNumber(obj(again, "midi")["notes"]) != 58 {
		t.Errorf("played again: %v", obj(again, "midi"))
	}
	c.fail("midi_to_abc", map[string]any{}, "artifact_id")
	c.fail("midi_to_abc", map[string]any{"artifact_id": midiArt["id"], "max_chars": 262145}, "max_chars")
}
