package e2e

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// A reel in two parts, the second with first and second endings: 8 notes a bar.
const reel = `X:7
T:Test Reel
R:reel
M:4/4
L:1/8
Q:1/4=120
K:G
|:GABc dBAG|FGAB cAFA:|
|:d2fd edcB|1 ABcd e2dc:|2 ABcA G4|]
`

func TestMusicOverHTTP(t *testing.T) {
	t.Parallel()
	c := newCaller(t, connectHTTP(t, startStack(t)))

	// Check: a clean tune is valid; a mistake is found with line, column and a way out.
	v := c.call("abc_validate", map[string]any{"abc": reel})
	if v["valid"] != true || jsonNumber(v["errors"]) != 0 || len(list(v["tunes"])) != 1 || obj(list(v["tunes"])[0])["title"] != "Test Reel" {
		t.Errorf("abc_validate(reel) = %v", v)
	}
	// A short bar inside the tune (a short last bar is allowed: it often balances a pickup).
	bad := c.call("abc_validate", map[string]any{"abc": "X:1\nT:Bad\nM:4/4\nL:1/8\nK:G\nGABc dBAG|GAB|GABc dBAG|\n"})
	diags := list(bad["diagnostics"])
	if len(diags) == 0 || jsonNumber(obj(diags[0])["line"]) != 6 || jsonNumber(obj(diags[0])["column"]) == 0 || !strings.Contains(toString(obj(diags[0])["message"]), "bar 2") {
		t.Errorf("abc_validate(short bar) = %v", bad)
	}
	if none := c.call("abc_validate", map[string]any{"abc": "just words"}); none["valid"] != false || !strings.Contains(toString(obj(list(none["diagnostics"])[0])["message"]), "X:") {
		t.Errorf("abc_validate(no tune) = %v", none)
	}

	// Parse: the structure, down to the notes and the endings.
	p := c.call("abc_parse", map[string]any{"abc": reel})
	tune := obj(list(p["tunes"])[0])
	if jsonNumber(tune["x"]) != 7 || tune["rhythm"] != "reel" || tune["unit_length"] != "1/8" ||
		obj(tune, "key")["tonic"] != "G" || obj(tune, "key")["mode"] != "major" || jsonNumber(obj(tune, "key")["fifths"]) != 1 ||
		obj(tune, "tempo")["quarter_notes_per_minute"] != float64(120) || obj(tune, "meter")["bar_length"] != "1" {
		t.Errorf("abc_parse header = %v", tune)
	}
	voice := obj(list(tune["voices"])[0])
	bars := list(voice["bars"])
	if len(bars) != 5 || jsonNumber(voice["notes"]) != 35 {
		t.Fatalf("abc_parse: %d bars and %v notes, want 5 and 35: %v", len(bars), voice["notes"], voice)
	}
	first := obj(list(obj(bars[0])["elements"])[0], "note")
	if first["pitch"] != "G" || first["duration"] != "1/8" || obj(bars[0])["repeat_start"] != true ||
		obj(bars[1])["bar_line"] != ":|" || obj(bars[1])["repeat_end"] != true || obj(bars[2])["repeat_start"] != true {
		t.Errorf("abc_parse bars = %v / %v", bars[0], bars[1])
	}
	if got := list(obj(bars[4])["ending"]); len(got) != 1 || jsonNumber(got[0]) != 2 {
		t.Errorf("the last bar's ending = %v, want [2]", obj(bars[4]))
	}
	c.fail("abc_parse", map[string]any{"abc": reel, "x": 3}, "not_found", "X:7 (Test Reel)")
	c.fail("abc_parse", map[string]any{}, "abc", "artifact_id")

	// Convert from an artifact: the MIDI is its child, and midi_info reads it back.
	abcArt := obj(c.call("artifact_create", map[string]any{"content": reel, "mime_type": "text/vnd.abc"}), "artifact")
	conv := c.call("abc_to_midi", map[string]any{"artifact_id": abcArt["id"], "tags": []any{"reel"}})
	midiArt := obj(conv, "artifact")
	if midiArt["mime_type"] != "audio/midi" || !slices.Equal(toStrings(midiArt["parent_ids"]), []string{toString(abcArt["id"])}) ||
		!slices.Equal(toStrings(midiArt["tags"]), []string{"reel"}) || obj(midiArt, "metadata", "midi")["tempo_bpm"] != float64(120) {
		t.Errorf("abc_to_midi artifact = %v", midiArt)
	}
	// Played with its repeats: part A (16 notes) twice, then part B's first bar (7) with the
	// first ending (7) and again with the second (5): 58 notes in 8 bars of 2 s at 120 bpm.
	info := c.call("midi_info", map[string]any{"artifact_id": midiArt["id"]})
	if jsonNumber(info["format"]) != 0 || jsonNumber(info["ticks_per_quarter"]) != 480 || jsonNumber(info["notes"]) != 58 ||
		info["duration_bars"] != float64(8) || info["duration_seconds"] != float64(16) {
		t.Errorf("midi_info = %v", info)
	}
	if jsonNumber(obj(conv, "midi")["notes"]) != jsonNumber(info["notes"]) {
		t.Errorf("abc_to_midi says %v notes, midi_info %v", obj(conv, "midi")["notes"], info["notes"])
	}
	byHash := c.call("midi_info", map[string]any{"hash": midiArt["hash"]})
	if jsonNumber(byHash["notes"]) != jsonNumber(info["notes"]) {
		t.Errorf("midi_info by hash = %v", byHash)
	}
	rr, err := c.s.ReadResource(c.ctx, &mcp.ReadResourceParams{URI: "hoot://artifact/" + toString(midiArt["id"])})
	if err != nil || len(rr.Contents) != 1 || !bytes.HasPrefix(rr.Contents[0].Blob, []byte("MThd")) {
		t.Errorf("resources/read of the MIDI artifact = %+v, %v", rr, err)
	}
	// Rendering options: faster and a tone up.
	fast := c.call("abc_to_midi", map[string]any{"abc": reel, "rendering": map[string]any{"tempo_bpm": 240, "transpose": 2}})
	if m := obj(fast, "midi"); m["duration_seconds"] != float64(8) || jsonNumber(obj(list(m["per_channel"])[0], "notes")["lowest"]) != 68 {
		t.Errorf("abc_to_midi at 240 bpm, +2 = %v", m)
	}
	if len(toStrings(obj(fast, "artifact")["parent_ids"])) != 0 {
		t.Errorf("inline ABC has no artifact to be the parent: %v", obj(fast, "artifact"))
	}
	c.fail("midi_info", map[string]any{"artifact_id": abcArt["id"]}, "not a readable MIDI file", "text/vnd.abc")
	c.fail("abc_to_midi", map[string]any{"artifact_id": midiArt["id"]}, "audio/midi", "not ABC text")

	// Several voices make a format 1 file, with the voices on their own channels and programs.
	duet := "X:1\nT:Duet\nM:2/4\nL:1/8\nK:D\nV:1\n%%MIDI program 40\ndefg|a4|]\nV:2 clef=bass\n%%MIDI program 42\nD,F,A,D|D4|]\n"
	d := obj(c.call("abc_to_midi", map[string]any{"abc": duet}), "midi")
	chans := list(d["per_channel"])
	if jsonNumber(d["format"]) != 1 || jsonNumber(d["tracks"]) != 3 || len(chans) != 2 ||
		jsonNumber(list(obj(chans[0])["programs"])[0]) != 40 || jsonNumber(list(obj(chans[1])["programs"])[0]) != 42 {
		t.Errorf("abc_to_midi(duet) = %v", d)
	}

	// Transpose: by semitones and to a key; with save, the new text is an artifact.
	up := c.call("abc_transpose", map[string]any{"abc": reel, "semitones": 2})
	if !strings.Contains(toString(up["abc"]), "K:A\n|:ABcd ecBA|") || up["from_key"] != "G major" || up["to_key"] != "A major" {
		t.Errorf("abc_transpose +2 = %v", up)
	}
	toD := c.call("abc_transpose", map[string]any{"artifact_id": abcArt["id"], "to_key": "D", "save": true})
	if jsonNumber(toD["semitones"]) != -5 || toD["to_key"] != "D major" ||
		!slices.Equal(toStrings(obj(toD, "artifact")["parent_ids"]), []string{toString(abcArt["id"])}) {
		t.Errorf("abc_transpose to D = %v", toD)
	}
	c.fail("abc_transpose", map[string]any{"abc": reel}, "semitones", "to_key")
	c.fail("abc_transpose", map[string]any{"abc": reel, "to_key": "H#"}, "to_key")

	// A tune book: abc_to_midi asks which tune; abc_book_to_midi converts all as a job.
	book := reel + "\n" + strings.Replace(strings.Replace(duet, "X:1", "X:8", 1), "Duet", "Second", 1) +
		"\nX:9\nT:Broken\nK:C\n"
	c.fail("abc_to_midi", map[string]any{"abc": book}, "3 tunes", "X:7 (Test Reel), X:8 (Second), X:9 (Broken)", "abc_book_to_midi")
	if got := c.call("abc_to_midi", map[string]any{"abc": book, "x": 8}); got["title"] != "Second" {
		t.Errorf("abc_to_midi x=8 = %v", got)
	}
	bookArt := obj(c.call("artifact_create", map[string]any{"content": book, "mime_type": "text/vnd.abc"}), "artifact")
	job := toString(c.call("abc_book_to_midi", map[string]any{"artifact_id": bookArt["id"]})["job_id"])
	done := obj(list(c.call("job_await", map[string]any{"ids": []any{job}, "timeout_ms": 20000})["jobs"])[0])
	res := obj(done, "result", "abc_book_to_midi")
	tunes := list(res["tunes"])
	if done["status"] != "JOB_STATUS_SUCCEEDED" || done["progress"] != float64(3) || done["total"] != float64(3) ||
		jsonNumber(res["converted"]) != 2 || jsonNumber(res["failed"]) != 1 || len(tunes) != 3 {
		t.Fatalf("abc_book_to_midi job = %v", done)
	}
	if !strings.Contains(toString(obj(tunes[2])["error"]), "X:9 has no music") || obj(tunes[2])["artifact_id"] != "" {
		t.Errorf("the broken tune = %v", tunes[2])
	}
	for _, tu := range tunes[:2] {
		a := obj(c.call("artifact_get", map[string]any{"id": obj(tu)["artifact_id"]}), "artifact")
		if a["mime_type"] != "audio/midi" || !slices.Equal(toStrings(a["parent_ids"]), []string{toString(bookArt["id"])}) {
			t.Errorf("book tune artifact = %v", a)
		}
	}

	// The prompt that walks a model through it all.
	pr, err := c.s.GetPrompt(c.ctx, &mcp.GetPromptParams{Name: "compose_abc", Arguments: map[string]string{"idea": "a slow air", "key": "E dorian"}})
	if err != nil || len(pr.Messages) != 1 {
		t.Fatalf("prompts/get compose_abc = %+v, %v", pr, err)
	}
	if tc, ok := pr.Messages[0].Content.(*mcp.TextContent); !ok || !strings.Contains(tc.Text, "a slow air") || !strings.Contains(tc.Text, "E dorian") ||
		!strings.Contains(tc.Text, "abc_validate") || !strings.Contains(tc.Text, "midi_info") {
		t.Errorf("compose_abc message = %+v", pr.Messages[0].Content)
	}
	if _, err := c.s.GetPrompt(c.ctx, &mcp.GetPromptParams{Name: "compose_abc"}); err == nil {
		t.Error("compose_abc without its required idea succeeded")
	}
}
