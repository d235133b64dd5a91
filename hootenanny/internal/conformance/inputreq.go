package conformance

import (
	"context"
	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/types/known/structpb"
)

// The fixtures of MCP 2026-07-28's input_required results (multi round-trip requests). Each
// really asks through AskClient: in 2026-07-28 the gateway turns the questions into an
// input_required result and runs the handler again with the answers; before, it asks the client
// with requests. The keys and texts are the ones the suite expects.

// formQuestion returns an elicitation under key asking message with a form of one required
// field of type typ.
func formQuestion(key, message, field, typ string) *hootv1.ClientRequest {
	schema, _ := structpb.NewStruct(map[string]any{ // only strings, maps and lists: always converts
		"type":       "object",
		"properties": map[string]any{field: map[string]any{"type": typ}},
		"required":   []any{field},
	})
	return &hootv1.ClientRequest{Key: key, Request: &hootv1.ClientRequest_Elicitation{Elicitation: &hootv1.ElicitationRequest{
		Message: message, RequestedSchema: schema,
	}}}
}

// samplingQuestion returns a sampling request under key with one user message.
func samplingQuestion(key, prompt string, maxTokens uint32) *hootv1.ClientRequest {
	return &hootv1.ClientRequest{Key: key, Request: &hootv1.ClientRequest_Sampling{Sampling: &hootv1.SamplingRequest{
		Messages:  []*hootv1.SamplingMessage{{Role: hootv1.Role_ROLE_USER, Content: text(prompt)}},
		MaxTokens: maxTokens,
	}}}
}

// rootsQuestion returns a roots/list request under key.
func rootsQuestion(key string) *hootv1.ClientRequest {
	return &hootv1.ClientRequest{Key: key, Request: &hootv1.ClientRequest_Roots{Roots: &hootv1.RootsRequest{}}}
}

// askAll asks reqs at once and turns the first refusal into the tool's error.
func askAll(ctx context.Context, reqs ...*hootv1.ClientRequest) ([]*hootv1.ClientResponse, error) {
	res, err := hooteproto.AskClientAll(ctx, reqs...)
	if err != nil {
		return nil, err
	}
	for _, r := range res {
		if te := r.GetError(); te != nil {
			return nil, hooteproto.ErrorFromTool(te)
		}
	}
	return res, nil
}

// field returns the text of a form's field, or "" when the user did not accept or left it out.
func field(r *hootv1.ElicitationResult, name string) (string, bool) {
	if r.GetAction() != hootv1.ElicitationAction_ELICITATION_ACTION_ACCEPT {
		return "", false
	}
	v, ok := r.GetContent()[name]
	if !ok {
		return "", false
	}
	switch x := v.GetValue().(type) {
	case *hootv1.FormValue_Text:
		return x.Text, true
	case *hootv1.FormValue_Flag:
		if x.Flag {
			return "true", true
		}
		return "false", true
	}
	return "", false
}

// declined is the answer of a fixture whose form the user did not fill in.
func declined(r *hootv1.ElicitationResult) *conformancev1.ConformanceContentResult {
	return blocks(text("No answer: the user chose " + strings.ToLower(strings.TrimPrefix(r.GetAction().String(), "ELICITATION_ACTION_"))))
}

