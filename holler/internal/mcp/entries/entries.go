// Package entries is the prompts and resources of the generated table: entries like tools,
// with another Surface, called through the workers like tools, and listed and fetched with
// their own methods (prompts/list, prompts/get, resources/list, resources/templates/list,
// resources/read, resources/subscribe, completion/complete). How an entry's request reaches
// a worker is the gateway's: each method that calls one is given a Caller.
package entries

import (
	"encoding/base64"
	"encoding/json"
	"regexp"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/arguments"
	"github.com/hootenanny/hoot/holler/internal/mcp/content"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// CodeResourceNotFound is MCP's error code for a resource URI that no resource has.
const CodeResourceNotFound = -32002

// Host is what the entries need of the gateway.
type Host interface {
	// Live reports whether a live worker serves service.
	Live(service string) bool
	// Fail answers id with a JSON-RPC error and, unless the gateway gives none, guidance g.
	Fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response
}

// A Caller sends the request req of the entry t to a worker and returns the typed answer, or
// the error response to give.
type Caller func(t *hootv1hoot.Tool, req proto.Message) (proto.Message, *jsonrpc.Response)

// Entries are the prompts and resources of the table, within the gateway's tier.
type Entries struct {
	host      Host
	prompts   []*hootv1hoot.Tool
	resources []*hootv1hoot.Tool // fixed URIs
	templates []*resourceTemplate
}

// New returns an empty set of entries of the gateway host.
func New(host Host) *Entries { return &Entries{host: host} }

// Prompts, Resources and Templates return the entries of each kind, in table order.
func (e *Entries) Prompts() []*hootv1hoot.Tool { return e.prompts }

// Resources returns the resources with fixed URIs.
func (e *Entries) Resources() []*hootv1hoot.Tool { return e.resources }

// Templates returns the resources whose URIs are templates.
func (e *Entries) Templates() []*hootv1hoot.Tool {
	out := make([]*hootv1hoot.Tool, len(e.templates))
	for i, rt := range e.templates {
		out[i] = rt.tool
	}
	return out
}

// A resourceTemplate is a resource whose URI has {variables}, with the pattern that matches
// the URIs it serves.
type resourceTemplate struct {
	tool  *hootv1hoot.Tool
	vars  []string
	match *regexp.Regexp
}

// templateVar matches one {variable} of a URI template.
var templateVar = regexp.MustCompile(`\{([^{}]*)\}`)

// Add files t under its surface; it reports false for a tool.
func (e *Entries) Add(t *hootv1hoot.Tool) bool {
	switch t.Surface {
	case hootv1.Surface_SURFACE_PROMPT:
		e.prompts = append(e.prompts, t)
	case hootv1.Surface_SURFACE_RESOURCE:
		if !strings.Contains(t.URI, "{") {
			e.resources = append(e.resources, t)
			return true
		}
		rt := &resourceTemplate{tool: t}
		pattern := "^"
		rest := t.URI
		for _, loc := range templateVar.FindAllStringSubmatchIndex(t.URI, -1) {
			start := len(t.URI) - len(rest)
			pattern += regexp.QuoteMeta(t.URI[start:loc[0]]) + "([^/]+)"
			rt.vars = append(rt.vars, t.URI[loc[2]:loc[3]])
			rest = t.URI[loc[1]:]
		}
		rt.match = regexp.MustCompile(pattern + regexp.QuoteMeta(rest) + "$")
		e.templates = append(e.templates, rt)
	default:
		return false
	}
	return true
}

// A promptDescription is one prompt as prompts/list shows it.
type promptDescription struct {
	Name        string           `json:"name"`
	Title       string           `json:"title,omitempty"`
	Description string           `json:"description"`
	Arguments   []promptArgument `json:"arguments,omitempty"`
}

// A promptArgument is one argument of a prompt: a string field of its request.
type promptArgument struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Required    bool   `json:"required,omitempty"`
}

// promptMessage is one message of prompts/get's answer.
type promptMessage struct {
	Role    string        `json:"role"`
	Content content.Block `json:"content"`
}

