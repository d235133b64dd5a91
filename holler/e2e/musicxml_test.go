package e2e

import (
	"slices"
	"testing"
)

// TestAbcToMusicxmlOverHTTP converts the reel, stored as an artifact, to MusicXML through the
// gateway: the score is the ABC's child with MusicXML's media type, and the result counts its bars.
func TestAbcToMusicxmlOverHTTP(t *testing.T) {
	t.Parallel()
	c := newCaller(t, connectHTTP(t, startStack(t)))
	abcArt := obj(c.call("artifact_create", map[string]any{"content": reel, "mime_type": "text/vnd.abc"}), "artifact")
	res := c.call("abc_to_musicxml", map[string]any{"artifact_id": abcArt["id"], "tags": []any{"score"}})
	art := obj(res, "artifact")
	if art["mime_type"] != "application/vnd.recordare.musicxml+xml" ||
		!slices.Equal(toStrings(art["parent_ids"]), []string{toString(abcArt["id"])}) {
		t.Errorf("artifact = %v", art)
	}
	// |:GABc dBAG|FGAB cAFA:| and |:d2fd edcB|1 ABcd e2dc:|2 ABcA G4|]: five bars.
	if res["title"] != "Test Reel" || jsonNumber(res["x"]) != 7 || jsonNumber(res["parts"]) != 1 || jsonNumber(res["measures"]) != 5 {
		t.Errorf("abc_to_musicxml = %v", res)
	}
	c.fail("abc_to_musicxml", map[string]any{"abc": "X:1\nT:Empty\nK:C\n"}, "no notes or rests")
}
