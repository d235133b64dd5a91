package musicservice

import (
	"context"
	"io"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hootenanny/internal/artifacts"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

func TestAbcToMusicxml(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	ctx := context.Background()
	tune := "X:3\nT:Waltz\nM:3/4\nL:1/4\nK:G\n|:\"G\"GBd|\"C\"ce c|1\"D7\"dAF:|2\"G\"G3|]\nw:one two three four five six\n"
	src, err := h.storeArtifact(ctx, []byte(tune), artifacts.New{MimeType: ABCMediaType, Creator: "test"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.AbcToMusicxml(ctx, &hootv1.AbcToMusicxmlRequest{
		Source: &hootv1.AbcToMusicxmlRequest_ArtifactId{ArtifactId: src.GetId()}, Tags: []string{"score"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetX() != 3 || res.GetTitle() != "Waltz" || res.GetParts() != 1 || res.GetMeasures() != 4 || res.GetBytes() == 0 {
		t.Errorf("result = %v", res)
	}
	a, err := h.cfg.Artifacts.Get(ctx, res.GetArtifact().GetId())
	if err != nil {
		t.Fatal(err)
	}
	if a.MimeType != "application/vnd.recordare.musicxml+xml" || len(a.ParentIDs) != 1 || a.ParentIDs[0] != src.GetId() ||
		a.Creator != "abc_to_musicxml" || len(a.Tags) != 1 || a.Tags[0] != "score" || a.Size != int64(res.GetBytes()) {
		t.Errorf("artifact = %+v", a)
	}
	hash, err := cas.ParseHash(a.Hash)
	if err != nil {
		t.Fatal(err)
	}
	f, _, err := h.cfg.CAS.Open(ctx, hash)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<score-partwise version="4.0">`, "<work-title>Waltz</work-title>", "<kind text=\"7\">dominant</kind>",
		`<ending number="2" type="start">`, "<text>six</text>"} {
		if !strings.Contains(string(doc), want) {
			t.Errorf("the stored score lacks %s", want)
		}
	}
}

func TestAbcToMusicxmlErrors(t *testing.T) {
	t.Parallel()
	h := newHandler(t)
	ctx := context.Background()
	book := "X:1\nT:One\nK:C\nCDEF|\n\nX:2\nT:Two\nK:C\nGABc|\n"
	_, err := h.AbcToMusicxml(ctx, &hootv1.AbcToMusicxmlRequest{Source: &hootv1.AbcToMusicxmlRequest_Abc{Abc: book}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "x", "X:1 (One), X:2 (Two)")
	res, err := h.AbcToMusicxml(ctx, &hootv1.AbcToMusicxmlRequest{Source: &hootv1.AbcToMusicxmlRequest_Abc{Abc: book}, X: 2})
	if err != nil || res.GetTitle() != "Two" || len(res.GetArtifact().GetParentIds()) != 0 {
		t.Errorf("X:2 = %v, %v", res, err)
	}
	_, err = h.AbcToMusicxml(ctx, &hootv1.AbcToMusicxmlRequest{Source: &hootv1.AbcToMusicxmlRequest_Abc{Abc: "X:1\nT:Empty\nK:C\n"}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "abc", "no notes or rests")
	_, err = h.AbcToMusicxml(ctx, &hootv1.AbcToMusicxmlRequest{Source: &hootv1.AbcToMusicxmlRequest_Abc{Abc: "X:1\nL:1/4\nK:C\nA/1009 B/1013 c/1019|\n"}})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "abc", "divisions")
	_, err = h.AbcToMusicxml(ctx, &hootv1.AbcToMusicxmlRequest{})
	servicetest.WantError(t, err, hooteproto.CodeInvalidArgument, "abc", "needs ABC notation")
}