// promptArguments reads a prompt's arguments from its generated input schema: the properties,
// their descriptions, and which are required.
func promptArguments(t *hootv1hoot.Tool) []promptArgument {
	var schema struct {
		Properties map[string]struct {
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if json.Unmarshal([]byte(t.InputSchema), &schema) != nil {
		return nil
	}
	required := make(map[string]bool, len(schema.Required))
	for _, r := range schema.Required {
		required[r] = true
	}
	// Properties in the order of the request's fields, which is the schema's order.
	fields := t.NewRequest().ProtoReflect().Descriptor().Fields()
	var out []promptArgument
	for i := range fields.Len() {
		name := string(fields.Get(i).Name())
		p, ok := schema.Properties[name]
		if !ok {
			continue
		}
		out = append(out, promptArgument{Name: fields.Get(i).JSONName(), Description: p.Description, Required: required[name]})
	}
	return out
}

// ListPrompts answers prompts/list: the prompts whose service has a live worker, in one page.
func (e *Entries) ListPrompts(id json.RawMessage) *jsonrpc.Response {
	out := []promptDescription{}
	for _, t := range e.prompts {
		if !e.host.Live(t.Service) {
			continue
		}
		out = append(out, promptDescription{Name: t.Name, Title: t.Title, Description: t.Description, Arguments: promptArguments(t)})
	}
	return jsonrpc.NewResult(id, struct {
		Prompts []promptDescription `json:"prompts"`
	}{out})
}

// prompt returns the prompt named name.
func (e *Entries) prompt(name string) *hootv1hoot.Tool {
	for _, t := range e.prompts {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// GetPrompt answers prompts/get: the prompt's arguments become its request, and the
// PromptMessage fields of the worker's answer its messages.
func (e *Entries) GetPrompt(id, params json.RawMessage, call Caller) *jsonrpc.Response {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if params == nil || json.Unmarshal(params, &p) != nil || p.Name == "" {
		return e.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: prompts/get needs params.name, the name of a prompt, and params.arguments, an object of strings", &guidance.Data{
			Hint: "List the prompts with prompts/list.",
		})
	}
	t := e.prompt(p.Name)
	if t == nil {
		return e.host.Fail(id, jsonrpc.CodeInvalidParams, "unknown prompt "+wording.Quote(p.Name), &guidance.Data{
			Hint: "List the prompts with prompts/list.",
		})
	}
	req, bad := arguments.Decode(t, p.Arguments)
	if bad != nil {
		return e.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid arguments for prompt "+t.Name+": "+bad.Message, &guidance.Data{
			Hint: bad.Hint, Field: bad.Field, Expected: bad.Expected, Got: bad.Got, Usage: t.Usage,
		})
	}
	m, fail := call(t, req)
	if fail != nil {
		return fail
	}
	messages := []promptMessage{}
	for _, pm := range fieldsOfType[*hootv1.PromptMessage](m) {
		blocks := content.Append(nil, pm.GetContent().ProtoReflect())
		if len(blocks) == 0 {
			continue
		}
		role := "user"
		if pm.GetRole() == hootv1.Role_ROLE_ASSISTANT {
			role = "assistant"
		}
		messages = append(messages, promptMessage{Role: role, Content: blocks[0]})
	}
	return jsonrpc.NewResult(id, struct {
		Description string          `json:"description,omitempty"`
		Messages    []promptMessage `json:"messages"`
	}{t.Description, messages})
}

// A resourceDescription is one resource as resources/list shows it.
type resourceDescription struct {
	URI         string `json:"uri"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType,omitempty"`
}

// A templateDescription is one resource template as resources/templates/list shows it.
type templateDescription struct {
	URITemplate string `json:"uriTemplate"`
	Name        string `json:"name"`
	Title       string `json:"title,omitempty"`
	Description string `json:"description"`
	MimeType    string `json:"mimeType,omitempty"`
}

