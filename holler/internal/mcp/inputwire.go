package mcp

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"strconv"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

// The JSON of MCP 2026-07-28's questions in results (inputRequests) and answers in params
// (inputResponses), and which client capability each question needs: small functions that any
// request which carries questions (tools/call, prompts/get, resources/read, a task's
// tasks/get and tasks/update) can share.

// The JSON-RPC members of the modern era's input round trip, and the roots method.
const (
	resultTypeInputRequired = "input_required"
	paramInputResponses     = "inputResponses"
	paramRequestState       = "requestState"

	methodRootsList = "roots/list"
)

// Bounds of the answers a request carries.
const (
	// maxInputResponses bounds the answers of one request, and the questions of one round.
	maxInputResponses = 32
	// maxInputResponseBytes bounds one answer.
	maxInputResponseBytes = 32 << 10
)

// codeMissingCapability is MCP 2026-07-28's MissingRequiredClientCapability: the request needs a
// capability the client did not declare in it.
const codeMissingCapability = -32021

// inputRequiredResult is the result of resultType "input_required".
type inputRequiredResult struct {
	ResultType    string                  `json:"resultType"`
	InputRequests map[string]inputRequest `json:"inputRequests,omitempty"`
	RequestState  string                  `json:"requestState,omitempty"`
}

// An inputRequest is one request of the server to the client carried in a result: a method and
// its params, without jsonrpc and id.
type inputRequest struct {
	Method string `json:"method"`
	Params any    `json:"params"`
}

// inputRequestOf returns the question req as an inputRequests value; ok is false for an empty
// request.
func inputRequestOf(req *hootv1.ClientRequest) (inputRequest, bool) {
	method, params := clientRequestParams(req)
	if method == "" {
		return inputRequest{}, false
	}
	if e, ok := params.(elicitParams); ok {
		// 2026-07-28 names the mode; this server asks only with forms.
		e.Mode = "form"
		params = e
	}
	return inputRequest{Method: method, Params: params}, true
}

// questionDigest returns a digest of q that tells two questions apart: the same method and
// params give the same digest.
func questionDigest(q inputRequest) string {
	b, _ := json.Marshal(q) // what clientRequestParams makes always encodes
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:18])
}

// requiredCapability returns the client capability that a question of method needs, as
// error.data.requiredCapabilities of -32021 names it.
func requiredCapability(method string) (name string, value any) {
	switch method {
	case methodCreateMessage:
		return "sampling", struct{}{}
	case methodRootsList:
		return "roots", struct{}{}
	case methodElicit:
		return "elicitation", map[string]any{"form": struct{}{}}
	}
	return "", nil
}

// canAnswer reports whether a client that declared c can answer a question of method: a form
// needs elicitation in form mode (an empty elicitation object is form), sampling needs sampling
// and roots/list needs roots.
func (c clientCapabilities) canAnswer(method string) bool {
	switch method {
	case methodCreateMessage:
		return c.sampling
	case methodRootsList:
		return c.roots
	case methodElicit:
		return c.elicitForm
	}
	return false
}

// inputParams are the members of a retry's params that carry answers.
type inputParams struct {
	// state is the requestState; hasState is false when it is absent or null.
	state    string
	hasState bool
	// responses are the answers by key, each a JSON value; nil when inputResponses is absent or
	// null.
	responses map[string]json.RawMessage
}

// readInputParams reads requestState and inputResponses from a request's params, bounded: a
// state that is not a string, answers that are not an object, or too many or too large answers
// are a malformedAnswer.
func readInputParams(params json.RawMessage) (inputParams, error) {
	var out inputParams
	if !bytes.Contains(params, []byte(paramRequestState)) && !bytes.Contains(params, []byte(paramInputResponses)) {
		return out, nil // a first call: most are
	}
	var p struct {
		State     json.RawMessage `json:"requestState"`
		Responses json.RawMessage `json:"inputResponses"`
	}
	if json.Unmarshal(params, &p) != nil {
		return out, &malformedAnswer{why: "params is not an object", field: "params"}
	}
	switch rawjson.Kind(p.State) {
	case "nothing", "null":
	case "string":
		if len(p.State) > reqstate.MaxBytes+2 || json.Unmarshal(p.State, &out.state) != nil {
			return out, &malformedAnswer{why: "params." + paramRequestState + " is longer than any requestState this server mints", field: "params." + paramRequestState}
		}
		out.hasState = true
	default:
		return out, &malformedAnswer{why: "params." + paramRequestState + " must be a string, the requestState of the last input_required result unchanged", field: "params." + paramRequestState}
	}
	switch rawjson.Kind(p.Responses) {
	case "nothing", "null":
		return out, nil
	case "object":
	default:
		return out, &malformedAnswer{why: "params." + paramInputResponses + " must be an object of answers by the keys of inputRequests", field: "params." + paramInputResponses}
	}
	if err := json.Unmarshal(p.Responses, &out.responses); err != nil {
		return out, &malformedAnswer{why: "params." + paramInputResponses + " is not a readable object", field: "params." + paramInputResponses}
	}
	if len(out.responses) > maxInputResponses {
		return out, &malformedAnswer{why: "params." + paramInputResponses + " has " + strconv.Itoa(len(out.responses)) + " answers, over the limit of " + strconv.Itoa(maxInputResponses), field: "params." + paramInputResponses}
	}
	for k, v := range out.responses {
		if len(v) > maxInputResponseBytes {
			field := "params." + paramInputResponses + "." + wording.Short(k)
			return out, &malformedAnswer{why: field + " is over the limit of " + strconv.Itoa(maxInputResponseBytes) + " bytes", field: field}
		}
	}
	return out, nil
}