// rootList writes roots for a person.
func rootList(r *hootv1.RootsResult) string {
	if len(r.GetRoots()) == 0 {
		return "no roots"
	}
	parts := make([]string, len(r.GetRoots()))
	for i, root := range r.GetRoots() {
		parts[i] = root.GetUri()
		if root.GetName() != "" {
			parts[i] += " (" + root.GetName() + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// greet asks for the user's name under user_name and greets them.
func greet(ctx context.Context) (*conformancev1.ConformanceContentResult, error) {
	res, err := askAll(ctx, formQuestion("user_name", "What is your name?", "name", "string"))
	if err != nil {
		return nil, err
	}
	name, ok := field(res[0].GetElicitation(), "name")
	if !ok {
		return declined(res[0].GetElicitation()), nil
	}
	return blocks(text("Hello, " + name + "!")), nil
}

// TestInputRequiredResultElicitation asks the user's name and greets them.
func (Handler) TestInputRequiredResultElicitation(ctx context.Context, _ *conformancev1.ConformanceInputRequiredElicitationRequest) (*conformancev1.ConformanceContentResult, error) {
	return greet(ctx)
}

// TestStreamingElicitation asks the user's name while its response may stream.
func (Handler) TestStreamingElicitation(ctx context.Context, _ *conformancev1.ConformanceStreamingElicitationRequest) (*conformancev1.ConformanceContentResult, error) {
	return greet(ctx)
}

// TestInputRequiredResultSampling asks the client's model for the capital of France.
func (Handler) TestInputRequiredResultSampling(ctx context.Context, _ *conformancev1.ConformanceInputRequiredSamplingRequest) (*conformancev1.ConformanceContentResult, error) {
	res, err := askAll(ctx, samplingQuestion("capital_question", "What is the capital of France?", 100))
	if err != nil {
		return nil, err
	}
	return blocks(text("The model answered: " + res[0].GetSampling().GetContent().GetText())), nil
}

// TestMissingCapability needs the client's model: without sampling the call fails.
func (Handler) TestMissingCapability(ctx context.Context, _ *conformancev1.ConformanceMissingCapabilityRequest) (*conformancev1.ConformanceContentResult, error) {
	res, err := askAll(ctx, samplingQuestion("capital_question", "What is the capital of France?", 100))
	if err != nil {
		return nil, err
	}
	return blocks(text("The model answered: " + res[0].GetSampling().GetContent().GetText())), nil
}

// TestInputRequiredResultListRoots asks the client for its roots.
func (Handler) TestInputRequiredResultListRoots(ctx context.Context, _ *conformancev1.ConformanceInputRequiredListRootsRequest) (*conformancev1.ConformanceContentResult, error) {
	res, err := askAll(ctx, rootsQuestion("client_roots"))
	if err != nil {
		return nil, err
	}
	return blocks(text("The client's roots: " + rootList(res[0].GetRoots()))), nil
}

// confirmation asks the user to confirm under the key confirm.
func confirmation(ctx context.Context) (*conformancev1.ConformanceContentResult, error) {
	res, err := askAll(ctx, formQuestion("confirm", "Please confirm", "ok", "boolean"))
	if err != nil {
		return nil, err
	}
	ok, answered := field(res[0].GetElicitation(), "ok")
	if !answered {
		return declined(res[0].GetElicitation()), nil
	}
	return blocks(text("state-ok: the confirmation came back with the request's state (ok=" + ok + ")")), nil
}

// TestInputRequiredResultRequestState asks the user to confirm.
func (Handler) TestInputRequiredResultRequestState(ctx context.Context, _ *conformancev1.ConformanceInputRequiredRequestStateRequest) (*conformancev1.ConformanceContentResult, error) {
	return confirmation(ctx)
}

// TestInputRequiredResultTamperedState asks the user to confirm; the gateway checks the state.
func (Handler) TestInputRequiredResultTamperedState(ctx context.Context, _ *conformancev1.ConformanceInputRequiredTamperedStateRequest) (*conformancev1.ConformanceContentResult, error) {
	return confirmation(ctx)
}

// TestInputRequiredResultMultipleInputs asks three questions in one round.
func (Handler) TestInputRequiredResultMultipleInputs(ctx context.Context, _ *conformancev1.ConformanceInputRequiredMultipleInputsRequest) (*conformancev1.ConformanceContentResult, error) {
	res, err := askAll(ctx,
		formQuestion("user_name", "What is your name?", "name", "string"),
		samplingQuestion("greeting", "Generate a greeting", 50),
		rootsQuestion("client_roots"))
	if err != nil {
		return nil, err
	}
	name, ok := field(res[0].GetElicitation(), "name")
	if !ok {
		name = "(no name given)"
	}
	return blocks(text("Name: " + name + "; greeting: " + res[1].GetSampling().GetContent().GetText() +
		"; roots: " + rootList(res[2].GetRoots()))), nil
}

// TestInputRequiredResultMultiRound asks step1, and only once it has its answer step2.
func (Handler) TestInputRequiredResultMultiRound(ctx context.Context, _ *conformancev1.ConformanceInputRequiredMultiRoundRequest) (*conformancev1.ConformanceContentResult, error) {
	first, err := askAll(ctx, formQuestion("step1", "Step 1: What is your name?", "name", "string"))
	if err != nil {
		return nil, err
	}
	name, ok := field(first[0].GetElicitation(), "name")
	if !ok {
		return declined(first[0].GetElicitation()), nil
	}
	second, err := askAll(ctx, formQuestion("step2", "Step 2: What is your favorite color?", "color", "string"))
	if err != nil {
		return nil, err
	}
	color, ok := field(second[0].GetElicitation(), "color")
	if !ok {
		return declined(second[0].GetElicitation()), nil
	}
	return blocks(text(name + " likes " + color + ".")), nil
}

// TestInputRequiredResultCapabilities asks the user and the client's model what they can
// answer: a question the client did not declare the capability for is refused, and the fixture
// does without it, as long as one of the two can be asked.
func (Handler) TestInputRequiredResultCapabilities(ctx context.Context, _ *conformancev1.ConformanceInputRequiredCapabilitiesRequest) (*conformancev1.ConformanceContentResult, error) {
	res, err := hooteproto.AskClientAll(ctx,
		formQuestion("user_name", "What is your name?", "name", "string"),
		samplingQuestion("capital_question", "What is the capital of France?", 100))
	if err != nil {
		return nil, err
	}
	var parts []string
	var refusals []error
	if e := res[0].GetError(); e != nil {
		refusals = append(refusals, hooteproto.ErrorFromTool(e))
	} else if name, ok := field(res[0].GetElicitation(), "name"); ok {
		parts = append(parts, "name: "+name)
	}
	if e := res[1].GetError(); e != nil {
		refusals = append(refusals, hooteproto.ErrorFromTool(e))
	} else {
		parts = append(parts, "model: "+res[1].GetSampling().GetContent().GetText())
	}
	// A question whose answer is awaited comes back refused too; the gateway then asks it,
	// whatever this returns.
	if len(refusals) == 2 {
		return nil, refusals[0]
	}
	return blocks(text("Answered what the client could: " + strings.Join(parts, "; "))), nil
}

// TestInputRequiredResultPrompt asks the user for context, and writes a prompt with it.
func (Handler) TestInputRequiredResultPrompt(ctx context.Context, _ *conformancev1.ConformanceInputRequiredPromptRequest) (*conformancev1.ConformancePromptResult, error) {
	res, err := askAll(ctx, formQuestion("user_context", "What context should the prompt use?", "context", "string"))
	if err != nil {
		return nil, err
	}
	context, ok := field(res[0].GetElicitation(), "context")
	if !ok {
		context = "none given"
	}
	return &conformancev1.ConformancePromptResult{Messages: []*hootv1.PromptMessage{{
		Role: hootv1.Role_ROLE_USER, Content: text("Answer with this context in mind: " + context),
	}}}, nil
}
