package musicservice

import (
	"context"
	"fmt"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

// ComposeAbc is the prompt that walks a model from an idea to an inspected MIDI file.
func (h *Handler) ComposeAbc(_ context.Context, req *hootv1.ComposeAbcPromptRequest) (*hootv1.MusicPromptResult, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Write a tune in ABC notation (standard 2.1): %s.\n", strings.TrimSpace(req.GetIdea()))
	switch k, m := strings.TrimSpace(req.GetKey()), strings.TrimSpace(req.GetMeter()); {
	case k != "" && m != "":
		fmt.Fprintf(&b, "Use the key %s and the meter %s.\n", k, m)
	case k != "":
		fmt.Fprintf(&b, "Use the key %s, and a meter that suits the idea.\n", k)
	case m != "":
		fmt.Fprintf(&b, "Use the meter %s, and a key that suits the idea.\n", m)
	}
	b.WriteString(`
Then make it playable with this server's tools, one step at a time:

1. Write the tune. Start with the header, one field per line: X:1, T: (a title), M: (the
   meter), L: (the unit note length, such as 1/8), Q: (the tempo, such as 1/4=120), and K:
   (the key) last; then the music, a few bars per line, with | between bars and |: :| around
   repeated parts. A reel or a jig has two 8-bar parts, each played twice.
2. Check it: call abc_validate with the text in "abc". If "valid" is false, fix every error
   at the line and column given (the "suggestion" says how) and check again. Also read the
   warnings: a bar whose length does not match the meter is usually a mistake.
3. Convert it: call abc_to_midi with the same text in "abc". It stores the MIDI file and
   returns its artifact; rendering.tempo_bpm or rendering.transpose change how it plays.
4. Inspect it: call midi_info with the artifact's "id" as "artifact_id", and confirm that the
   duration, the number of bars, the tempo and the note range are what you meant. If not,
   change the ABC and go back to step 2.

Finish with the ABC text, the MIDI artifact's id and one sentence on how the tune sounds.`)
	return &hootv1.MusicPromptResult{Messages: []*hootv1.PromptMessage{{
		Role:    hootv1.Role_ROLE_USER,
		Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: b.String()}},
	}}}, nil
}
