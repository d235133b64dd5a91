package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestAbcToMusicxmlOverHTTP converts the reel, stored as an artifact, to MusicXML through the
// gateway: the score is the ABC's child with MusicXML's media type, and the result counts its bars.
// The document, fetched from the artifact's content route, opens in Verovio with the reel's notes.
func TestAbcToMusicxmlOverHTTP(t *testing.T) {
	t.Parallel()
	endpoint := startStack(t)
	c := newCaller(t, connectHTTP(t, endpoint))
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

	rsp, err := http.Get(strings.TrimSuffix(endpoint, "/mcp") + "/artifacts/" + toString(art["id"]) + "/content")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := io.ReadAll(io.LimitReader(rsp.Body, 1<<20))
	rsp.Body.Close()
	if err != nil || rsp.StatusCode != http.StatusOK {
		t.Fatalf("GET the score's content = %d, %v", rsp.StatusCode, err)
	}
	t.Run("verovio", func(t *testing.T) { verovioReadsReel(t, doc) })
}

// verovioReadsReel opens the reel's MusicXML in Verovio (tools/verovio.mjs), a notation engine,
// and checks that it loads without a message, is engraved, and reads the reel's notes: the keys
// and onsets (in quarter notes, repeats not played out) below are the ABC's, by hand.
func verovioReadsReel(t *testing.T, doc []byte) {
	root := repoRoot(t)
	node := filepath.Join(root, "node_modules", "node", "bin", "node")
	for _, p := range []string{node, filepath.Join(root, "node_modules", "verovio", "package.json")} {
		if _, err := os.Stat(p); err != nil {
			t.Skipf("cannot open MusicXML in Verovio: %s is not installed: run npm ci --no-audit --no-fund (.ci/run does)", p)
		}
	}
	file := filepath.Join(t.TempDir(), "reel.musicxml")
	if err := os.WriteFile(file, doc, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "tools", "verovio.mjs"), file)
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tools/verovio.mjs: %v\n%s", err, stderr.String())
	}
	var res struct {
		Files []struct {
			Loaded   bool     `json:"loaded"`
			Log      []string `json:"log"`
			Pages    int      `json:"pages"`
			SVGNotes int      `json:"svgNotes"`
			Notes    []struct {
				Pitch int     `json:"pitch"`
				Onset float64 `json:"onset"`
			} `json:"notes"`
		} `json:"files"`
	}
	if err := json.Unmarshal(out, &res); err != nil || len(res.Files) != 1 {
		t.Fatalf("tools/verovio.mjs printed %.300s: %v", out, err)
	}
	f := res.Files[0]
	if !f.Loaded || len(f.Log) != 0 || f.Pages < 1 {
		t.Fatalf("Verovio: loaded %v, %d pages, said %q", f.Loaded, f.Pages, f.Log)
	}
	// K:G, L:1/8: G A B c d e f# are keys 67 69 71 72 74 76 78, an eighth is half a quarter.
	wantKeys := []int{
		67, 69, 71, 72, 74, 71, 69, 67, // GABc dBAG
		66, 67, 69, 71, 72, 69, 66, 69, // FGAB cAFA
		74, 78, 74, 76, 74, 72, 71, // d2fd edcB
		69, 71, 72, 74, 76, 74, 72, // ABcd e2dc
		69, 71, 72, 69, 67, // ABcA G4
	}
	var wantOnsets []float64
	for i := range 16 {
		wantOnsets = append(wantOnsets, float64(i)/2)
	}
	wantOnsets = append(wantOnsets, 8, 9, 9.5, 10, 10.5, 11, 11.5, 12, 12.5, 13, 13.5, 14, 15, 15.5, 16, 16.5, 17, 17.5, 18)
	var keys []int
	var onsets []float64
	for _, n := range f.Notes {
		keys = append(keys, n.Pitch)
		onsets = append(onsets, n.Onset)
	}
	if !slices.Equal(keys, wantKeys) || !slices.Equal(onsets, wantOnsets) || f.SVGNotes != len(wantKeys) {
		t.Errorf("Verovio read keys %v\n at %v\n and drew %d notes; want keys %v\n at %v", keys, onsets, f.SVGNotes, wantKeys, wantOnsets)
	}
}
