package mcp

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
)

// The shapes of the methods' params.
//
// Every request's params are checked against its method's schema (MCP's schema.ts, 2025-11-25
// and 2026-07-28) before the method runs: a member of the wrong type, a required member that is
// missing or a value outside an enumeration is a protocol error, -32602, whose data names the
// member (field), says what it must be (expected), shows what came (got) and gives a request
// to copy (try). Only what the schema requires is checked: members it does not name are
// allowed, _meta is allowed everywhere, and null in an optional member reads as its absence, as
// the methods themselves read it. The methods keep their own checks of meaning (an unknown
// tool, an unknown cursor); this is the shape only. subscriptions/listen checks its own params
// (readListen), with the same guidance.

// A shape is what a JSON value must be.
type shape struct {
	// kinds are the JSON types allowed, as rawjson.Kind names them; empty allows any.
	kinds []string
	// enum are the strings allowed; empty allows any.
	enum []string
	// members are the members of an object that are checked.
	members []member
	// each is the shape of every member's value of an object, or every item of an array.
	each *shape
	// expected says what the value must be, in words.
	expected string
}

// memberNames are the names of members, in order, as rawjson.ScanMembers takes them; they are
// made once, at start, for every list of members the shapes hold.
var memberNames = map[*member][]string{}

func init() {
	var walk func(ms []member)
	walk = func(ms []member) {
		if len(ms) == 0 {
			return
		}
		names := make([]string, len(ms))
		for i, m := range ms {
			names[i] = m.name
			walk(m.shape.members)
		}
		memberNames[&ms[0]] = names
	}
	for name, ms := range methodShapes {
		ms.all = paramsMembers(ms.members)
		methodShapes[name] = ms
		walk(ms.all)
	}
}

// paramsMembers are the members checked in a method's params: _meta and the method's own.
func paramsMembers(own []member) []member {
	return append([]member{{name: "_meta", shape: metaShape}}, own...)
}

// A member is one checked member of an object.
type member struct {
	name     string
	required bool
	shape    *shape
}

var (
	aString = &shape{kinds: []string{"string"}, expected: "a string"}
	// metaShape is _meta, which every method's params may carry.
	metaShape = &shape{kinds: []string{"object"}, expected: "an object", members: []member{
		{name: "progressToken", shape: &shape{kinds: []string{"string", "number"}, expected: "a string or a number"}},
	}}
	stringsObject = &shape{kinds: []string{"object"}, each: aString, expected: "an object of strings"}
)

func str(expected string) *shape { return &shape{kinds: []string{"string"}, expected: expected} }

func object(expected string, members ...member) *shape {
	return &shape{kinds: []string{"object"}, members: members, expected: expected}
}

// A methodShape is the shape of one method's params, and an example of them to copy.
type methodShape struct {
	// required is set when the method needs params at all.
	required bool
	members  []member
	// example are params to copy, without _meta.
	example string
	// all are _meta and members.
	all []member
}

// cursorParams are the params of a paginated list.
var cursorParams = methodShape{
	members: []member{{name: "cursor", shape: str("a string, the nextCursor of the previous page")}},
	example: `{}`,
}

// taskIDParams are the params of the methods that name a task.
var taskIDParams = methodShape{
	required: true,
	members:  []member{{name: "taskId", required: true, shape: str("a string, the taskId of a CreateTaskResult")}},
	example:  `{"taskId":"..."}`,
}

// uriShape are the params of the methods that name a resource.
var uriShape = methodShape{
	required: true,
	members:  []member{{name: "uri", required: true, shape: str("a string, the URI of a resource")}},
	example:  `{"uri":"..."}`,
}

