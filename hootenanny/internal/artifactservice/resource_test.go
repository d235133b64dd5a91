package artifactservice

import (
	"context"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/database"
	"github.com/hootenanny/hoot/hootenanny/internal/servicetest"
	"github.com/hootenanny/hoot/hooteproto"
)

func TestArtifactContentResource(t *testing.T) {
	servicetest.EachEngine(t, testArtifactContentResource)
}

func testArtifactContentResource(t *testing.T, engine database.Engine) {
	h := newHandler(t, engine)
	ctx := context.Background()
	midi := create(t, h, &hootv1.ArtifactCreateRequest{
		Source:   &hootv1.ArtifactCreateRequest_ContentBase64{ContentBase64: []byte("MThd")},
		MimeType: "audio/midi",
	})
	abc := create(t, h, &hootv1.ArtifactCreateRequest{
		Source:   &hootv1.ArtifactCreateRequest_ContentBase64{ContentBase64: []byte("X:1\nK:C\nC|")},
		MimeType: "text/vnd.abc",
	})

	res, err := h.ArtifactContent(ctx, &hootv1.ArtifactContentResourceRequest{Id: midi.GetId()})
	if c := res.GetContents()[0]; err != nil || string(c.GetBlob()) != "MThd" || c.GetMimeType() != "audio/midi" || c.GetUri() != "hoot://artifact/"+midi.GetId() {
		t.Fatalf("midi = %v, %v", res, err)
	}
	res, err = h.ArtifactContent(ctx, &hootv1.ArtifactContentResourceRequest{Id: abc.GetId()})
	if c := res.GetContents()[0]; err != nil || c.GetText() != "X:1\nK:C\nC|" {
		t.Fatalf("abc = %v, %v", res, err)
	}
	if _, err := h.ArtifactContent(ctx, &hootv1.ArtifactContentResourceRequest{Id: "art_00000000000000000000000000"}); hooteproto.AsError(err).Code() != hooteproto.CodeNotFound {
		t.Fatalf("a missing artifact: err = %v, want not found", err)
	}
}
