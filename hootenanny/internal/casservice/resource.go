package casservice

import (
	"context"
	"fmt"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/cas"
	"github.com/hootenanny/hoot/hooteproto"
)

// CasObject serves the resource hoot://cas/{hash}: the whole content of an object of at most
// [MaxPartLength] bytes, as text when it is text and as a blob otherwise.
func (h *Handler) CasObject(ctx context.Context, req *hootv1.CasObjectResourceRequest) (*hootv1.CasObjectResourceResult, error) {
	hash, herr := parseHash(req.GetHash())
	if herr != nil {
		return nil, herr
	}
	part, obj, err := h.store.ReadRange(ctx, hash, 0, MaxPartLength+1)
	if err != nil {
		return nil, h.readError(hash, "reading the object", err)
	}
	if obj.Size > MaxPartLength {
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument,
			fmt.Sprintf("object %s is %s, more than the %s that one resource read returns", hash, cas.FormatSize(obj.Size), cas.FormatSize(MaxPartLength))).
			WithHint("read it in parts with cas_get, with offset and length")
	}
	r := &hootv1.EmbeddedResource{Uri: "hoot://cas/" + hash.String(), MimeType: obj.MimeType}
	if text, ok := textOf(part, obj.MimeType, false); ok && len(text) == len(part) {
		r.Contents = &hootv1.EmbeddedResource_Text{Text: text}
	} else {
		r.Contents = &hootv1.EmbeddedResource_Blob{Blob: part}
	}
	return &hootv1.CasObjectResourceResult{Contents: []*hootv1.EmbeddedResource{r}}, nil
}
