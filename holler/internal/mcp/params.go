package mcp

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/loglevel"
	"github.com/hootenanny/hoot/holler/internal/mcp/paramshape"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolcall"
)

// The shapes of the methods' params.
//
// Every request's params are checked against its method's schema (MCP's schema.ts, 2025-11-25
// and 2026-07-28) before the method runs: a member of the wrong type, a required member that is
// missing or a value outside an enumeration is a protocol error, -32602, whose data names the
// member (field), says what it must be (expected), shows what came (got) and gives a request
// to copy (try). Only what the schema requires is checked: members it does not name are
// allowed, _meta is allowed everywhere, and null in an optional member reads as its absence, as
// the methods themselves read it. Package paramshape checks; the table is here. The methods
// keep their own checks of meaning (an unknown tool, an unknown cursor); this is the shape
// only. subscriptions/listen checks its own params (package listen), with the same guidance.

// cursorParams are the params of a paginated list.
var cursorParams = paramshape.Method{
	Members: []paramshape.Member{{Name: "cursor", Shape: paramshape.Str("a string, the nextCursor of the previous page")}},
	Example: `{}`,
}

// taskIDParams are the params of the methods that name a task.
var taskIDParams = paramshape.Method{
	Required: true,
	Members:  []paramshape.Member{{Name: "taskId", Required: true, Shape: paramshape.Str("a string, the taskId of a CreateTaskResult")}},
	Example:  `{"taskId":"..."}`,
}

// uriShape are the params of the methods that name a resource.
var uriShape = paramshape.Method{
	Required: true,
	Members:  []paramshape.Member{{Name: "uri", Required: true, Shape: paramshape.Str("a string, the URI of a resource")}},
	Example:  `{"uri":"..."}`,
}

// methodShapes are the methods whose params are checked, by name.
var methodShapes = paramshape.NewTable(map[string]paramshape.Method{
	methodInitialize: {
		Required: true,
		Members: []paramshape.Member{
			{Name: "protocolVersion", Required: true, Shape: paramshape.Str("a string, a protocol version such as " + strconv.Quote(era.Latest))},
			{Name: "capabilities", Required: true, Shape: paramshape.Object("an object of the client's capabilities ({} declares none)")},
			{Name: "clientInfo", Shape: paramshape.Object("an object with the client's name and version",
				paramshape.Member{Name: "name", Required: true, Shape: paramshape.AString}, paramshape.Member{Name: "version", Required: true, Shape: paramshape.AString})},
		},
		Example: `{"protocolVersion":"` + era.Latest + `","capabilities":{},"clientInfo":{"name":"example-client","version":"1.0.0"}}`,
	},
	methodPing:              {Example: `{}`},
	era.MethodDiscover:      {Example: `{}`},
	methodToolsList:         cursorParams,
	methodPromptsList:       cursorParams,
	methodResourcesList:     cursorParams,
	methodResourceTemplates: cursorParams,
	methodTasksList:         cursorParams,
	methodToolsCall: {
		Required: true,
		Members: []paramshape.Member{
			{Name: "name", Required: true, Shape: paramshape.Str("a string, the name of a tool")},
			{Name: "arguments", Shape: paramshape.Object("an object of the tool's arguments by name")},
			{Name: "task", Shape: paramshape.Object("an object, the task to run the call as (ttl in milliseconds)",
				paramshape.Member{Name: "ttl", Shape: &paramshape.Shape{Kinds: []string{"number"}, Expected: "a number of milliseconds"}})},
		},
		Example: `{"name":"...","arguments":{}}`,
	},
	methodPromptsGet: {
		Required: true,
		Members: []paramshape.Member{
			{Name: "name", Required: true, Shape: paramshape.Str("a string, the name of a prompt")},
			{Name: "arguments", Shape: paramshape.StringsObject},
		},
		Example: `{"name":"...","arguments":{}}`,
	},
	methodResourcesRead: uriShape,
	methodSubscribe:     uriShape,
	methodUnsubscribe:   uriShape,
	methodComplete: {
		Required: true,
		Members: []paramshape.Member{
			{Name: "ref", Required: true, Shape: paramshape.Object(`an object, {"type":"ref/prompt","name":...} or {"type":"ref/resource","uri":...}`,
				paramshape.Member{Name: "type", Required: true, Shape: &paramshape.Shape{Kinds: []string{"string"}, Enum: []string{"ref/prompt", "ref/resource"}, Expected: `"ref/prompt" or "ref/resource"`}},
				paramshape.Member{Name: "name", Shape: paramshape.AString},
				paramshape.Member{Name: "uri", Shape: paramshape.AString})},
			{Name: "argument", Required: true, Shape: paramshape.Object("an object with the argument's name and the value typed so far",
				paramshape.Member{Name: "name", Required: true, Shape: paramshape.AString}, paramshape.Member{Name: "value", Required: true, Shape: paramshape.AString})},
			{Name: "context", Shape: paramshape.Object("an object", paramshape.Member{Name: "arguments", Shape: paramshape.StringsObject})},
		},
		Example: `{"ref":{"type":"ref/prompt","name":"..."},"argument":{"name":"...","value":""}}`,
	},
	methodSetLevel: {
		Required: true,
		Members: []paramshape.Member{{Name: "level", Required: true,
			Shape: &paramshape.Shape{Kinds: []string{"string"}, Enum: loglevel.Names, Expected: "one of " + strings.Join(loglevel.Names, ", ")}}},
		Example: `{"level":"info"}`,
	},
	methodTasksGet:    taskIDParams,
	methodTasksResult: taskIDParams,
	methodTasksCancel: taskIDParams,
	methodTasksUpdate: {
		Required: true,
		Members: []paramshape.Member{
			{Name: "taskId", Required: true, Shape: paramshape.Str("a string, the taskId of a CreateTaskResult")},
			{Name: "inputResponses", Required: true, Shape: paramshape.Object("an object of answers by the keys of the task's inputRequests")},
		},
		Example: `{"taskId":"...","inputResponses":{}}`,
	},
})

