package questions

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

// Bounds of the answers a request carries.
const (
	// MaxResponses bounds the answers of one request, and the questions of one round.
	MaxResponses = 32
	// MaxResponseBytes bounds one answer.
	MaxResponseBytes = 32 << 10
)

// A Malformed is an inputResponses or requestState that cannot be read; the request is
// answered -32602.
type Malformed struct {
	// Why says what is wrong, naming the member.
	Why string
	// Field is the member of params it is about.
	Field string
}

func (e *Malformed) Error() string { return e.Why }

// A Retry holds the members of a request's params that carry answers.
type Retry struct {
	// State is the requestState; HasState is false when it is absent or null.
	State    string
	HasState bool
	// Responses are the answers by key, each a JSON value; nil when inputResponses is absent
	// or null.
	Responses map[string]json.RawMessage
}

// ReadRetry reads requestState and inputResponses from a request's params, bounded: a state
// that is not a string or is longer than any state reqstate mints, answers that are not an
// object, or too many or too large answers are a *Malformed.
func ReadRetry(params json.RawMessage) (Retry, error) {
	if !bytes.Contains(params, []byte(ParamRequestState)) && !bytes.Contains(params, []byte(ParamInputResponses)) {
		// A first call: most are. (Returning before out exists keeps this path from allocating
		// out, which the reading below makes escape.)
		return Retry{}, nil
	}
	var out Retry
	var p struct {
		State     json.RawMessage `json:"requestState"`
		Responses json.RawMessage `json:"inputResponses"`
	}
	if json.Unmarshal(params, &p) != nil {
		return out, &Malformed{Why: "params is not an object", Field: "params"}
	}
	switch rawjson.Kind(p.State) {
	case "nothing", "null":
	case "string":
		if len(p.State) > reqstate.MaxBytes+2 || json.Unmarshal(p.State, &out.State) != nil {
			return out, &Malformed{Why: "params." + ParamRequestState + " is longer than any requestState this server mints", Field: "params." + ParamRequestState}
		}
		out.HasState = true
	default:
		return out, &Malformed{Why: "params." + ParamRequestState + " must be a string, the requestState of the last input_required result unchanged", Field: "params." + ParamRequestState}
	}
	switch rawjson.Kind(p.Responses) {
	case "nothing", "null":
		return out, nil
	case "object":
	default:
		return out, &Malformed{Why: "params." + ParamInputResponses + " must be an object of answers by the keys of inputRequests", Field: "params." + ParamInputResponses}
	}
	if err := json.Unmarshal(p.Responses, &out.Responses); err != nil {
		return out, &Malformed{Why: "params." + ParamInputResponses + " is not a readable object", Field: "params." + ParamInputResponses}
	}
	if len(out.Responses) > MaxResponses {
		return out, &Malformed{Why: "params." + ParamInputResponses + " has " + strconv.Itoa(len(out.Responses)) + " answers, over the limit of " + strconv.Itoa(MaxResponses), Field: "params." + ParamInputResponses}
	}
	for k, v := range out.Responses {
		if len(v) > MaxResponseBytes {
			field := "params." + ParamInputResponses + "." + wording.Short(k)
			return out, &Malformed{Why: field + " is over the limit of " + strconv.Itoa(MaxResponseBytes) + " bytes", Field: field}
		}
	}
	return out, nil
}

// Response turns the client's response to req (the result member, or the error member when
// the client refused) into its typed form; a refusal or an answer that does not read is the
// response's error.
func Response(req *hootv1.ClientRequest, result, errMember json.RawMessage) *hootv1.ClientResponse {
	fail := func(e *hooteproto.Error) *hootv1.ClientResponse {
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Error{Error: hooteproto.ToolErrorOf(e)}}
	}
	if errMember != nil {
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(errMember, &e)
		return fail(hooteproto.NewError(hooteproto.CodeUnavailable, "the client refused the request: "+e.Message))
	}
	method, _ := Params(req)
	if method == "" {
		return fail(hooteproto.NewError(hooteproto.CodeInternal, "the request for the client is empty"))
	}
	// The answer is read as strictly in the older eras as in 2026-07-28.
	res, err := Decode(method, result)
	if err != nil {
		return fail(hooteproto.NewError(hooteproto.CodeInternal, "the client's answer to "+method+" is malformed: "+err.Error()))
	}
	return res
}