// methodShapes are the methods whose params are checked, by name.
var methodShapes = map[string]methodShape{
	methodInitialize: {
		required: true,
		members: []member{
			{name: "protocolVersion", required: true, shape: str("a string, a protocol version such as " + strconv.Quote(latestProtocolVersion))},
			{name: "capabilities", required: true, shape: object("an object of the client's capabilities ({} declares none)")},
			{name: "clientInfo", shape: object("an object with the client's name and version",
				member{name: "name", required: true, shape: aString}, member{name: "version", required: true, shape: aString})},
		},
		example: `{"protocolVersion":"` + latestProtocolVersion + `","capabilities":{},"clientInfo":{"name":"example-client","version":"1.0.0"}}`,
	},
	methodPing:              {example: `{}`},
	methodDiscover:          {example: `{}`},
	methodToolsList:         cursorParams,
	methodPromptsList:       cursorParams,
	methodResourcesList:     cursorParams,
	methodResourceTemplates: cursorParams,
	methodTasksList:         cursorParams,
	methodToolsCall: {
		required: true,
		members: []member{
			{name: "name", required: true, shape: str("a string, the name of a tool")},
			{name: "arguments", shape: object("an object of the tool's arguments by name")},
			{name: "task", shape: object("an object, the task to run the call as (ttl in milliseconds)",
				member{name: "ttl", shape: &shape{kinds: []string{"number"}, expected: "a number of milliseconds"}})},
		},
		example: `{"name":"...","arguments":{}}`,
	},
	methodPromptsGet: {
		required: true,
		members: []member{
			{name: "name", required: true, shape: str("a string, the name of a prompt")},
			{name: "arguments", shape: stringsObject},
		},
		example: `{"name":"...","arguments":{}}`,
	},
	methodResourcesRead: uriShape,
	methodSubscribe:     uriShape,
	methodUnsubscribe:   uriShape,
	methodComplete: {
		required: true,
		members: []member{
			{name: "ref", required: true, shape: object(`an object, {"type":"ref/prompt","name":...} or {"type":"ref/resource","uri":...}`,
				member{name: "type", required: true, shape: &shape{kinds: []string{"string"}, enum: []string{"ref/prompt", "ref/resource"}, expected: `"ref/prompt" or "ref/resource"`}},
				member{name: "name", shape: aString},
				member{name: "uri", shape: aString})},
			{name: "argument", required: true, shape: object("an object with the argument's name and the value typed so far",
				member{name: "name", required: true, shape: aString}, member{name: "value", required: true, shape: aString})},
			{name: "context", shape: object("an object", member{name: "arguments", shape: stringsObject})},
		},
		example: `{"ref":{"type":"ref/prompt","name":"..."},"argument":{"name":"...","value":""}}`,
	},
	methodSetLevel: {
		required: true,
		members: []member{{name: "level", required: true,
			shape: &shape{kinds: []string{"string"}, enum: logLevelNames, expected: "one of " + strings.Join(logLevelNames, ", ")}}},
		example: `{"level":"info"}`,
	},
	methodTasksGet:    taskIDParams,
	methodTasksResult: taskIDParams,
	methodTasksCancel: taskIDParams,
	methodTasksUpdate: {
		required: true,
		members: []member{
			{name: "taskId", required: true, shape: str("a string, the taskId of a CreateTaskResult")},
			{name: "inputResponses", required: true, shape: object("an object of answers by the keys of the task's inputRequests")},
		},
		example: `{"taskId":"...","inputResponses":{}}`,
	},
}

// A paramFault is where params break their method's shape.
type paramFault struct {
	field    string // the member, as a path such as params.ref.type
	expected string
	got      string // the value that came, shortened; "" when it is missing
}

// checkParams checks params against the shape of method. It returns nil for a method it has
// no shape of, and for params that fit.
func checkParams(method string, params json.RawMessage) *paramFault {
	ms, ok := methodShapes[method]
	if !ok {
		return nil
	}
	if len(params) == 0 || rawjson.Kind(params) == "null" {
		if ms.required {
			return &paramFault{field: "params", expected: "an object"}
		}
		return nil
	}
	if rawjson.Kind(params) != "object" {
		return &paramFault{field: "params", expected: "an object", got: wording.Short(string(params))}
	}
	return checkMembers(params, ms.all, "params")
}

// checkMembers checks the members of the JSON object obj.
func checkMembers(obj json.RawMessage, members []member, path string) *paramFault {
	var buf [8]json.RawMessage
	values := buf[:0]
	if len(members) <= len(buf) {
		values = buf[:len(members)]
	} else {
		values = make([]json.RawMessage, len(members))
	}
	names := memberNames[&members[0]]
	if !rawjson.ScanMembers(obj, names, func(i int, v []byte) { values[i] = v }) {
		// Member names that need unescaping: decode, keeping names exactly as written.
		var all map[string]json.RawMessage
		if json.Unmarshal(obj, &all) != nil {
			return &paramFault{field: path, expected: "an object", got: wording.Short(string(obj))}
		}
		for i, m := range members {
			values[i] = all[m.name]
		}
	}
	for i, m := range members {
		v := values[i]
		if v == nil || rawjson.Kind(v) == "null" {
			if m.required {
				return &paramFault{field: path + "." + m.name, expected: m.shape.expected}
			}
			continue
		}
		if f := checkValue(v, m.shape, path, "."+m.name); f != nil {
			return f
		}
	}
	return nil
}

