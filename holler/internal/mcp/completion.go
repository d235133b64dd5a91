package mcp

import (
	"context"
	"encoding/json"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

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

// complete answers completion/complete for a prompt's argument or a resource template's
// variable: the values the schema offers for that field (FieldRules.completions) that start
// with what was typed.
func (s *Server) complete(_ context.Context, msg *message) *jsonrpc.Response {
	var p completeParams
	if msg.Params == nil || json.Unmarshal(msg.Params, &p) != nil || p.Argument.Name == "" {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: completion/complete needs params.ref and params.argument with a name and a value", &guidance.Data{
			Hint: `Send {"ref":{"type":"ref/prompt","name":"..."},"argument":{"name":"...","value":"..."}}.`,
		})
	}
	var t *hootv1hoot.Tool
	switch p.Ref.Type {
	case "ref/prompt":
		t = s.prompt(p.Ref.Name)
	case "ref/resource":
		for _, rt := range s.entries.templates {
			if rt.tool.URI == p.Ref.URI {
				t = rt.tool
			}
		}
	}
	if t == nil {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: no prompt or resource template matches the ref", &guidance.Data{
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
	return jsonrpc.NewResult(msg.ID, struct {
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