// badParams checks msg's params against its method's shape and returns the -32602 answer to
// params that break it, or nil. modern says the request is of the 2026-07-28 era, whose
// example to copy carries _meta.
func (s *Server) badParams(msg *message, modern bool) *jsonrpc.Response {
	f := methodShapes.Check(msg.Method, msg.Params)
	if f == nil {
		return nil
	}
	text := "invalid params: " + msg.Method + " needs " + f.Field + " to be " + f.Expected
	if f.Got == "" {
		text = "invalid params: " + msg.Method + " needs " + f.Field + ", " + f.Expected + "; it is missing"
	} else {
		text += "; got " + f.Got
	}
	got := f.Got
	if got == "" {
		got = "nothing"
	}
	g := &guidance.Data{
		Hint:     "Send " + f.Field + " as " + f.Expected + ", as in try; the other members of the request were not read.",
		Field:    f.Field,
		Expected: f.Expected,
		Got:      got,
		Try:      s.tryMethod(msg.Method, modern),
	}
	if msg.Method == methodInitialize {
		g.Supported = era.LegacyVersions
	}
	if msg.Method == methodToolsCall {
		// A call names its tool, or is shown the tools; a call of a known tool is shown its
		// usage and an example of its own.
		g.Tools = s.allowedNames
		if name, ok := toolcall.Name(msg.Params); ok {
			if t, known := s.tools[name]; known {
				g.Tool, g.Usage, g.Example = name, t.Usage, guidance.ExampleCall(t)
			}
		}
	}
	return s.fail(msg.ID, jsonrpc.CodeInvalidParams, text, g)
}

// tryMethod returns a request of method to copy, with this server's own names where the
// method names a tool, prompt or resource.
func (s *Server) tryMethod(method string, modern bool) json.RawMessage {
	var params map[string]json.RawMessage
	_ = json.Unmarshal([]byte(methodShapes.Example(method)), &params) // the examples are objects
	if params == nil {
		params = map[string]json.RawMessage{}
	}
	quoted := func(v string) json.RawMessage { b, _ := json.Marshal(v); return b }
	switch method {
	case methodToolsCall:
		if len(s.allowed) > 0 {
			_ = json.Unmarshal(guidance.ExampleCall(s.allowed[0]), &params)
		}
	case methodPromptsGet:
		if len(s.entries.Prompts()) > 0 {
			params["name"] = quoted(s.entries.Prompts()[0].Name)
		}
	case methodResourcesRead, methodSubscribe, methodUnsubscribe:
		if len(s.entries.Resources()) > 0 {
			params["uri"] = quoted(s.entries.Resources()[0].URI)
		}
	case methodComplete:
		if len(s.entries.Prompts()) > 0 {
			params["ref"] = json.RawMessage(`{"type":"ref/prompt","name":` + string(quoted(s.entries.Prompts()[0].Name)) + `}`)
		}
	}
	if modern {
		params["_meta"] = json.RawMessage(`{"` + era.MetaProtocolVersion + `":"` + era.V20260728 + `","` + era.MetaClientCapabilities + `":{}}`)
	}
	b, _ := json.Marshal(struct {
		JSONRPC string                     `json:"jsonrpc"`
		ID      int                        `json:"id"`
		Method  string                     `json:"method"`
		Params  map[string]json.RawMessage `json:"params"`
	}{jsonrpc.Version, 1, method, params})
	return b
}
