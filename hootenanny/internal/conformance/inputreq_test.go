package conformance

import (
	"context"
	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/memconn"
)

// fixtureStack runs the conformance service on a worker behind a broker over loopback, as a
// gateway reaches it, and returns the broker.
func fixtureStack(t *testing.T) *hooteproto.Broker {
	t.Helper()
	net := memconn.NewNetwork()
	router, err := net.Listen("gateway", nil)
	if err != nil {
		t.Fatal(err)
	}
	b := hooteproto.NewBroker(router, hooteproto.WithHeartbeat(250*time.Millisecond, 3))
	conn := net.Dial("gateway", nil)
	w, err := hooteproto.NewWorker(conn, []hootv1hoot.Service{New()}, hooteproto.WithHeartbeat(250*time.Millisecond, 3))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { _ = b.Run(ctx) })
	wg.Go(func() { _ = w.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait(); conn.Close(); router.Close() })
	timeout := time.After(5 * time.Second)
	for {
		changed := b.Changed()
		if slices.Contains(b.Services(), conformancev1hoot.ConformanceServiceName) {
			return b
		}
		select {
		case <-changed:
		case <-timeout:
			t.Fatal("the conformance worker did not become live")
		}
	}
}

// fakeClient answers questions as a client that declared caps would: a form with name, color
// and ok filled in, a sampled text, one root; and records the keys it was asked under.
type fakeClient struct {
	caps map[string]bool
	mu   sync.Mutex
	keys []string
}

func (c *fakeClient) ask(_ context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
	c.mu.Lock()
	c.keys = append(c.keys, req.GetKey())
	c.mu.Unlock()
	switch {
	case req.GetElicitation() != nil && c.caps["elicitation"]:
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Elicitation{Elicitation: &hootv1.ElicitationResult{
			Action: hootv1.ElicitationAction_ELICITATION_ACTION_ACCEPT,
			Content: map[string]*hootv1.FormValue{
				"name":    {Value: &hootv1.FormValue_Text{Text: "Ann"}},
				"color":   {Value: &hootv1.FormValue_Text{Text: "red"}},
				"context": {Value: &hootv1.FormValue_Text{Text: "reels"}},
				"ok":      {Value: &hootv1.FormValue_Flag{Flag: true}},
			},
		}}}, nil
	case req.GetSampling() != nil && c.caps["sampling"]:
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Sampling{Sampling: &hootv1.SamplingResult{
			Content: text("Paris, " + req.GetSampling().GetMessages()[0].GetContent().GetText()),
		}}}, nil
	case req.GetRoots() != nil && c.caps["roots"]:
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Roots{Roots: &hootv1.RootsResult{
			Roots: []*hootv1.Root{{Uri: "file:///tunes", Name: "Tunes"}},
		}}}, nil
	}
	return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "not declared")
}

