// Package questions is the codec of a worker's questions to the client and of the client's
// answers: a hoot.v1.ClientRequest (sampling, a form, the roots) as an MCP request, in the
// older eras' form sent on a call's stream (Params) or in 2026-07-28's form carried in an
// input_required result (Of, InputRequired); and the client's answer, read strictly and
// bounded, back into a hoot.v1.ClientResponse (Decode, Response). It also reads the members of
// a retry that carry answers (ReadRetry) and names the client capability each question needs
// (Capability). It knows nothing of sessions, states or the server's flow: what to ask, when,
// and what to do with a refusal is package mcp's.
package questions

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/content"
)

// The methods of the questions a server asks its client.
const (
	MethodCreateMessage = "sampling/createMessage"
	MethodElicit        = "elicitation/create"
	MethodRootsList     = "roots/list"
)

// The JSON-RPC members of the 2026-07-28 era's input round trip.
const (
	// ResultTypeInputRequired is the resultType of a result that asks questions.
	ResultTypeInputRequired = "input_required"
	// ParamInputResponses is the member of a retry's params that carries the answers.
	ParamInputResponses = "inputResponses"
	// ParamRequestState is the member of a retry's params that carries the state, unchanged.
	ParamRequestState = "requestState"
)

// InputRequired is the result of resultType "input_required".
type InputRequired struct {
	ResultType    string             `json:"resultType"`
	InputRequests map[string]Request `json:"inputRequests,omitempty"`
	RequestState  string             `json:"requestState,omitempty"`
}

// A Request is one request of the server to the client carried in a result: a method and its
// params, without jsonrpc and id.
type Request struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

// Elicit are elicitation/create's params.
type Elicit struct {
	// Mode is "form" in 2026-07-28, and left out before.
	Mode            string         `json:"mode,omitempty"`
	Message         string         `json:"message"`
	RequestedSchema map[string]any `json:"requestedSchema"`
}

// samplingMessage is one message of sampling/createMessage.
type samplingMessage struct {
	Role    string        `json:"role"`
	Content content.Block `json:"content"`
}

// Params returns the method and params of req as MCP has them up to 2025-11-25; the method is
// "" for an empty request.
func Params(req *hootv1.ClientRequest) (string, any) {
	switch r := req.GetRequest().(type) {
	case *hootv1.ClientRequest_Sampling:
		msgs := []samplingMessage{}
		for _, m := range r.Sampling.GetMessages() {
			blocks := content.Append(nil, m.GetContent().ProtoReflect())
			if len(blocks) == 0 {
				continue
			}
			msgs = append(msgs, samplingMessage{Role: roleName(m.GetRole()), Content: blocks[0]})
		}
		return MethodCreateMessage, struct {
			Messages     []samplingMessage `json:"messages"`
			MaxTokens    uint32            `json:"maxTokens"`
			SystemPrompt string            `json:"systemPrompt,omitempty"`
		}{msgs, r.Sampling.GetMaxTokens(), r.Sampling.GetSystemPrompt()}
	case *hootv1.ClientRequest_Elicitation:
		schema := map[string]any{"type": "object", "properties": map[string]any{}}
		if r.Elicitation.GetRequestedSchema() != nil {
			schema = r.Elicitation.GetRequestedSchema().AsMap()
		}
		return MethodElicit, Elicit{Message: r.Elicitation.GetMessage(), RequestedSchema: schema}
	case *hootv1.ClientRequest_Roots:
		return MethodRootsList, struct{}{}
	}
	return "", nil
}

// roleName is a Role's name in MCP.
func roleName(r hootv1.Role) string {
	if r == hootv1.Role_ROLE_ASSISTANT {
		return "assistant"
	}
	return "user"
}

// Of returns the question req as a 2026-07-28 inputRequests value; ok is false for an empty
// request.
func Of(req *hootv1.ClientRequest) (q Request, ok bool) {
	method, params := Params(req)
	if method == "" {
		return Request{}, false
	}
	if e, ok := params.(Elicit); ok {
		// 2026-07-28 names the mode; this server asks only with forms.
		e.Mode = "form"
		params = e
	}
	return Request{Method: method, Params: params}, true
}

// Digest returns a digest of q that tells two questions apart: the same method and params give
// the same digest.
func Digest(q Request) string {
	b, _ := json.Marshal(q) // what Params makes always encodes
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:18])
}

// Capability returns the client capability that a question of method needs, as
// error.data.requiredCapabilities of MissingRequiredClientCapability names it; name is "" for a
// method that is not a question.
func Capability(method string) (name string, value any) {
	switch method {
	case MethodCreateMessage:
		return "sampling", struct{}{}
	case MethodRootsList:
		return "roots", struct{}{}
	case MethodElicit:
		return "elicitation", map[string]any{"form": struct{}{}}
	}
	return "", nil
}