// Decode reads raw, the client's answer to a question of method, strictly: an answer of the
// wrong shape is an error that says what the shape is.
func Decode(method string, raw json.RawMessage) (*hootv1.ClientResponse, error) {
	if rawjson.Kind(raw) != "object" {
		return nil, shapeError(method)
	}
	switch method {
	case MethodElicit:
		var r struct {
			Action  string                     `json:"action"`
			Content map[string]json.RawMessage `json:"content"`
		}
		if json.Unmarshal(raw, &r) != nil {
			return nil, shapeError(method)
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
			return nil, shapeError(method)
		}
		for k, v := range r.Content {
			if fv := formValue(v); fv != nil {
				res.Content[k] = fv
			}
		}
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Elicitation{Elicitation: res}}, nil
	case MethodCreateMessage:
		var r struct {
			Role       string          `json:"role"`
			Content    json.RawMessage `json:"content"`
			Model      string          `json:"model"`
			StopReason string          `json:"stopReason"`
		}
		if json.Unmarshal(raw, &r) != nil || rawjson.Kind(r.Content) != "object" {
			return nil, shapeError(method)
		}
		role := hootv1.Role_ROLE_ASSISTANT
		if r.Role == "user" {
			role = hootv1.Role_ROLE_USER
		}
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Sampling{Sampling: &hootv1.SamplingResult{
			Role: role, Content: parseBlock(r.Content), Model: r.Model, StopReason: r.StopReason,
		}}}, nil
	case MethodRootsList:
		roots, ok := decodeRoots(raw)
		if !ok {
			return nil, shapeError(method)
		}
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Roots{Roots: roots}}, nil
	}
	return nil, shapeError(method)
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

// shapeError says what an answer to a question of method must look like.
func shapeError(method string) error {
	want := "the result of " + method
	switch method {
	case MethodElicit:
		want = `an elicitation result: {"action":"accept"|"decline"|"cancel","content":{...}}`
	case MethodCreateMessage:
		want = `a sampling result: {"role":"assistant","content":{"type":"text","text":...},"model":...}`
	case MethodRootsList:
		want = `a roots/list result: {"roots":[{"uri":"file:///...","name":...}]}`
	}
	return hooteproto.NewError(hooteproto.CodeInvalidArgument, "must be "+want)
}

// parseBlock reads a text, image or audio content block; anything else becomes nil.
func parseBlock(raw json.RawMessage) *hootv1.Content {
	var b struct {
		Type     string `json:"type"`
		Text     string `json:"text"`
		Data     string `json:"data"`
		MimeType string `json:"mimeType"`
	}
	if json.Unmarshal(raw, &b) != nil {
		return nil
	}
	switch b.Type {
	case "text":
		return &hootv1.Content{Block: &hootv1.Content_Text{Text: b.Text}}
	case "image", "audio":
		data, err := base64.StdEncoding.DecodeString(b.Data)
		if err != nil {
			return nil
		}
		m := &hootv1.Media{MimeType: b.MimeType, Data: data}
		if b.Type == "image" {
			return &hootv1.Content{Block: &hootv1.Content_Image{Image: m}}
		}
		return &hootv1.Content{Block: &hootv1.Content_Audio{Audio: m}}
	}
	return nil
}

// formValue reads one value of a submitted form: a string, a number, a boolean or a list of
// strings; anything else becomes nil.
func formValue(raw json.RawMessage) *hootv1.FormValue {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return nil
	}
	switch x := v.(type) {
	case string:
		return &hootv1.FormValue{Value: &hootv1.FormValue_Text{Text: x}}
	case float64:
		return &hootv1.FormValue{Value: &hootv1.FormValue_Number{Number: x}}
	case bool:
		return &hootv1.FormValue{Value: &hootv1.FormValue_Flag{Flag: x}}
	case []any:
		var vals []string
		for _, e := range x {
			if s, ok := e.(string); ok {
				vals = append(vals, s)
			}
		}
		return &hootv1.FormValue{Value: &hootv1.FormValue_Choices{Choices: &hootv1.FormChoices{Values: vals}}}
	}
	return nil
}
