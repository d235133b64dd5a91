package conformance

import (
	"bytes"
	"context"
	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	"image/png"
	"strings"
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
	p, err := h.TestPromptWithArguments(ctx, &conformancev1.ConformancePromptWithArgumentsRequest{Arg1: "hello", Arg2: "world"})
	if err != nil || p.GetMessages()[0].GetContent().GetText() != "Prompt with arguments: arg1='hello', arg2='world'" {
		t.Fatalf("TestPromptWithArguments = %v, %v", p, err)
	}
	r, err := h.TemplateData(ctx, &conformancev1.ConformanceTemplateDataRequest{Id: "123"})
	if c := r.GetContents()[0]; err != nil || c.GetUri() != "test://template/123/data" || c.GetText() != `{"id":"123","templateTest":true,"data":"Data for ID: 123"}` {
		t.Fatalf("TemplateData = %v, %v", r, err)
	}
	// Outside a request there is no client to ask.
	if _, err := h.TestSampling(ctx, &conformancev1.ConformanceSamplingRequest{Prompt: "hi"}); hooteproto.AsError(err).Code() != hooteproto.CodeUnavailable {
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

// TestJsonSchema202012Tool checks the rules of the fixture's literal schema that decoding into
// the request does not: the contact method's names and the field that it calls for.
func TestJsonSchema202012Tool(t *testing.T) {
	t.Parallel()
	type req = conformancev1.ConformanceJsonSchema202012Request
	for _, tc := range []struct {
		name string
		req  *req
		ok   bool
	}{
		{"email by default", &req{Name: "Ann", Email: "ann@example.com"}, true},
		{"phone", &req{ContactMethod: "phone", Phone: "555"}, true},
		{"phone without a phone", &req{ContactMethod: "phone", Email: "ann@example.com"}, false},
		{"email without an email", &req{ContactMethod: "email", Phone: "555"}, false},
		{"neither", &req{Name: "Ann"}, false},
		{"unknown method", &req{ContactMethod: "fax", Email: "ann@example.com"}, false},
	} {
		res, err := Handler{}.JsonSchema202012Tool(context.Background(), tc.req)
		if (err == nil) != tc.ok {
			t.Errorf("%s: error = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && hooteproto.AsError(err).Code() != hooteproto.CodeInvalidArgument {
			t.Errorf("%s: code = %v, want invalid argument", tc.name, hooteproto.AsError(err).Code())
		}
		if err == nil && res.GetContent()[0].GetText() == "" {
			t.Errorf("%s: no text", tc.name)
		}
	}
}

// TestListChangeFixtures: the triggers withdraw and offer their services through the Offer,
// and refuse to pretend without one.
func TestListChangeFixtures(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	offer := hooteproto.NewOffer()
	services := Services(offer)
	if len(services) != 3 || services[1].Name != DynamicToolService || services[2].Name != DynamicPromptService {
		t.Fatalf("services = %v", services)
	}
	h := Handler{offer: offer}
	changed := offer.Changed()
	if _, err := h.TestTriggerToolChange(ctx, nil); err != nil || offer.Offered(DynamicToolService) || !offer.Offered(DynamicPromptService) {
		t.Fatalf("after the tool trigger: err %v, tool offered %t, prompt offered %t", err, offer.Offered(DynamicToolService), offer.Offered(DynamicPromptService))
	}
	select {
	case <-changed:
	default:
		t.Error("the trigger did not announce a change")
	}
	if res, err := h.TestTriggerToolChange(ctx, nil); err != nil || !offer.Offered(DynamicToolService) || !strings.Contains(res.GetContent()[0].GetText(), "offered again") {
		t.Fatalf("the second tool trigger = %v, %v", res, err)
	}
	if _, err := h.TestTriggerPromptChange(ctx, nil); err != nil || offer.Offered(DynamicPromptService) {
		t.Fatalf("after the prompt trigger: %v, offered %t", err, offer.Offered(DynamicPromptService))
	}
	if _, err := (Handler{}).TestTriggerToolChange(ctx, nil); hooteproto.AsError(err).Code() != hooteproto.CodeUnavailable {
		t.Errorf("a trigger without an Offer = %v, want unavailable", err)
	}
	res, err := h.TestCustomHeader(ctx, &conformancev1.ConformanceCustomHeaderRequest{Region: "eu", Priority: 3, Verbose: true})
	if err != nil || res.GetContent()[0].GetText() != `region="eu" priority=3 verbose=true query=""` {
		t.Errorf("TestCustomHeader = %v, %v", res, err)
	}
	// Outside a request the log messages go nowhere, and the tool still answers.
	if res, err := h.TestLoggingTool(ctx, nil); err != nil || len(res.GetContent()) != 1 {
		t.Errorf("TestLoggingTool = %v, %v", res, err)
	}
}

// TestToolWithTask greets the name the gateway filled in, and refuses to greet nobody.
func TestToolWithTask(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	res, err := TasksHandler{}.TestToolWithTask(ctx, &conformancev1.ConformanceTestToolWithTaskRequest{Name: "Alice"})
	if err != nil || !strings.Contains(res.GetContent()[0].GetText(), "Hello, Alice!") {
		t.Fatalf("TestToolWithTask = %v, %v", res, err)
	}
	if _, err := (TasksHandler{}).TestToolWithTask(ctx, &conformancev1.ConformanceTestToolWithTaskRequest{}); hooteproto.AsError(err).Code() != hooteproto.CodeInvalidArgument {
		t.Fatalf("TestToolWithTask without a name = %v, want invalid_argument", err)
	}
}
