package casservice

import (
	"context"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hooteproto"
)

func TestCasObjectResource(t *testing.T) {
	t.Parallel()
	h, _ := newHandler(t, nil)
	ctx := context.Background()
	store := func(r *hootv1.CasStoreRequest) string {
		t.Helper()
		res, err := h.CasStore(ctx, r)
		if err != nil {
			t.Fatal(err)
		}
		return res.GetHash()
	}
	text := store(&hootv1.CasStoreRequest{Data: &hootv1.CasStoreRequest_Content{Content: "X:1\nK:C\nCDEF|"}, MimeType: "text/vnd.abc"})
	binary := store(&hootv1.CasStoreRequest{Data: &hootv1.CasStoreRequest_ContentBase64{ContentBase64: []byte{0xff, 0, 1}}, MimeType: "audio/midi"})
	big := store(&hootv1.CasStoreRequest{Data: &hootv1.CasStoreRequest_Content{Content: strings.Repeat("a", MaxPartLength+1)}})

	res, err := h.CasObject(ctx, &hootv1.CasObjectResourceRequest{Hash: text})
	if c := res.GetContents()[0]; err != nil || c.GetText() != "X:1\nK:C\nCDEF|" || c.GetMimeType() != "text/vnd.abc" || c.GetUri() != "hoot://cas/"+text {
		t.Fatalf("text object = %v, %v", res, err)
	}
	res, err = h.CasObject(ctx, &hootv1.CasObjectResourceRequest{Hash: binary})
	if c := res.GetContents()[0]; err != nil || string(c.GetBlob()) != "\xff\x00\x01" || c.GetMimeType() != "audio/midi" {
		t.Fatalf("binary object = %v, %v", res, err)
	}
	if _, err := h.CasObject(ctx, &hootv1.CasObjectResourceRequest{Hash: big}); hooteproto.AsError(err).Code() != hooteproto.CodeInvalidArgument {
		t.Fatalf("a big object: err = %v, want invalid argument", err)
	}
	if _, err := h.CasObject(ctx, &hootv1.CasObjectResourceRequest{Hash: strings.Repeat("0", 64)}); hooteproto.AsError(err).Code() != hooteproto.CodeNotFound {
		t.Fatalf("a missing object: err = %v, want not found", err)
	}
}
