package conformance

import (
	"bytes"
	"context"
	"image/png"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hooteproto"
)

func TestFixtures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	h := Handler{}

	res, err := h.TestSimpleText(ctx, nil)
	if err != nil || res.GetContent()[0].GetText() != simpleText {
		t.Fatalf("TestSimpleText = %v, %v", res, err)
	}
	img, err := h.TestImageContent(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.Decode(bytes.NewReader(img.GetContent()[0].GetImage().GetData())); err != nil {
		t.Fatalf("the image is not a PNG: %v", err)
	}
	audio, err := h.TestAudioContent(ctx, nil)
	if wav := audio.GetContent()[0].GetAudio().GetData(); err != nil || !bytes.HasPrefix(wav, []byte("RIFF")) || string(wav[8:12]) != "WAVE" {
		t.Fatalf("the audio is not a WAV file: %v", err)
	}
	if _, err := h.TestErrorHandling(ctx, nil); hooteproto.AsError(err).Message() != errorText {
		t.Fatalf("TestErrorHandling error = %v", err)
	}
	p, err := h.TestPromptWithArguments(ctx, &hootv1.ConformancePromptWithArgumentsRequest{Arg1: "hello", Arg2: "world"})
	if err != nil || p.GetMessages()[0].GetContent().GetText() != "Prompt with arguments: arg1='hello', arg2='world'" {
		t.Fatalf("TestPromptWithArguments = %v, %v", p, err)
	}
	r, err := h.TemplateData(ctx, &hootv1.ConformanceTemplateDataRequest{Id: "123"})
	if c := r.GetContents()[0]; err != nil || c.GetUri() != "test://template/123/data" || c.GetText() != `{"id":"123","templateTest":true,"data":"Data for ID: 123"}` {
		t.Fatalf("TemplateData = %v, %v", r, err)
	}
	// Outside a request there is no client to ask.
	if _, err := h.TestSampling(ctx, &hootv1.ConformanceSamplingRequest{Prompt: "hi"}); hooteproto.AsError(err).Code() != hooteproto.CodeUnavailable {
		t.Fatalf("TestSampling outside a request = %v, want unavailable", err)
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	got := describe(&hootv1.ElicitationResult{
		Action: hootv1.ElicitationAction_ELICITATION_ACTION_ACCEPT,
		Content: map[string]*hootv1.FormValue{
			"name": {Value: &hootv1.FormValue_Text{Text: "Ann"}},
			"age":  {Value: &hootv1.FormValue_Number{Number: 30}},
		},
	})
	if want := `action=accept, content={age: 30, name: "Ann"}`; got != want {
		t.Fatalf("describe = %s, want %s", got, want)
	}
}