// decodeInputResponse reads raw, the client's answer to a question of method, strictly: an
// answer of the wrong shape is an error that says what the shape is.
func decodeInputResponse(method string, raw json.RawMessage) (*hootv1.ClientResponse, error) {
	if rawjson.Kind(raw) != "object" {
		return nil, answerShapeError(method)
	}
	switch method {
	case methodElicit:
		var r struct {
			Action  string                     `json:"action"`
			Content map[string]json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &r) != nil {
			return nil, answerShapeError(method)
		}
		res := &hootv1.ElicitationResult{Content: make(map[string]*hootv1.FormValue, len(r.Content))}
		switch r.Action {
		case "accept":
			res.Action = hootv1.ElicitationAction_ELICITATION_ACTION_ACCEPT
		case "decline":
			res.Action = hootv1.ElicitationAction_ELICITATION_ACTION_DECLINE
		case "cancel":
			res.Action = hootv1.ElicitationAction_ELICITATION_ACTION_CANCEL
		default:
			return nil, answerShapeError(method)
		}
		for k, v := range r.Content {
			if fv := formValue(v); fv != nil {
				res.Content[k] = fv
			}
		}
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Elicitation{Elicitation: res}}, nil
	case methodCreateMessage:
		var r struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			Model      string          `json:"model"`
			StopReason string          `json:"stopReason"`
		}
		if json.Unmarshal(raw, &r) != nil || rawjson.Kind(r.Content) != "object" {
			return nil, answerShapeError(method)
		}
		role := hootv1.Role_ROLE_ASSISTANT
		if r.Role == "user" {
			role = hootv1.Role_ROLE_USER
		}
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Sampling{Sampling: &hootv1.SamplingResult{
			Role: role, Content: parseBlock(r.Content), Model: r.Model, StopReason: r.StopReason,
		}}}, nil
	case methodRootsList:
		roots, ok := decodeRoots(raw)
		if !ok {
			return nil, answerShapeError(method)
		}
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Roots{Roots: roots}}, nil
	}
	return nil, answerShapeError(method)
}

// decodeRoots reads a roots/list result: {"roots":[{"uri":...,"name"?:...}]}.
func decodeRoots(raw json.RawMessage) (*hootv1.RootsResult, bool) {
	var r struct {
		Roots []struct {
			URI  *string `json:"uri"`
			Name string  `json:"name"`
		} `json:"roots"`
	}
	if json.Unmarshal(raw, &r) != nil || r.Roots == nil {
		return nil, false
	}
	out := &hootv1.RootsResult{}
	for _, root := range r.Roots {
		if root.URI == nil {
			return nil, false
		}
		out.Roots = append(out.Roots, &hootv1.Root{Uri: *root.URI, Name: root.Name})
	}
	return out, true
}

// answerShapeError says what an answer to a question of method must look like.
func answerShapeError(method string) error {
	want := "the result of " + method
	switch method {
	case methodElicit:
		want = `an elicitation result: {"action":"accept"|"decline"|"cancel","content":{...}}`
	case methodCreateMessage:
		want = `a sampling result: {"role":"assistant","content":{"type":"text","text":...},"model":...}`
	case methodRootsList:
		want = `a roots/list result: {"roots":[{"uri":"file:///...","name":...}]}`
	}
	return hooteproto.NewError(hooteproto.CodeInvalidArgument, "must be "+want)
}
