package content

import (
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
)

func TestOf(t *testing.T) {
	t.Parallel()
	text := "score"
	r := &hootv1.MidiRenderResult{Content: []*hootv1.Content{
		{Block: &hootv1.Content_Text{Text: "Rendered 3 s"}},
		{},
		{Block: &hootv1.Content_Image{Image: &hootv1.Media{MimeType: "image/png", Data: []byte{1, 2}}}},
		{Block: &hootv1.Content_ResourceLink{ResourceLink: &hootv1.ResourceLink{Uri: "hoot://a"}}},
		{Block: &hootv1.Content_Resource{Resource: &hootv1.EmbeddedResource{Uri: "hoot://b", Contents: &hootv1.EmbeddedResource_Text{Text: text}}}},
		{Block: &hootv1.Content_Resource{Resource: &hootv1.EmbeddedResource{Uri: "hoot://c", Contents: &hootv1.EmbeddedResource_Blob{Blob: []byte("hi")}}}},
	}}
	got := Of(r)
	if len(got) != 5 {
		t.Fatalf("%d blocks, want 5 (an empty Content renders as nothing): %+v", len(got), got)
	}
	if got[0].Type != "text" || *got[0].Text != "Rendered 3 s" {
		t.Errorf("text block %+v", got[0])
	}
	if got[1].Type != "image" || got[1].MimeType != "image/png" || got[1].Data != "AQI=" {
		t.Errorf("image block %+v", got[1])
	}
	if got[2].Type != "resource_link" || got[2].URI != "hoot://a" || got[2].Name != "hoot://a" {
		t.Errorf("a link without a name is named by its URI: %+v", got[2])
	}
	if got[3].Type != "resource" || got[3].Resource.URI != "hoot://b" || *got[3].Resource.Text != text || got[3].Resource.Blob != nil {
		t.Errorf("text resource %+v", got[3].Resource)
	}
	if got[4].Resource.Blob == nil || *got[4].Resource.Blob != "aGk=" || got[4].Resource.Text != nil {
		t.Errorf("blob resource %+v", got[4].Resource)
	}
	if got := Of(&hootv1.EchoResult{Message: "x"}); got != nil {
		t.Errorf("a result without content gave %+v", got)
	}
}

func TestNested(t *testing.T) {
	t.Parallel()
	wav := []byte("RIFF....WAVE")
	rendered := &hootv1.MidiRenderResult{Content: []*hootv1.Content{
		{Block: &hootv1.Content_Text{Text: "Rendered 3 s"}},
		{Block: &hootv1.Content_Audio{Audio: &hootv1.Media{MimeType: "audio/wav", Data: wav}}},
	}}
	job := func(r *hootv1.MidiRenderResult) *hootv1.Job {
		return &hootv1.Job{Id: "job_1", Result: &hootv1.Result{Result: &hootv1.Result_MidiRender{MidiRender: r}}}
	}
	// A finished job's content, inside job_await's answer, is the call's content too.
	got := Nested(&hootv1.JobAwaitResult{Jobs: []*hootv1.Job{job(rendered)}})
	if len(got) != 2 || got[0].Type != "text" || got[1].Type != "audio" || got[1].MimeType != "audio/wav" || got[1].Data != "UklGRi4uLi5XQVZF" {
		t.Fatalf("nested blocks %+v", got)
	}
	// Top-level content is Of's, not repeated.
	if n := len(Nested(rendered)); n != 0 {
		t.Fatalf("a result's own content came back %d times as nested", n)
	}
	// Bounded in number and in media bytes.
	big := &hootv1.MidiRenderResult{Content: []*hootv1.Content{{Block: &hootv1.Content_Audio{Audio: &hootv1.Media{MimeType: "audio/wav", Data: make([]byte, 3<<20)}}}}}
	if n := len(Nested(&hootv1.JobAwaitResult{Jobs: []*hootv1.Job{job(big), job(big)}})); n != 1 {
		t.Fatalf("two 3 MiB clips gave %d blocks, want 1 under the %d-byte bound", n, MaxNestedMediaSize)
	}
	var many []*hootv1.Job
	for range 10 {
		many = append(many, job(rendered))
	}
	if n := len(Nested(&hootv1.JobAwaitResult{Jobs: many})); n != MaxNestedBlocks {
		t.Fatalf("ten jobs gave %d blocks, want %d", n, MaxNestedBlocks)
	}
}