// ListResources answers resources/list: the resources with fixed URIs whose service has a
// live worker, in one page.
func (e *Entries) ListResources(id json.RawMessage) *jsonrpc.Response {
	out := []resourceDescription{}
	for _, t := range e.resources {
		if e.host.Live(t.Service) {
			out = append(out, resourceDescription{URI: t.URI, Name: t.Name, Title: t.Title, Description: t.Description, MimeType: t.MimeType})
		}
	}
	return jsonrpc.NewResult(id, struct {
		Resources []resourceDescription `json:"resources"`
	}{out})
}

// ListTemplates answers resources/templates/list.
func (e *Entries) ListTemplates(id json.RawMessage) *jsonrpc.Response {
	out := []templateDescription{}
	for _, rt := range e.templates {
		t := rt.tool
		if e.host.Live(t.Service) {
			out = append(out, templateDescription{URITemplate: t.URI, Name: t.Name, Title: t.Title, Description: t.Description, MimeType: t.MimeType})
		}
	}
	return jsonrpc.NewResult(id, struct {
		ResourceTemplates []templateDescription `json:"resourceTemplates"`
	}{out})
}

// uriParams are the params of resources/read, subscribe and unsubscribe.
type uriParams struct {
	URI string `json:"uri"`
}

// findResource returns the resource or template that serves uri, with its request filled in
// from the URI's template variables.
func (e *Entries) findResource(uri string) (*hootv1hoot.Tool, proto.Message, *arguments.Error) {
	for _, t := range e.resources {
		if t.URI == uri {
			return t, t.NewRequest(), nil
		}
	}
	for _, rt := range e.templates {
		m := rt.match.FindStringSubmatch(uri)
		if m == nil {
			continue
		}
		args := make(map[string]string, len(rt.vars))
		for i, v := range rt.vars {
			args[v] = m[i+1]
		}
		b, _ := json.Marshal(args) // a map of strings always encodes
		req, bad := arguments.Decode(rt.tool, b)
		return rt.tool, req, bad
	}
	return nil, nil, nil
}

// ReadResource answers resources/read: the EmbeddedResource fields of the worker's answer are
// the contents.
func (e *Entries) ReadResource(id, params json.RawMessage, call Caller) *jsonrpc.Response {
	var p uriParams
	if params == nil || json.Unmarshal(params, &p) != nil || p.URI == "" {
		return e.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: resources/read needs params.uri", &guidance.Data{
			Hint: "List the resources with resources/list and resources/templates/list.",
		})
	}
	t, req, bad := e.findResource(p.URI)
	if bad != nil {
		return e.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid resource URI "+wording.Quote(p.URI)+": "+bad.Message, &guidance.Data{Hint: bad.Hint, Field: bad.Field})
	}
	if t == nil {
		return jsonrpc.NewError(id, CodeResourceNotFound, "resource not found: "+wording.Quote(p.URI), struct {
			URI string `json:"uri"`
		}{p.URI})
	}
	m, fail := call(t, req)
	if fail != nil {
		return fail
	}
	contents := []content.Resource{}
	for _, r := range fieldsOfType[*hootv1.EmbeddedResource](m) {
		rc := content.Resource{URI: r.GetUri(), MimeType: r.GetMimeType()}
		if rc.URI == "" {
			rc.URI = p.URI
		}
		if blob, ok := r.GetContents().(*hootv1.EmbeddedResource_Blob); ok {
			b := base64.StdEncoding.EncodeToString(blob.Blob)
			rc.Blob = &b
		} else {
			txt := r.GetText()
			rc.Text = &txt
		}
		contents = append(contents, rc)
	}
	return jsonrpc.NewResult(id, struct {
		Contents []content.Resource `json:"contents"`
	}{contents})
}

// Subscribe answers resources/subscribe and resources/unsubscribe for a resource that exists.
// Resources here are write-once (stored objects, artifacts' contents, fixtures), so a
// subscription is accepted and never fires.
func (e *Entries) Subscribe(id json.RawMessage, method string, params json.RawMessage) *jsonrpc.Response {
	var p uriParams
	if params == nil || json.Unmarshal(params, &p) != nil || p.URI == "" {
		return e.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: "+method+" needs params.uri", &guidance.Data{
			Hint: "Name a resource that resources/list shows.",
		})
	}
	if t, _, _ := e.findResource(p.URI); t == nil {
		return jsonrpc.NewError(id, CodeResourceNotFound, "resource not found: "+wording.Quote(p.URI), struct {
			URI string `json:"uri"`
		}{p.URI})
	}
	return jsonrpc.NewResult(id, struct{}{})
}

