package artifactservice

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hooteproto"
)

// maxResourceBytes is the largest artifact content that one resource read returns.
const maxResourceBytes = 1 << 20

// ArtifactContent serves the resource hoot://artifact/{id}: the artifact's whole content, as
// text when its media type is textual and the bytes are UTF-8, and as a blob otherwise.
func (h *Handler) ArtifactContent(ctx context.Context, req *hootv1.ArtifactContentResourceRequest) (*hootv1.ArtifactContentResourceResult, error) {
	a, err := h.cfg.Artifacts.Get(ctx, req.GetId())
	if err != nil {
		return nil, h.storeError("reading the artifact", err, "id")
	}
	if a.Size > maxResourceBytes {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("artifact %s is %s, more than the %s that one resource read returns", a.ID, cas.FormatSize(a.Size), cas.FormatSize(maxResourceBytes))).
			WithHint("read its content in parts with cas_get, hash " + a.Hash)
	}
	hash, err := cas.ParseHash(a.Hash)
	if err != nil {
		return nil, h.internal("reading the artifact's hash", err)
	}
	data, _, err := h.cfg.CAS.ReadRange(ctx, hash, 0, maxResourceBytes)
	if err != nil {
		return nil, h.internal("reading the artifact's content", err)
	}
	r := &hootv1.EmbeddedResource{Uri: "hoot://artifact/" + a.ID, MimeType: a.MimeType}
	if textual(a.MimeType) && utf8.Valid(data) {
		r.Contents = &hootv1.EmbeddedResource_Text{Text: string(data)}
	} else {
		r.Contents = &hootv1.EmbeddedResource_Blob{Blob: data}
	}
	return &hootv1.ArtifactContentResourceResult{Contents: []*hootv1.EmbeddedResource{r}}, nil
}

// textual reports whether content of media type mt is text: text/*, JSON, XML, or no type.
func textual(mt string) bool {
	mt, _, _ = strings.Cut(strings.ToLower(mt), ";")
	mt = strings.TrimSpace(mt)
	return mt == "" || strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "json") || strings.HasSuffix(mt, "xml")
}
