package musicservice

import (
	"context"
	"fmt"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/abc"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hooteproto"
)

// AbcTranspose moves the text by semitones or to a key, and with save stores the result.
func (h *Handler) AbcTranspose(ctx context.Context, req *hootv1.AbcTransposeRequest) (*hootv1.AbcTransposeResult, error) {
	src, err := h.loadABC(ctx, "abc_transpose", req)
	if err != nil {
		return nil, err
	}
	var (
		out  string
		terr error
	)
	// A text the parser does not read whole is refused before the target is looked at.
	before, diags := abc.Parse(src.text, abc.Options{})
	if before.Truncated {
		return nil, truncated(src.field, diags)
	}
	if len(before.Tunes) == 0 {
		return nil, noTune(src.field)
	}
	switch target := req.GetTarget().(type) {
	case *hootv1.AbcTransposeRequest_Semitones:
		out, terr = abc.Transpose(src.text, int(target.Semitones))
		if terr != nil {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, strings.TrimPrefix(terr.Error(), "abc: ")).WithField("semitones").
				WithHint(fmt.Sprintf("move by at most %d semitones either way", abc.MaxSemitones))
		}
	case *hootv1.AbcTransposeRequest_ToKey:
		out, terr = abc.TransposeToKey(src.text, target.ToKey)
		if terr != nil {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, strings.TrimPrefix(terr.Error(), "abc: ")).WithField("to_key").
				WithHint(`name the key by its tonic and, if you like, its mode: "G", "Bb", "F#m", "A dorian"`)
		}
	default:
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "abc_transpose needs a target: semitones or to_key").
			WithField("semitones").
			WithHint(`pass "semitones": 2 to move up a whole tone, or "to_key": "D" to move to D`)
	}
	after, _ := abc.Parse(out, abc.Options{})
	res := &hootv1.AbcTransposeResult{Abc: out, Semitones: req.GetSemitones()}
	from := before.Tunes[0].Header.Key
	res.FromKey = keyName(from)
	if len(after.Tunes) > 0 {
		res.ToKey = keyName(after.Tunes[0].Header.Key)
	}
	if target, ok := req.GetTarget().(*hootv1.AbcTransposeRequest_ToKey); ok {
		// TransposeToKey took the key already, so it parses.
		k, _ := abc.ParseKey(target.ToKey)
		res.Semitones = int32(abc.ShiftToTonic(from, k))
	}
	if req.GetSave() {
		n := artifacts.New{MimeType: ABCMediaType, Tags: req.GetTags(), Creator: "abc_transpose"}
		if src.parent != "" {
			n.ParentIDs = []string{src.parent}
		}
		a, err := h.storeArtifact(ctx, []byte(out), n)
		if err != nil {
			return nil, err
		}
		res.Artifact = a
	}
	return res, nil
}

// keyName writes a key as "G major" or "F# dorian"; "none" for K:none.
func keyName(k abc.Key) string {
	pk := key(k)
	switch {
	case k.None:
		return "none"
	case k.Highland:
		return "HP"
	case pk.Tonic == "":
		return "C major"
	}
	return pk.Tonic + " " + pk.Mode
}
