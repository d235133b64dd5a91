package e2e

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The README's composing session (between <!-- composing-session --> and
// <!-- /composing-session -->): a shell block of holler call commands, and the text the last
// of them prints. TestReadmeComposingSession runs the block as it is written, with the holler
// under test first on PATH and HOLLER_URL naming the test's gateway, so the README cannot drift
// from what holler does.

const (
	sessionStart = "<!-- composing-session -->"
	sessionEnd   = "<!-- /composing-session -->"
)

// readmeSession returns the shell block and the printed text of the README's composing session.
func readmeSession(t *testing.T) (script, printed string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(b), sessionStart)
	section, _, ok2 := strings.Cut(rest, sessionEnd)
	if !ok || !ok2 {
		t.Fatalf("README.md has no section between %s and %s", sessionStart, sessionEnd)
	}
	blocks := regexp.MustCompile("(?s)```(\\w+)\n(.*?)```").FindAllStringSubmatch(section, -1)
	if len(blocks) != 2 || blocks[0][1] != "sh" || blocks[1][1] != "text" {
		t.Fatalf("the composing session should hold a sh block and then a text block; it holds %d blocks", len(blocks))
	}
	return blocks[0][2], blocks[1][2]
}

// artifactID matches an artifact's id, which differs from run to run.
var artifactID = regexp.MustCompile(`art_[0-9a-hjkmnp-tv-z]{26}`)

func TestReadmeComposingSession(t *testing.T) {
	t.Parallel()
	script, printed := readmeSession(t)
	url := startStack(t)
	holler := bin(t, "holler")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(holler)+string(os.PathListSeparator)+os.Getenv("PATH"), "HOLLER_URL="+url, "HOLLER_TOKEN=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("the README's composing session failed: %v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}

	// What it prints is what the README shows, but for the ids (and the blank line that ends
	// holler's output).
	got := strings.TrimRight(stdout.String(), "\n")
	ids := artifactID.FindAllString(got, -1)
	if norm := artifactID.ReplaceAllString(got, "art_…"); norm != artifactID.ReplaceAllString(strings.TrimRight(printed, "\n"), "art_…") {
		t.Errorf("the session printed\n%s\nthe README shows\n%s", got, printed)
	}

	// Under each take hang its tune and the tune's MIDI, made from it.
	if len(ids) != 4 {
		t.Fatalf("the drawing names %d artifacts, want 4: %v", len(ids), ids)
	}
	c := newCaller(t, connectHTTP(t, url))
	for i := 0; i < len(ids); i += 2 {
		abc := obj(c.call("artifact_get", map[string]any{"id": ids[i]}), "artifact")
		midi := obj(c.call("artifact_get", map[string]any{"id": ids[i+1]}), "artifact")
		if toString(abc["mime_type"]) != "text/vnd.abc" || toString(midi["mime_type"]) != "audio/midi" {
			t.Errorf("take %d: the artifacts are %v and %v, want the tune and its MIDI", i/2+1, abc["mime_type"], midi["mime_type"])
		}
		if parents := toStrings(midi["parent_ids"]); len(parents) != 1 || parents[0] != ids[i] {
			t.Errorf("take %d: the MIDI's parents are %v, want the tune %s", i/2+1, parents, ids[i])
		}
	}
}
