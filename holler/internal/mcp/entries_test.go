package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/entries"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/hooteproto"
)

// fixtureBackend answers the conformance fixtures that these tests use, as a worker would.
func fixtureBackend() *fakeBackend {
	b := newFakeBackend()
	text := func(s string) *hootv1.Content { return &hootv1.Content{Block: &hootv1.Content_Text{Text: s}} }
	b.override = func(_ context.Context, _ string, p *hootv1.Payload) (*hootv1.Result, error) {
		resource := func(r *hootv1.EmbeddedResource) (*hootv1.Result, error) {
			return fixtureResult(&conformancev1.Result{Result: &conformancev1.Result_ConformanceResource{ConformanceResource: &conformancev1.ConformanceResourceResult{
				Contents: []*hootv1.EmbeddedResource{r},
			}}}), nil
		}
		switch x := requestOf(p).(type) {
		case *conformancev1.Payload_StaticBinary:
			return resource(&hootv1.EmbeddedResource{Uri: "test://static-binary", MimeType: "image/png", Contents: &hootv1.EmbeddedResource_Blob{Blob: []byte{1, 2, 3}}})
		case *conformancev1.Payload_TemplateData:
			return resource(&hootv1.EmbeddedResource{MimeType: "text/plain", Contents: &hootv1.EmbeddedResource_Text{Text: "id " + x.TemplateData.GetId()}})
		case *conformancev1.Payload_TestPromptWithArguments:
			return fixtureResult(&conformancev1.Result{Result: &conformancev1.Result_ConformancePrompt{ConformancePrompt: &conformancev1.ConformancePromptResult{
				Messages: []*hootv1.PromptMessage{{Content: text(x.TestPromptWithArguments.GetArg1() + "+" + x.TestPromptWithArguments.GetArg2())}},
			}}}), nil
		case *conformancev1.Payload_TestMultipleContentTypes:
			return fixtureResult(&conformancev1.Result{Result: &conformancev1.Result_ConformanceContent{ConformanceContent: &conformancev1.ConformanceContentResult{
				Content: []*hootv1.Content{
					text("first"),
					{Block: &hootv1.Content_Image{Image: &hootv1.Media{MimeType: "image/png", Data: []byte{9}}}},
					{Block: &hootv1.Content_ResourceLink{ResourceLink: &hootv1.ResourceLink{Uri: "test://x"}}},
				},
			}}}), nil
		}
		return nil, hooteproto.NewError(hooteproto.CodeNotFound, "no fixture")
	}
	return b
}

