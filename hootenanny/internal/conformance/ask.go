package conformance

import (
	"context"
	"fmt"
	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	"sort"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/types/known/structpb"
)

// The fixtures that ask the client something: to sample its model, or to ask the user.

// ask sends req to the client and turns a refusal into the tool's error.
func ask(ctx context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
	res, err := hooteproto.AskClient(ctx, req)
	if err != nil {
		return nil, err
	}
	if te := res.GetError(); te != nil {
		return nil, hooteproto.ErrorFromTool(te)
	}
	return res, nil
}

// TestSampling asks the client's model to answer the prompt.
func (Handler) TestSampling(ctx context.Context, req *conformancev1.ConformanceSamplingRequest) (*conformancev1.ConformanceContentResult, error) {
	res, err := ask(ctx, &hootv1.ClientRequest{Request: &hootv1.ClientRequest_Sampling{Sampling: &hootv1.SamplingRequest{
		Messages:  []*hootv1.SamplingMessage{{Role: hootv1.Role_ROLE_USER, Content: text(req.GetPrompt())}},
		MaxTokens: 100,
	}}})
	if err != nil {
		return nil, err
	}
	answer := res.GetSampling().GetContent().GetText()
	return blocks(text("LLM response: " + answer)), nil
}

// TestElicitation asks the user for a username and an email.
func (Handler) TestElicitation(ctx context.Context, req *conformancev1.ConformanceElicitationRequest) (*conformancev1.ConformanceContentResult, error) {
	res, err := elicit(ctx, req.GetMessage(), map[string]any{
		"type": "object",
		"properties": map[string]any{
			"username": map[string]any{"type": "string", "description": "User's response"},
			"email":    map[string]any{"type": "string", "description": "User's email address"},
		},
		"required": []any{"username", "email"},
	})
	if err != nil {
		return nil, err
	}
	return blocks(text("User response: " + describe(res))), nil
}

// TestElicitationSep1034Defaults asks for a form whose fields all have defaults.
func (Handler) TestElicitationSep1034Defaults(ctx context.Context, _ *conformancev1.ConformanceElicitationDefaultsRequest) (*conformancev1.ConformanceContentResult, error) {
	res, err := elicit(ctx, "Please review and update the form fields with defaults", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name":     map[string]any{"type": "string", "description": "User name", "default": "John Doe"},
			"age":      map[string]any{"type": "integer", "description": "User age", "default": 30},
			"score":    map[string]any{"type": "number", "description": "User score", "default": 95.5},
			"status":   map[string]any{"type": "string", "description": "User status", "enum": []any{"active", "inactive", "pending"}, "default": "active"},
			"verified": map[string]any{"type": "boolean", "description": "Verification status", "default": true},
		},
	})
	if err != nil {
		return nil, err
	}
	return blocks(text("Elicitation completed: " + describe(res))), nil
}

// TestElicitationSep1330Enums asks for a form with every kind of enum field.
func (Handler) TestElicitationSep1330Enums(ctx context.Context, _ *conformancev1.ConformanceElicitationEnumsRequest) (*conformancev1.ConformanceContentResult, error) {
	titled := func(prefix string, titles ...string) []any {
		out := make([]any, len(titles))
		for i, t := range titles {
			out[i] = map[string]any{"const": fmt.Sprintf("%s%d", prefix, i+1), "title": t}
		}
		return out
	}
	res, err := elicit(ctx, "Please select options from the enum fields", map[string]any{
		"type": "object",
		"properties": map[string]any{
			"untitledSingle": map[string]any{"type": "string", "description": "Select one option", "enum": []any{"option1", "option2", "option3"}},
			"titledSingle": map[string]any{"type": "string", "description": "Select one option with titles",
				"oneOf": titled("value", "First Option", "Second Option", "Third Option")},
			"legacyEnum": map[string]any{"type": "string", "description": "Select one option (legacy)",
				"enum": []any{"opt1", "opt2", "opt3"}, "enumNames": []any{"Option One", "Option Two", "Option Three"}},
			"untitledMulti": map[string]any{"type": "array", "description": "Select multiple options",
				"items": map[string]any{"type": "string", "enum": []any{"option1", "option2", "option3"}}},
			"titledMulti": map[string]any{"type": "array", "description": "Select multiple options with titles",
				"items": map[string]any{"anyOf": titled("value", "First Choice", "Second Choice", "Third Choice")}},
		},
	})
	if err != nil {
		return nil, err
	}
	return blocks(text("Elicitation completed: " + describe(res))), nil
}

// elicit asks the user to fill in the form schema.
func elicit(ctx context.Context, message string, schema map[string]any) (*hootv1.ElicitationResult, error) {
	s, err := structpb.NewStruct(schema)
	if err != nil {
		return nil, hooteproto.WrapError(hooteproto.CodeInternal, err)
	}
	res, err := ask(ctx, &hootv1.ClientRequest{Request: &hootv1.ClientRequest_Elicitation{Elicitation: &hootv1.ElicitationRequest{
		Message: message, RequestedSchema: s,
	}}})
	if err != nil {
		return nil, err
	}
	return res.GetElicitation(), nil
}

// describe writes the user's answer for a person: the action and the values, by field name.
func describe(r *hootv1.ElicitationResult) string {
	action := strings.ToLower(strings.TrimPrefix(r.GetAction().String(), "ELICITATION_ACTION_"))
	names := make([]string, 0, len(r.GetContent()))
	for k := range r.GetContent() {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		v := r.GetContent()[k]
		var s string
		switch x := v.GetValue().(type) {
		case *hootv1.FormValue_Text:
			s = fmt.Sprintf("%q", x.Text)
		case *hootv1.FormValue_Number:
			s = fmt.Sprint(x.Number)
		case *hootv1.FormValue_Flag:
			s = fmt.Sprint(x.Flag)
		case *hootv1.FormValue_Choices:
			s = fmt.Sprintf("%q", x.Choices.GetValues())
		}
		parts[i] = k + ": " + s
	}
	return "action=" + action + ", content={" + strings.Join(parts, ", ") + "}"
}