// checkValue checks one value against sh; the value's path is path and then step, joined only
// when needed, since most values fit.
func checkValue(v json.RawMessage, sh *shape, path, step string) *paramFault {
	kind := rawjson.Kind(v)
	fault := func() *paramFault {
		return &paramFault{field: path + step, expected: sh.expected, got: wording.Short(string(v))}
	}
	if len(sh.kinds) > 0 && !contains(sh.kinds, kind) {
		return fault()
	}
	if len(sh.enum) > 0 {
		s, err := rawjson.Unquote(v)
		if err != nil || !contains(sh.enum, s) {
			return fault()
		}
	}
	if kind == "object" && len(sh.members) > 0 {
		if f := checkMembers(v, sh.members, path+step); f != nil {
			return f
		}
	}
	if sh.each != nil {
		switch kind {
		case "object":
			var all map[string]json.RawMessage
			if json.Unmarshal(v, &all) != nil {
				return fault()
			}
			for name, e := range all {
				if f := checkValue(e, sh.each, path+step, "."+name); f != nil {
					return f
				}
			}
		case "array":
			var all []json.RawMessage
			if json.Unmarshal(v, &all) != nil {
				return fault()
			}
			for i, e := range all {
				if f := checkValue(e, sh.each, path+step, "["+strconv.Itoa(i)+"]"); f != nil {
					return f
				}
			}
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// badParams checks msg's params against its method's shape and returns the -32602 answer to
// params that break it, or nil. modern says the request is of the 2026-07-28 era, whose
// example to copy carries _meta.
func (s *Server) badParams(msg *message, modern bool) *jsonrpc.Response {
	f := checkParams(msg.Method, msg.Params)
	if f == nil {
		return nil
	}
	text := "invalid params: " + msg.Method + " needs " + f.field + " to be " + f.expected
	if f.got == "" {
		text = "invalid params: " + msg.Method + " needs " + f.field + ", " + f.expected + "; it is missing"
	} else {
		text += "; got " + f.got
	}
	got := f.got
	if got == "" {
		got = "nothing"
	}
	g := &guidance.Data{
		Hint:     "Send " + f.field + " as " + f.expected + ", as in try; the other members of the request were not read.",
		Field:    f.field,
		Expected: f.expected,
		Got:      got,
		Try:      s.tryMethod(msg.Method, modern),
	}
	if msg.Method == methodInitialize {
		g.Supported = supportedProtocolVersions
	}
	if msg.Method == methodToolsCall {
		// A call names its tool, or is shown the tools; a call of a known tool is shown its
		// usage and an example of its own.
		g.Tools = s.allowedNames
		if _, name, ok := readCallToolParams(msg.Params); ok {
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
	_ = json.Unmarshal([]byte(methodShapes[method].example), &params) // the examples are objects
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
		if len(s.entries.prompts) > 0 {
			params["name"] = quoted(s.entries.prompts[0].Name)
		}
	case methodResourcesRead, methodSubscribe, methodUnsubscribe:
		if len(s.entries.resources) > 0 {
			params["uri"] = quoted(s.entries.resources[0].URI)
		}
	case methodComplete:
		if len(s.entries.prompts) > 0 {
			params["ref"] = json.RawMessage(`{"type":"ref/prompt","name":` + string(quoted(s.entries.prompts[0].Name)) + `}`)
		}
	}
	if modern {
		params["_meta"] = json.RawMessage(`{"` + metaProtocolVersion + `":"` + protocolVersion20260728 + `","` + metaClientCapabilities + `":{}}`)
	}
	b, _ := json.Marshal(struct {
		JSONRPC string                     `json:"jsonrpc"`
		ID      int                        `json:"id"`
		Method  string                     `json:"method"`
		Params  map[string]json.RawMessage `json:"params"`
	}{jsonrpc.Version, 1, method, params})
	return b
}
