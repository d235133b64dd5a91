package e2e

import (
	"bytes"
	"image/png"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// imageBlock calls a tool that must succeed and returns its structured result and the PNG of
// its image block.
func imageBlock(c *caller, name string, args map[string]any) (map[string]any, []byte) {
	c.t.Helper()
	res, err := c.s.CallTool(c.ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil || res.IsError {
		c.t.Fatalf("%s %v: %v %s", name, args, err, text(res))
	}
	for _, b := range res.Content {
		if img, ok := b.(*mcp.ImageContent); ok && img.MIMEType == "image/png" {
			return obj(res.StructuredContent), img.Data
		}
	}
	c.t.Fatalf("%s: no image/png block in %v", name, res.Content)
	return nil, nil
}

func TestScoreToolsOverHTTP(t *testing.T) {
	t.Parallel()
	c := newCaller(t, connectHTTP(t, startStack(t)))

	// The reel as stored ABC, then as MIDI: both images are children of their input.
	stored := c.call("artifact_create", map[string]any{"content": reel, "mime_type": "text/vnd.abc"})
	abcID := toString(obj(stored, "artifact")["id"])
	m := c.call("abc_to_midi", map[string]any{"artifact_id": abcID})
	midiID := toString(obj(m, "artifact")["id"])

	roll, data := imageBlock(c, "midi_piano_roll", map[string]any{"artifact_id": midiID, "width": 800, "height": 300})
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil || img.Bounds().Dx() != 800 || img.Bounds().Dy() != 300 {
		t.Fatalf("midi_piano_roll PNG: %v, %v", err, img)
	}
	a := obj(roll, "artifact")
	if a["mime_type"] != "image/png" || len(list(a["parent_ids"])) != 1 || list(a["parent_ids"])[0] != midiID {
		t.Errorf("midi_piano_roll artifact = %v, want image/png under %s", a, midiID)
	}
	if jsonNumber(roll["notes_drawn"]) == 0 || jsonNumber(roll["notes_drawn"]) != jsonNumber(roll["notes_total"]) {
		t.Errorf("midi_piano_roll = %v", roll)
	}

	score, data := imageBlock(c, "abc_render", map[string]any{"artifact_id": abcID, "width": 700})
	if cfg, err := png.DecodeConfig(bytes.NewReader(data)); err != nil || cfg.Width != 700 {
		t.Fatalf("abc_render PNG: %v, %v", err, cfg)
	}
	// Two lines of music, one for each part.
	if jsonNumber(score["systems"]) != 2 || jsonNumber(score["x"]) != 7 {
		t.Errorf("abc_render = %v, want X:7 in 2 systems", score)
	}
	for _, k := range []string{"svg", "png"} {
		if p := list(obj(score, k)["parent_ids"]); len(p) != 1 || p[0] != abcID {
			t.Errorf("abc_render %s artifact = %v, want it under %s", k, obj(score, k), abcID)
		}
	}

	// Errors teach: a size out of range names the field.
	c.fail("midi_piano_roll", map[string]any{"artifact_id": midiID, "width": 50}, "width")
}
