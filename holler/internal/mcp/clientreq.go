package mcp

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strconv"
	"sync"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/content"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/hooteproto"
)

// Requests from a worker's tool to the client (sampling/createMessage, elicitation/create,
// roots/list) go out on the stream of the tools/call they belong to, and the client's response
// comes back as a message without a method, matched here by its id. This is the older
// protocols' way; 2026-07-28 asks in results instead (mrtr.go).

const (
	methodCreateMessage = "sampling/createMessage"
	methodElicit        = "elicitation/create"
)

// clientCalls are the server's requests to clients that wait for a response.
type clientCalls struct {
	mu      sync.Mutex
	next    uint64
	waiting map[string]chan *message // by session id and request id
}

// add registers a request of session sess and returns its id and the channel of its response.
func (c *clientCalls) add(sess string) (json.RawMessage, string, chan *message) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.waiting == nil {
		c.waiting = make(map[string]chan *message)
	}
	c.next++
	id := json.RawMessage(strconv.Quote("holler-" + strconv.FormatUint(c.next, 10)))
	key := sess + " " + string(id)
	ch := make(chan *message, 1)
	c.waiting[key] = ch
	return id, key, ch
}

func (c *clientCalls) remove(key string) {
	c.mu.Lock()
	delete(c.waiting, key)
	c.mu.Unlock()
}

// deliver hands the client's response msg to the request waiting for it; it reports whether
// one was.
func (c *clientCalls) deliver(sess string, msg *message) bool {
	c.mu.Lock()
	ch, ok := c.waiting[sess+" "+string(msg.ID)]
	delete(c.waiting, sess+" "+string(msg.ID))
	c.mu.Unlock()
	if ok {
		ch <- msg
	}
	return ok
}

// clientAsker returns the ClientAsker of one tools/call: it sends a tool's request to the
// client on out and waits for the response.
func (s *Server) clientAsker(sess *session, out notifier) hooteproto.ClientAsker {
	return func(ctx context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
		method, params := clientRequestParams(req)
		if method == "" {
			return nil, hooteproto.NewError(hooteproto.CodeInvalidArgument, "the request for the client is empty")
		}
		if method == methodRootsList && !sess.caps.roots {
			// Sampling and elicitation are left to the client to refuse, as they always were.
			return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "this client did not declare the roots capability in initialize, so it cannot be asked for its roots")
		}
		msg, err := s.requestClient(ctx, sess, out, method, params)
		if err != nil {
			return nil, hooteproto.AsError(err)
		}
		return clientResponse(req, msg), nil
	}
}

// requestClient sends the request method with params to the client of sess on out, the
// stream of the tools/call it belongs to, and waits for the client's response. When ctx ends
// first, the client is told with notifications/cancelled that no answer is awaited any more.
func (s *Server) requestClient(ctx context.Context, sess *session, out notifier, method string, params any) (*message, error) {
	id, key, ch := s.clientCalls.add(sess.id)
	defer s.clientCalls.remove(key)
	out.notify(&notification{JSONRPC: jsonrpc.Version, ID: id, Method: method, Params: params})
	select {
	case msg := <-ch:
		return msg, nil
	case <-ctx.Done():
		out.notify(&notification{JSONRPC: jsonrpc.Version, Method: notifyCancelled, Params: cancelledParams{
			RequestID: id, Reason: "the server no longer waits for an answer",
		}})
		return nil, ctx.Err()
	}
}

// cancelledParams are notifications/cancelled's params.
type cancelledParams struct {
	RequestID json.RawMessage `json:"requestId"`
	Reason    string          `json:"reason,omitempty"`
}

// samplingMessage is one message of sampling/createMessage.
type samplingMessage struct {
	Role    string        `json:"role"`
	Content content.Block `json:"content"`
}

// clientRequestParams returns the method and params of req as MCP has them.
func clientRequestParams(req *hootv1.ClientRequest) (string, any) {
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
		return methodCreateMessage, struct {
			Messages     []samplingMessage `json:"messages"`
			MaxTokens    uint32            `json:"maxTokens"`
			SystemPrompt string            `json:"systemPrompt,omitempty"`
		}{msgs, r.Sampling.GetMaxTokens(), r.Sampling.GetSystemPrompt()}
	case *hootv1.ClientRequest_Elicitation:
		schema := map[string]any{"type": "object", "properties": map[string]any{}}
		if r.Elicitation.GetRequestedSchema() != nil {
			schema = r.Elicitation.GetRequestedSchema().AsMap()
		}
		return methodElicit, elicitParams{Message: r.Elicitation.GetMessage(), RequestedSchema: schema}
	case *hootv1.ClientRequest_Roots:
		return methodRootsList, struct{}{}
	}
	return "", nil
}

// elicitParams are elicitation/create's params.
type elicitParams struct {
	// Mode is "form" in 2026-07-28, and left out before.
	Mode            string         `json:"mode,omitempty"`
	Message         string         `json:"message"`
	RequestedSchema map[string]any `json:"requestedSchema"`
}

// roleName is a Role's name in MCP.
func roleName(r hootv1.Role) string {
	if r == hootv1.Role_ROLE_ASSISTANT {
		return "assistant"
	}
	return "user"
}

// clientResponse turns the client's response msg to req into its typed form.
func clientResponse(req *hootv1.ClientRequest, msg *message) *hootv1.ClientResponse {
	fail := func(e *hooteproto.Error) *hootv1.ClientResponse {
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Error{Error: hooteproto.ToolErrorOf(e)}}
	}
	if msg.Error != nil {
		var e struct {
			Message string `json:"message"`
		}
		_ = json.Unmarshal(msg.Error, &e)
		return fail(hooteproto.NewError(hooteproto.CodeUnavailable, "the client refused the request: "+e.Message))
	}
	method, _ := clientRequestParams(req)
	if method == "" {
		return fail(hooteproto.NewError(hooteproto.CodeInternal, "the request for the client is empty"))
	}
	// The answer is read as strictly in this era as in 2026-07-28 (inputwire.go).
	res, err := decodeInputResponse(method, msg.Result)
	if err != nil {
		return fail(hooteproto.NewError(hooteproto.CodeInternal, "the client's answer to "+method+" is malformed: "+err.Error()))
	}
	return res
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
