package mcp

import (
	"context"
	"strings"
	"testing"

	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/hooteproto"
)

// TestClientRequestsRelayed runs a tool that logs, then asks the client to sample and to fill in
// a form: each request goes to the client with an id of the server's, and the client's
// responses come back to the tool.
func TestClientRequestsRelayed(t *testing.T) {
	t.Parallel()
	b := newFakeBackend()
	b.override = func(ctx context.Context, _ string, p *hootv1.Payload) (*hootv1.Result, error) {
		ask := callOf(ctx).Ask
		if ask == nil {
			return nil, hooteproto.NewError(hooteproto.CodeInternal, "no asker")
		}
		sampled, err := ask(ctx, &hootv1.ClientRequest{Request: &hootv1.ClientRequest_Sampling{Sampling: &hootv1.SamplingRequest{
			Messages:  []*hootv1.SamplingMessage{{Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: carriedPayload(p).GetTestSampling().GetPrompt()}}}},
			MaxTokens: 7,
		}}})
		if err != nil {
			return nil, err
		}
		form, err := ask(ctx, &hootv1.ClientRequest{Request: &hootv1.ClientRequest_Elicitation{Elicitation: &hootv1.ElicitationRequest{Message: "who?"}}})
		if err != nil {
			return nil, err
		}
		answer := sampled.GetSampling().GetContent().GetText() + "/" + form.GetElicitation().GetAction().String() + "/" +
			form.GetElicitation().GetContent()["name"].GetText()
		return fixtureResult(&conformancev1.Result{Result: &conformancev1.Result_ConformanceContent{ConformanceContent: &conformancev1.ConformanceContentResult{
			Content: []*hootv1.Content{{Block: &hootv1.Content_Text{Text: answer}}},
		}}}), nil
	}
	s, err := NewServer(&Config{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() }) // after the stdio session's own cleanup
	c := newMCPStdio(t, s)
	c.initialize(era.Latest)

	c.send(request(1, "tools/call", map[string]any{"name": "test_sampling", "arguments": map[string]any{"prompt": "hi"}}))
	r := c.recv()
	if r.Method != "sampling/createMessage" || r.ID == nil || !strings.Contains(string(r.Params), `"maxTokens":7`) ||
		!strings.Contains(string(r.Params), `{"role":"user","content":{"type":"text","text":"hi"}}`) {
		t.Fatalf("first message = %+v, want a sampling/createMessage request", r)
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m"}}`)
	r = c.recv()
	if r.Method != "elicitation/create" || !strings.Contains(string(r.Params), `"message":"who?"`) {
		t.Fatalf("second message = %+v, want an elicitation/create request", r)
	}
	c.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":{"action":"accept","content":{"name":"Ann"}}}`)
	r = c.recv()
	res := toolResultOf(t, r)
	if res.IsError || res.text() != "hello/ELICITATION_ACTION_ACCEPT/Ann" {
		t.Fatalf("result = %+v", res)
	}
}