func TestInputRequiredFixturesAsk(t *testing.T) {
	t.Parallel()
	b := fixtureStack(t)
	all := map[string]bool{"elicitation": true, "sampling": true, "roots": true}
	tests := []struct {
		payload  *hootv1.Payload
		caps     map[string]bool
		keys     string // sorted
		want     string
		wantFail bool
	}{
		{fixturePayload(&conformancev1.Payload{Request: &conformancev1.Payload_TestInputRequiredResultElicitation{TestInputRequiredResultElicitation: &conformancev1.ConformanceInputRequiredElicitationRequest{}}}),
			all, "user_name", "Hello, Ann!", false},
		{fixturePayload(&conformancev1.Payload{Request: &conformancev1.Payload_TestInputRequiredResultSampling{TestInputRequiredResultSampling: &conformancev1.ConformanceInputRequiredSamplingRequest{}}}),
			all, "capital_question", "The model answered: Paris, What is the capital of France?", false},
		{fixturePayload(&conformancev1.Payload{Request: &conformancev1.Payload_TestInputRequiredResultListRoots{TestInputRequiredResultListRoots: &conformancev1.ConformanceInputRequiredListRootsRequest{}}}),
			all, "client_roots", "The client's roots: file:///tunes (Tunes)", false},
		{fixturePayload(&conformancev1.Payload{Request: &conformancev1.Payload_TestInputRequiredResultRequestState{TestInputRequiredResultRequestState: &conformancev1.ConformanceInputRequiredRequestStateRequest{}}}),
			all, "confirm", "state-ok", false},
		{fixturePayload(&conformancev1.Payload{Request: &conformancev1.Payload_TestInputRequiredResultMultipleInputs{TestInputRequiredResultMultipleInputs: &conformancev1.ConformanceInputRequiredMultipleInputsRequest{}}}),
			all, "client_roots,greeting,user_name", "Name: Ann; greeting: Paris, Generate a greeting; roots: file:///tunes (Tunes)", false},
		{fixturePayload(&conformancev1.Payload{Request: &conformancev1.Payload_TestInputRequiredResultMultiRound{TestInputRequiredResultMultiRound: &conformancev1.ConformanceInputRequiredMultiRoundRequest{}}}),
			all, "step1,step2", "Ann likes red.", false},
		{fixturePayload(&conformancev1.Payload{Request: &conformancev1.Payload_TestInputRequiredResultCapabilities{TestInputRequiredResultCapabilities: &conformancev1.ConformanceInputRequiredCapabilitiesRequest{}}}),
			map[string]bool{"sampling": true}, "capital_question,user_name", "Answered what the client could: model: Paris", false},
		{fixturePayload(&conformancev1.Payload{Request: &conformancev1.Payload_TestInputRequiredResultCapabilities{TestInputRequiredResultCapabilities: &conformancev1.ConformanceInputRequiredCapabilitiesRequest{}}}),
			map[string]bool{}, "capital_question,user_name", "not declared", true},
		{fixturePayload(&conformancev1.Payload{Request: &conformancev1.Payload_TestMissingCapability{TestMissingCapability: &conformancev1.ConformanceMissingCapabilityRequest{}}}),
			map[string]bool{}, "capital_question", "not declared", true},
		{fixturePayload(&conformancev1.Payload{Request: &conformancev1.Payload_TestStreamingElicitation{TestStreamingElicitation: &conformancev1.ConformanceStreamingElicitationRequest{}}}),
			all, "user_name", "Hello, Ann!", false},
	}
	for _, tc := range tests {
		c := &fakeClient{caps: tc.caps}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := b.Call(ctx, hooteproto.Call{Service: "conformance", Payload: tc.payload, Ask: c.ask})
		cancel()
		name := hooteproto.RequestOf(tc.payload).ProtoReflect().Descriptor().Name()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var got string
		if res.GetError() != nil {
			got = res.GetError().GetMessage()
		} else {
			got = carriedResult(res).GetConformanceContent().GetContent()[0].GetText()
		}
		if (res.GetError() != nil) != tc.wantFail || !strings.Contains(got, tc.want) {
			t.Errorf("%s = %q (failed %v), want %q", name, got, res.GetError() != nil, tc.want)
		}
		c.mu.Lock()
		keys := append([]string(nil), c.keys...)
		c.mu.Unlock()
		sort.Strings(keys)
		if strings.Join(keys, ",") != tc.keys {
			t.Errorf("%s asked %v, want %s", name, keys, tc.keys)
		}
	}

	// The prompt asks for context and writes it in.
	c := &fakeClient{caps: all}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	res, err := b.Call(ctx, hooteproto.Call{Service: "conformance", Ask: c.ask, Payload: fixturePayload(&conformancev1.Payload{Request: &conformancev1.Payload_TestInputRequiredResultPrompt{
		TestInputRequiredResultPrompt: &conformancev1.ConformanceInputRequiredPromptRequest{}}})})
	if err != nil || !strings.Contains(carriedResult(res).GetConformancePrompt().GetMessages()[0].GetContent().GetText(), "reels") || len(c.keys) != 1 || c.keys[0] != "user_context" {
		t.Errorf("prompt = %v, %v, asked %v", res, err, c.keys)
	}
}
