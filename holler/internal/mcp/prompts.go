package mcp

import (
	"context"
	"encoding/json"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/arguments"
	"github.com/hootenanny/hoot/holler/internal/mcp/content"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
)

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

// listPrompts answers prompts/list: the prompts whose service has a live worker, in one page.
func (s *Server) listPrompts(_ context.Context, msg *message) *jsonrpc.Response {
	out := []promptDescription{}
	for _, t := range s.entries.prompts {
		if !s.liveService(t.Service) {
			continue
		}
		out = append(out, promptDescription{Name: t.Name, Title: t.Title, Description: t.Description, Arguments: promptArguments(t)})
	}
	return jsonrpc.NewResult(msg.ID, struct {
		Prompts []promptDescription `json:"prompts"`
	}{out})
}

// prompt returns the prompt named name.
func (s *Server) prompt(name string) *hootv1hoot.Tool {
	for _, t := range s.entries.prompts {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// getPrompt answers prompts/get: the prompt's arguments become its request, and the
// PromptMessage fields of the worker's answer its messages.
func (s *Server) getPrompt(ctx context.Context, rq methodRequest) *jsonrpc.Response {
	msg := rq.msg
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	}
	if msg.Params == nil || json.Unmarshal(msg.Params, &p) != nil || p.Name == "" {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: prompts/get needs params.name, the name of a prompt, and params.arguments, an object of strings", &guidance.Data{
			Hint: "List the prompts with prompts/list.",
		})
	}
	t := s.prompt(p.Name)
	if t == nil {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "unknown prompt "+wording.Quote(p.Name), &guidance.Data{
			Hint: "List the prompts with prompts/list.",
		})
	}
	req, bad := arguments.Decode(t, p.Arguments)
	if bad != nil {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid arguments for prompt "+t.Name+": "+bad.Message, &guidance.Data{
			Hint: bad.Hint, Field: bad.Field, Expected: bad.Expected, Got: bad.Got, Usage: t.Usage,
		})
	}
	m, fail := s.callEntry(ctx, rq, t, req)
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
	return jsonrpc.NewResult(msg.ID, struct {
		Description string          `json:"description,omitempty"`
		Messages    []promptMessage `json:"messages"`
	}{t.Description, messages})
}
