// Package conformance serves the "conformance" service: fixture tools with the names and
// answers that the official MCP conformance suite expects. A worker serves it only when
// started with --conformance; it exists so that the suite can run through the real gateway and
// the real wire.
package conformance

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	"image"
	"image/color"
	"image/png"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
)

// The texts the suite looks for.
const (
	simpleText       = "This is a simple text response for testing."
	embeddedText     = "This is an embedded resource content."
	errorText        = "This tool intentionally returns an error for testing"
	mixedText        = "Multiple content types test:"
	mixedResourceURI = "test://mixed-content-resource"
	mixedResource    = `{"test":"data","value":123}`
)

// A Handler serves the conformance fixtures. Its zero value is ready to use, but for the
// fixtures that change the lists, which need the worker's Offer (see [Services]).
type Handler struct {
	// offer is the worker's Offer, through which the list-change fixtures withdraw and offer
	// the dynamic services (listchange.go).
	offer *hooteproto.Offer
}

var _ conformancev1hoot.ConformanceHandler = Handler{}

// New returns the conformance service without the list-change fixtures' switch.
func New() hootv1hoot.Service { return conformancev1hoot.NewConformanceService(Handler{}) }

func blocks(c ...*hootv1.Content) *conformancev1.ConformanceContentResult {
	return &conformancev1.ConformanceContentResult{Content: c}
}

func text(s string) *hootv1.Content {
	return &hootv1.Content{Block: &hootv1.Content_Text{Text: s}}
}

func imageBlock() *hootv1.Content {
	return &hootv1.Content{Block: &hootv1.Content_Image{Image: &hootv1.Media{MimeType: "image/png", Data: redPixelPNG()}}}
}

func embedded(uri, mimeType, s string) *hootv1.Content {
	return &hootv1.Content{Block: &hootv1.Content_Resource{Resource: &hootv1.EmbeddedResource{
		Uri: uri, MimeType: mimeType, Contents: &hootv1.EmbeddedResource_Text{Text: s},
	}}}
}

// TestSimpleText answers with one text block.
func (Handler) TestSimpleText(context.Context, *conformancev1.ConformanceSimpleTextRequest) (*conformancev1.ConformanceContentResult, error) {
	return blocks(text(simpleText)), nil
}

// TestImageContent answers with a 1x1 red PNG.
func (Handler) TestImageContent(context.Context, *conformancev1.ConformanceImageContentRequest) (*conformancev1.ConformanceContentResult, error) {
	return blocks(imageBlock()), nil
}

// TestAudioContent answers with a short silent WAV.
func (Handler) TestAudioContent(context.Context, *conformancev1.ConformanceAudioContentRequest) (*conformancev1.ConformanceContentResult, error) {
	return blocks(&hootv1.Content{Block: &hootv1.Content_Audio{Audio: &hootv1.Media{MimeType: "audio/wav", Data: silentWAV()}}}), nil
}

// TestEmbeddedResource answers with an embedded text resource.
func (Handler) TestEmbeddedResource(context.Context, *conformancev1.ConformanceEmbeddedResourceRequest) (*conformancev1.ConformanceContentResult, error) {
	return blocks(embedded("test://embedded-resource", "text/plain", embeddedText)), nil
}

// TestMultipleContentTypes answers with text, an image and an embedded JSON resource.
func (Handler) TestMultipleContentTypes(context.Context, *conformancev1.ConformanceMultipleContentTypesRequest) (*conformancev1.ConformanceContentResult, error) {
	return blocks(text(mixedText), imageBlock(), embedded(mixedResourceURI, "application/json", mixedResource)), nil
}

// TestErrorHandling always fails.
func (Handler) TestErrorHandling(context.Context, *conformancev1.ConformanceErrorHandlingRequest) (*conformancev1.ConformanceContentResult, error) {
	return nil, hooteproto.NewError(hooteproto.CodeInternal, errorText)
}