func newEntriesClient(t *testing.T) *mcpHTTP {
	t.Helper()
	s, err := NewServer(&Config{Backend: fixtureBackend()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)
	return c
}

func TestPromptsResourcesAndCompletion(t *testing.T) {
	t.Parallel()
	c := newEntriesClient(t)

	tests := []struct {
		name   string
		method string
		params any
		want   []string // parts of the result's JSON
		code   int      // the error code, when an error is expected
	}{
		{"prompts are listed with their arguments", "prompts/list", map[string]any{},
			[]string{`"name":"test_prompt_with_arguments"`, `{"name":"arg1","description":"First test argument.","required":true}`, `"name":"resourceUri"`}, 0},
		{"a prompt's arguments become its request", "prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]any{"arg1": "a", "arg2": "b"}},
			[]string{`"messages":[{"role":"user","content":{"type":"text","text":"a+b"}}]`}, 0},
		{"a prompt's missing argument is refused", "prompts/get", map[string]any{"name": "test_prompt_with_arguments", "arguments": map[string]any{"arg1": "a"}},
			nil, jsonrpc.CodeInvalidParams},
		{"an unknown prompt is refused", "prompts/get", map[string]any{"name": "nope"}, nil, jsonrpc.CodeInvalidParams},
		{"resources are listed without templates", "resources/list", map[string]any{},
			[]string{`{"uri":"test://static-text","name":"static_text"`, `"mimeType":"text/plain"`}, 0},
		{"templates are listed", "resources/templates/list", map[string]any{},
			[]string{`"uriTemplate":"test://template/{id}/data"`}, 0},
		{"binary contents are base64", "resources/read", map[string]any{"uri": "test://static-binary"},
			[]string{`"contents":[{"uri":"test://static-binary","mimeType":"image/png","blob":"AQID"}]`}, 0},
		{"a template's variables fill the request", "resources/read", map[string]any{"uri": "test://template/42/data"},
			[]string{`{"uri":"test://template/42/data","mimeType":"text/plain","text":"id 42"}`}, 0},
		{"an unknown resource is not found", "resources/read", map[string]any{"uri": "test://nothing"}, nil, entries.CodeResourceNotFound},
		{"subscribing to a resource is accepted", "resources/subscribe", map[string]any{"uri": "test://watched-resource"}, []string{`{}`}, 0},
		{"completion offers the declared values that match", "completion/complete",
			map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": map[string]any{"name": "arg1", "value": "par"}},
			[]string{`"values":["paris","park","party"]`, `"total":3`}, 0},
		{"completion of a field without values is empty", "completion/complete",
			map[string]any{"ref": map[string]any{"type": "ref/prompt", "name": "test_prompt_with_arguments"}, "argument": map[string]any{"name": "arg2", "value": "x"}},
			[]string{`"values":[]`}, 0},
	}
	for i, tc := range tests {
		r := c.call(i+1, tc.method, tc.params)
		if tc.code != 0 {
			if r.Error == nil || r.Error.Code != tc.code {
				t.Errorf("%s: got %s %+v, want error %d", tc.name, r.Result, r.Error, tc.code)
			}
			continue
		}
		if r.Error != nil {
			t.Errorf("%s: error %d %s", tc.name, r.Error.Code, r.Error.Message)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(string(r.Result), w) {
				t.Errorf("%s: result %s lacks %s", tc.name, r.Result, w)
			}
		}
	}

	// Prompts and resources are not tools.
	r := c.call(100, "tools/list", map[string]any{})
	if strings.Contains(string(r.Result), "test_simple_prompt") || strings.Contains(string(r.Result), "static_text") {
		t.Errorf("tools/list shows prompts or resources: %s", r.Result)
	}
}

func TestInitializeAnnouncesPromptsAndResources(t *testing.T) {
	t.Parallel()
	s, err := NewServer(&Config{Backend: fixtureBackend()})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := newMCPHTTP(t, s)
	a := c.post(initializeRequest(era.Latest), nil)
	var res struct {
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	if err := json.Unmarshal(a.last(t).Result, &res); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"prompts", "resources", "completions", "tools"} {
		if _, ok := res.Capabilities[k]; !ok {
			t.Errorf("capabilities lack %s: %v", k, res.Capabilities)
		}
	}
}

func TestToolContentBlocks(t *testing.T) {
	t.Parallel()
	c := newEntriesClient(t)
	r := c.call(1, "tools/call", map[string]any{"name": "test_multiple_content_types"})
	for _, w := range []string{
		`"content":[{"type":"text","text":"first"},{"type":"image","data":"CQ==","mimeType":"image/png"},{"type":"resource_link","uri":"test://x","name":"test://x"}]`,
		`"structuredContent":{"content":[`,
	} {
		if !strings.Contains(string(r.Result), w) {
			t.Errorf("result %s lacks %s", r.Result, w)
		}
	}
}

func TestStoredObjectIsAResource(t *testing.T) {
	t.Parallel()
	s, _ := newTestServer(t, nil)
	c := newMCPHTTP(t, s)
	c.initialize(era.Latest)
	stored := toolResultOf(t, c.call(1, "tools/call", map[string]any{"name": "cas_store", "arguments": map[string]any{"content": "hi", "mime_type": "text/plain"}}))
	hash, _ := stored.StructuredContent["hash"].(string)
	if hash == "" {
		t.Fatalf("cas_store = %+v", stored)
	}
	r := c.call(2, "resources/templates/list", map[string]any{})
	if !strings.Contains(string(r.Result), `"uriTemplate":"hoot://cas/{hash}"`) {
		t.Fatalf("templates = %s", r.Result)
	}
	r = c.call(3, "resources/read", map[string]any{"uri": "hoot://cas/" + hash})
	if want := `{"contents":[{"uri":"hoot://cas/` + hash + `","mimeType":"text/plain","text":"hi"}]}`; string(r.Result) != want {
		t.Fatalf("read = %s %+v, want %s", r.Result, r.Error, want)
	}
	// A URI that the template matches but whose hash is malformed is refused with the reason.
	if r = c.call(4, "resources/read", map[string]any{"uri": "hoot://cas/nothex"}); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Fatalf("read of a bad hash = %s %+v", r.Result, r.Error)
	}
}