// maxCompletions is how many values completion/complete returns at most, as MCP allows.
const maxCompletions = 100

// completeParams are completion/complete's params.
type completeParams struct {
	Ref struct {
		Type string `json:"type"`
		Name string `json:"name"`
		URI  string `json:"uri"`
	} `json:"ref"`
	Argument struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"argument"`
}

// completion is completion/complete's answer.
type completion struct {
	Values  []string `json:"values"`
	Total   int      `json:"total"`
	HasMore bool     `json:"hasMore"`
}

// Complete answers completion/complete for a prompt's argument or a resource template's
// variable: the values the schema offers for that field (FieldRules.completions) that start
// with what was typed.
func (e *Entries) Complete(id, params json.RawMessage) *jsonrpc.Response {
	var p completeParams
	if params == nil || json.Unmarshal(params, &p) != nil || p.Argument.Name == "" {
		return e.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: completion/complete needs params.ref and params.argument with a name and a value", &guidance.Data{
			Hint: `Send {"ref":{"type":"ref/prompt","name":"..."},"argument":{"name":"...","value":"..."}}.`,
		})
	}
	var t *hootv1hoot.Tool
	switch p.Ref.Type {
	case "ref/prompt":
		t = e.prompt(p.Ref.Name)
	case "ref/resource":
		for _, rt := range e.templates {
			if rt.tool.URI == p.Ref.URI {
				t = rt.tool
			}
		}
	}
	if t == nil {
		return e.host.Fail(id, jsonrpc.CodeInvalidParams, "invalid params: no prompt or resource template matches the ref", &guidance.Data{
			Hint: "Name a prompt from prompts/list (ref/prompt) or a template from resources/templates/list (ref/resource).",
		})
	}
	values := []string{}
	if fd := fieldByName(t.NewRequest().ProtoReflect().Descriptor(), p.Argument.Name); fd != nil {
		rules, _ := proto.GetExtension(fd.Options(), hootv1.E_Field).(*hootv1.FieldRules)
		for _, v := range rules.GetCompletions() {
			if strings.HasPrefix(v, p.Argument.Value) {
				values = append(values, v)
			}
		}
	}
	c := completion{Values: values, Total: len(values)}
	if len(values) > maxCompletions {
		c.Values, c.HasMore = values[:maxCompletions], true
	}
	return jsonrpc.NewResult(id, struct {
		Completion completion `json:"completion"`
	}{c})
}

// fieldByName finds a field by its JSON name or its proto name.
func fieldByName(md protoreflect.MessageDescriptor, name string) protoreflect.FieldDescriptor {
	if fd := md.Fields().ByJSONName(name); fd != nil {
		return fd
	}
	return md.Fields().ByName(protoreflect.Name(name))
}

// fieldsOfType returns the values of the top-level fields of m whose message type is T, in
// field order.
func fieldsOfType[T proto.Message](m proto.Message) []T {
	var out []T
	var zero T
	want := zero.ProtoReflect().Descriptor().FullName()
	r := m.ProtoReflect()
	fields := r.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Message() == nil || fd.Message().FullName() != want || fd.IsMap() {
			continue
		}
		if !fd.IsList() {
			if r.Has(fd) {
				if x, ok := r.Get(fd).Message().Interface().(T); ok {
					out = append(out, x)
				}
			}
			continue
		}
		list := r.Get(fd).List()
		for j := range list.Len() {
			if x, ok := list.Get(j).Message().Interface().(T); ok {
				out = append(out, x)
			}
		}
	}
	return out
}

// HasResource reports whether a resource or template serves uri.
func (e *Entries) HasResource(uri string) bool {
	t, _, _ := e.findResource(uri)
	return t != nil
}