// TestToolWithProgress reports 0, 50 and 100 of 100, about 50 ms apart.
func (Handler) TestToolWithProgress(ctx context.Context, _ *conformancev1.ConformanceToolWithProgressRequest) (*conformancev1.ConformanceContentResult, error) {
	for i, p := range []float64{0, 50, 100} {
		if i > 0 {
			select {
			case <-ctx.Done():
				return nil, hooteproto.AsError(ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
		hooteproto.ReportProgress(ctx, p, 100, "")
	}
	return blocks(text("Progress test completed.")), nil
}

// redPixelPNG encodes a 1x1 red image as PNG.
func redPixelPNG() []byte {
	img := image.NewRGBA(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.RGBA{R: 0xff, A: 0xff})
	var b bytes.Buffer
	_ = png.Encode(&b, img) // writing to a bytes.Buffer does not fail
	return b.Bytes()
}

// silentWAV is 10 ms of 8 kHz, 8-bit mono silence as a RIFF WAVE file.
func silentWAV() []byte {
	const rate, samples = 8000, 80
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	b.WriteString("RIFF")
	le(uint32(36 + samples))
	b.WriteString("WAVEfmt ")
	le(uint32(16))   // fmt chunk size
	le(uint16(1))    // PCM
	le(uint16(1))    // mono
	le(uint32(rate)) // sample rate
	le(uint32(rate)) // byte rate
	le(uint16(1))    // block align
	le(uint16(8))    // bits per sample
	b.WriteString("data")
	le(uint32(samples))
	b.Write(bytes.Repeat([]byte{0x80}, samples)) // 8-bit PCM silence is 128
	return b.Bytes()
}

// The prompts' and resources' texts.
const (
	simplePrompt       = "This is a simple prompt for testing."
	embeddedPromptText = "Embedded resource content for testing."
	staticText         = "This is the content of the static text resource."
	watchedText        = "This resource is watched for updates."
)

func message(c *hootv1.Content) *hootv1.PromptMessage {
	return &hootv1.PromptMessage{Role: hootv1.Role_ROLE_USER, Content: c}
}

func prompt(m ...*hootv1.PromptMessage) *conformancev1.ConformancePromptResult {
	return &conformancev1.ConformancePromptResult{Messages: m}
}

func resource(r *hootv1.EmbeddedResource) *conformancev1.ConformanceResourceResult {
	return &conformancev1.ConformanceResourceResult{Contents: []*hootv1.EmbeddedResource{r}}
}

func textResource(uri, mimeType, s string) *conformancev1.ConformanceResourceResult {
	return resource(&hootv1.EmbeddedResource{Uri: uri, MimeType: mimeType, Contents: &hootv1.EmbeddedResource_Text{Text: s}})
}

// TestSimplePrompt is a prompt without arguments.
func (Handler) TestSimplePrompt(context.Context, *conformancev1.ConformanceSimplePromptRequest) (*conformancev1.ConformancePromptResult, error) {
	return prompt(message(text(simplePrompt))), nil
}

// TestPromptWithArguments repeats its two arguments.
func (Handler) TestPromptWithArguments(_ context.Context, req *conformancev1.ConformancePromptWithArgumentsRequest) (*conformancev1.ConformancePromptResult, error) {
	return prompt(message(text(fmt.Sprintf("Prompt with arguments: arg1='%s', arg2='%s'", req.GetArg1(), req.GetArg2())))), nil
}

// TestPromptWithEmbeddedResource embeds a text resource under the URI it is given.
func (Handler) TestPromptWithEmbeddedResource(_ context.Context, req *conformancev1.ConformancePromptWithEmbeddedResourceRequest) (*conformancev1.ConformancePromptResult, error) {
	return prompt(
		message(embedded(req.GetResourceUri(), "text/plain", embeddedPromptText)),
		message(text("Please process the embedded resource above.")),
	), nil
}

// TestPromptWithImage holds an image and asks about it.
func (Handler) TestPromptWithImage(context.Context, *conformancev1.ConformancePromptWithImageRequest) (*conformancev1.ConformancePromptResult, error) {
	return prompt(message(imageBlock()), message(text("Please analyze the image above."))), nil
}

// StaticText is the resource test://static-text.
func (Handler) StaticText(context.Context, *conformancev1.ConformanceStaticTextRequest) (*conformancev1.ConformanceResourceResult, error) {
	return textResource("test://static-text", "text/plain", staticText), nil
}

// StaticBinary is the resource test://static-binary, a PNG image.
func (Handler) StaticBinary(context.Context, *conformancev1.ConformanceStaticBinaryRequest) (*conformancev1.ConformanceResourceResult, error) {
	return resource(&hootv1.EmbeddedResource{Uri: "test://static-binary", MimeType: "image/png",
		Contents: &hootv1.EmbeddedResource_Blob{Blob: redPixelPNG()}}), nil
}

// WatchedResource is the resource test://watched-resource.
func (Handler) WatchedResource(context.Context, *conformancev1.ConformanceWatchedResourceRequest) (*conformancev1.ConformanceResourceResult, error) {
	return textResource("test://watched-resource", "text/plain", watchedText), nil
}

// TemplateData is the resource template test://template/{id}/data.
func (Handler) TemplateData(_ context.Context, req *conformancev1.ConformanceTemplateDataRequest) (*conformancev1.ConformanceResourceResult, error) {
	// The id's pattern (letters, digits, "-", "_") needs no escaping inside a JSON string.
	id := req.GetId()
	body := `{"id":"` + id + `","templateTest":true,"data":"Data for ID: ` + id + `"}`
	return textResource("test://template/"+id+"/data", "application/json", body), nil
}

// TestToolWithLogging sends three log messages at level info, about 50 ms apart.
func (Handler) TestToolWithLogging(ctx context.Context, _ *conformancev1.ConformanceToolWithLoggingRequest) (*conformancev1.ConformanceContentResult, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			select {
			case <-ctx.Done():
				return nil, hooteproto.AsError(ctx.Err())
			case <-time.After(50 * time.Millisecond):
			}
		}
		hooteproto.Log(ctx, hootv1.LogLevel_LOG_LEVEL_INFO, msg)
	}
	return blocks(text("Logging test completed.")), nil
}

// JsonSchema202012Tool checks what its literal input schema says and the request's fields
// cannot (the contact method's names, and the phone or email that the method calls for), then
// answers with what it received.
func (Handler) JsonSchema202012Tool(_ context.Context, req *conformancev1.ConformanceJsonSchema202012Request) (*conformancev1.ConformanceContentResult, error) {
	switch m := req.GetContactMethod(); {
	case m != "" && m != "phone" && m != "email":
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, fmt.Sprintf(`contactMethod must be "phone" or "email", got %q`, m))
	case m == "phone" && req.GetPhone() == "":
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, `phone is required when contactMethod is "phone"`)
	case m != "phone" && req.GetEmail() == "":
		return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, `email is required unless contactMethod is "phone"`)
	}
	return blocks(text(fmt.Sprintf("Received contact %q: street %q, city %q, method %q, phone %q, email %q",
		req.GetName(), req.GetAddress().GetStreet(), req.GetAddress().GetCity(),
		req.GetContactMethod(), req.GetPhone(), req.GetEmail()))), nil
}
