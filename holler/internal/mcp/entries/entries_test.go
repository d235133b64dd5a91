package entries

import (
	"encoding/json"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"google.golang.org/protobuf/proto"
)

// host is a gateway whose live services are listed.
type host struct{ live map[string]bool }

func (h host) Live(service string) bool { return h.live[service] }

func (h host) Fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response {
	return jsonrpc.NewError(id, code, msg, g)
}

// productEntries files the product table's prompts and resources.
func productEntries(live ...string) *Entries {
	h := host{live: map[string]bool{}}
	for _, s := range live {
		h.live[s] = true
	}
	e := New(h)
	for i := range hootv1hoot.Tools {
		e.Add(&hootv1hoot.Tools[i])
	}
	return e
}

func marshal(t *testing.T, r *jsonrpc.Response) string {
	t.Helper()
	if r.Error != nil {
		t.Fatalf("error %+v", r.Error)
	}
	b, err := json.Marshal(r.Result)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestAdd checks that prompts and resources are filed by surface and tools are not, and that
// only the entries of live services are listed.
func TestAdd(t *testing.T) {
	t.Parallel()
	e := productEntries("music")
	if len(e.Prompts()) == 0 || len(e.Templates()) == 0 {
		t.Fatalf("prompts %d, templates %d", len(e.Prompts()), len(e.Templates()))
	}
	if e.Add(&hootv1hoot.Tool{Name: "a_tool"}) {
		t.Error("a tool was filed as an entry")
	}
	if got := marshal(t, e.ListPrompts(json.RawMessage("1"))); !strings.Contains(got, `"name":"compose_abc"`) || !strings.Contains(got, `"name":"idea"`) {
		t.Errorf("prompts/list = %s", got)
	}
	if got := marshal(t, e.ListTemplates(json.RawMessage("1"))); got != `{"resourceTemplates":[]}` {
		t.Errorf("templates of services without a worker were listed: %s", got)
	}
}

// TestReadResource checks that a template's variables fill the request the Caller gets, that
// an URI that breaks the field's rules is refused before any call, and that an unknown URI is
// not found.
func TestReadResource(t *testing.T) {
	t.Parallel()
	e := productEntries("cas")
	hash := strings.Repeat("ab", 32)
	var asked proto.Message
	call := func(tool *hootv1hoot.Tool, req proto.Message) (proto.Message, *jsonrpc.Response) {
		asked = req
		return &hootv1.CasObjectResourceResult{Contents: []*hootv1.EmbeddedResource{
			{MimeType: "text/plain", Contents: &hootv1.EmbeddedResource_Text{Text: "hello"}}}}, nil
	}
	got := marshal(t, e.ReadResource(json.RawMessage("1"), json.RawMessage(`{"uri":"hoot://cas/`+hash+`"}`), call))
	if got != `{"contents":[{"uri":"hoot://cas/`+hash+`","mimeType":"text/plain","text":"hello"}]}` {
		t.Errorf("resources/read = %s", got)
	}
	if r, ok := asked.(*hootv1.CasObjectResourceRequest); !ok || r.GetHash() != hash {
		t.Errorf("request %v", asked)
	}
	asked = nil
	r := e.ReadResource(json.RawMessage("1"), json.RawMessage(`{"uri":"hoot://cas/not-a-hash"}`), call)
	if r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams || asked != nil {
		t.Errorf("a hash against the pattern: %+v, called with %v", r.Error, asked)
	}
	r = e.ReadResource(json.RawMessage("1"), json.RawMessage(`{"uri":"hoot://nothing"}`), call)
	if r.Error == nil || r.Error.Code != CodeResourceNotFound || e.HasResource("hoot://nothing") || !e.HasResource("hoot://cas/"+hash) {
		t.Errorf("an unknown URI: %+v", r.Error)
	}
}

// TestGetPrompt checks that a prompt's PromptMessage fields become its messages, with their
// roles, and that arguments against the schema are refused before any call.
func TestGetPrompt(t *testing.T) {
	t.Parallel()
	e := productEntries("music")
	calls := 0
	call := func(*hootv1hoot.Tool, proto.Message) (proto.Message, *jsonrpc.Response) {
		calls++
		return &hootv1.MusicPromptResult{Messages: []*hootv1.PromptMessage{
			{Role: hootv1.Role_ROLE_USER, Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: "Write a reel."}}},
			{Role: hootv1.Role_ROLE_ASSISTANT, Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: "X:1"}}},
		}}, nil
	}
	got := marshal(t, e.GetPrompt(json.RawMessage("1"), json.RawMessage(`{"name":"compose_abc","arguments":{"idea":"a reel"}}`), call))
	if !strings.Contains(got, `{"role":"user","content":{"type":"text","text":"Write a reel."}}`) || !strings.Contains(got, `"role":"assistant"`) {
		t.Errorf("prompts/get = %s", got)
	}
	for _, params := range []string{`{"name":"compose_abc","arguments":{"idea":""}}`, `{"name":"nothing"}`, `{}`} {
		if r := e.GetPrompt(json.RawMessage("1"), json.RawMessage(params), call); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
			t.Errorf("%s: %+v", params, r)
		}
	}
	if calls != 1 {
		t.Errorf("%d calls, want the one valid prompt's", calls)
	}
}

// TestComplete checks completion of a prompt's argument from its declared values, and a ref
// that names nothing.
func TestComplete(t *testing.T) {
	t.Parallel()
	e := productEntries()
	got := marshal(t, e.Complete(json.RawMessage("1"), json.RawMessage(`{"ref":{"type":"ref/prompt","name":"compose_abc"},"argument":{"name":"key","value":"C"}}`)))
	var c struct {
		Completion struct {
			Values []string
			Total  int
		}
	}
	if err := json.Unmarshal([]byte(got), &c); err != nil || len(c.Completion.Values) == 0 || c.Completion.Total != len(c.Completion.Values) {
		t.Fatalf("completion/complete = %s", got)
	}
	for _, v := range c.Completion.Values {
		if !strings.HasPrefix(v, "C") {
			t.Errorf("value %q does not start with what was typed", v)
		}
	}
	if r := e.Complete(json.RawMessage("1"), json.RawMessage(`{"ref":{"type":"ref/prompt","name":"nothing"},"argument":{"name":"key","value":""}}`)); r.Error == nil {
		t.Error("a ref to no prompt was completed")
	}
}
