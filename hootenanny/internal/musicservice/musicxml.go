package musicservice

import (
	"context"
	"errors"
	"fmt"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/musicxml"
	"github.com/hootenanny/hoot/hooteproto"
)

// MusicXMLMediaType is the media type of the MusicXML scores the tools store.
const MusicXMLMediaType = musicxml.MediaType

// AbcToMusicxml converts one tune to a MusicXML score and stores it as an artifact.
func (h *Handler) AbcToMusicxml(ctx context.Context, req *hootv1.AbcToMusicxmlRequest) (*hootv1.AbcToMusicxmlResult, error) {
	src, err := h.loadABC(ctx, "abc_to_musicxml", req)
	if err != nil {
		return nil, err
	}
	book, diags := parse(src.text)
	if book.Truncated {
		return nil, truncated(src.field, diags)
	}
	if len(book.Tunes) > 1 && req.GetX() == 0 {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("the ABC is a tune book of %d tunes (%s); say which one to convert", len(book.Tunes), tuneList(book))).
			WithField("x").
			WithHint("pass its X: number in x; a score holds one tune")
	}
	t, err := pickTune(book, req.GetX(), src.field)
	if err != nil {
		return nil, err
	}
	score, err := musicxml.Convert(t)
	if err != nil {
		why := strings.TrimPrefix(err.Error(), "musicxml: ")
		e := hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf("tune X:%d cannot be written as MusicXML: %s", t.Header.X, why)).
			WithField(src.field).
			WithHint("check the tune with abc_validate and fix what it reports")
		switch {
		case errors.Is(err, musicxml.ErrNoMusic):
			e.WithHint("write the notes on the lines after the K: line")
		case strings.Contains(why, "divisions"):
			e.WithHint("write the lengths as halves, quarters, eighths and so on, and tuplets with (3, (5 and the like")
		case strings.Contains(why, "bars"), strings.Contains(why, "bytes"):
			e.WithHint("shorten the tune: long rests (Z) count each of their bars; convert it in sections")
		}
		return nil, e
	}
	n := artifacts.New{MimeType: MusicXMLMediaType, Tags: req.GetTags(), Creator: "abc_to_musicxml"}
	if src.parent != "" {
		n.ParentIDs = []string{src.parent}
	}
	a, err := h.storeArtifact(ctx, score.Doc, n)
	if err != nil {
		return nil, err
	}
	return &hootv1.AbcToMusicxmlResult{
		Artifact:    a,
		X:           uint32(t.Header.X),
		Title:       title(t),
		Parts:       uint32(score.Parts),
		Measures:    uint32(score.Measures),
		Bytes:       uint64(len(score.Doc)),
		Diagnostics: diagnostics(tuneDiagnostics(src.text, t, diags)),
	}, nil
}
