// Package era tells which era of MCP serves a message, and reads the envelope of the
// 2026-07-28 era.
//
// MCP 2026-07-28 has no initialize and no sessions: every request carries its protocol
// version and the client's capabilities in params._meta, and the HTTP headers
// MCP-Protocol-Version, Mcp-Method and Mcp-Name repeat what the body says so that
// intermediaries can route on them. The server speaks it beside the legacy versions on the same
// endpoint; Of decides, per message and for every transport, which era serves it. What this
// package reads and writes knows no server: the _meta every request must carry (ReadMeta), the
// member the Mcp-Name header repeats (NameInBody), and a result as the era writes it (Result).
// The server makes the checks in the protocol's order and answers with its own error shapes.
package era

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
)

// The protocol versions the server speaks. 2026-07-28 is the modern era; the others are the
// legacy era, negotiated by initialize.
const (
	V20260728 = "2026-07-28"
	V20251125 = "2025-11-25"
	V20250618 = "2025-06-18"
	V20250326 = "2025-03-26"

	// Latest is the newest version initialize negotiates.
	Latest = V20251125
)

// LegacyVersions lists the versions initialize accepts, newest first.
var LegacyVersions = []string{V20251125, V20250618, V20250326}

// ModernVersions lists the versions served per request, without initialize.
var ModernVersions = []string{V20260728}

// AllVersions lists every version the server speaks, modern and legacy, newest first: what
// server/discover and an unsupported version's error name.
var AllVersions = append(append([]string{}, ModernVersions...), LegacyVersions...)

// IsLegacy reports whether v is one of LegacyVersions.
func IsLegacy(v string) bool { return in(LegacyVersions, v) }

// IsModern reports whether v is served per request.
func IsModern(v string) bool { return in(ModernVersions, v) }

func in(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// The HTTP headers, _meta keys, methods and error codes of the 2026-07-28 era.
const (
	HeaderMethod = "Mcp-Method"
	HeaderName   = "Mcp-Name"

	MetaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	MetaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	MetaServerInfo         = "io.modelcontextprotocol/serverInfo"
	MetaLogLevel           = "io.modelcontextprotocol/logLevel"

	MethodDiscover = "server/discover"

	// CodeHeaderMismatch: a routing header is missing or disagrees with the body.
	CodeHeaderMismatch = -32020
	// CodeMissingCapability: the request needs a capability the client did not declare in it
	// (MissingRequiredClientCapability).
	CodeMissingCapability = -32021
	// CodeUnsupportedVersion: the request's protocol version is not one the server speaks.
	CodeUnsupportedVersion = -32022
)

// CacheTTLMillis is how long a client may reuse a list or discover result. Lists change
// when workers come and go; a client that listens (subscriptions/listen) hears of it, one that
// does not looks again soon, so the time is short.
const CacheTTLMillis = 10_000

// An Era is a family of protocol versions that a request is served by.
type Era int

const (
	Legacy Era = iota // initialize and sessions: 2025-03-26, 2025-06-18, 2025-11-25
	Modern            // per-request _meta, no sessions: 2026-07-28
)

// Of decides which era serves a message, over either transport: the one place where the
// era is told. A message of a live legacy session (over HTTP, one whose Mcp-Session-Id names a
// live session; over stdio, any after initialize) keeps its era. A message whose params._meta
// names a protocol version, or whose MCP-Protocol-Version header (HTTP only: stdio passes "")
// names a modern version, is modern: then even initialize is answered as the modern era
// answers it. A header naming a version this server does not speak at all, without modern
// _meta, is left to the legacy checks, whose answer lists the versions of both eras.
// Everything else (initialize, a message without either sign) is legacy, as it was before this
// server knew the modern era.
func Of(inLegacySession bool, headerVersion string, params json.RawMessage) Era {
	switch {
	case inLegacySession:
		return Legacy
	case IsModern(headerVersion), HasModernMeta(params):
		return Modern
	}
	return Legacy
}

// HasModernMeta reports whether params._meta names a protocol version, the sign of a request
// of the 2026-07-28 era.
func HasModernMeta(params json.RawMessage) bool {
	// Most messages are legacy and never mention the key: looking for its text first spares
	// them the decoding.
	if !bytes.Contains(params, []byte(MetaProtocolVersion)) {
		return false
	}
	var p struct {
		Meta map[string]json.RawMessage `json:"_meta"`
	}
	return json.Unmarshal(params, &p) == nil && p.Meta[MetaProtocolVersion] != nil
}

// LooksModern reports whether a message that did not decode still shows a client of the
// 2026-07-28 era: a protocol version in its _meta.
func LooksModern(data []byte) bool {
	return bytes.Contains(data, []byte(`"`+MetaProtocolVersion+`"`))
}

// Meta is what a modern request's params._meta says.
type Meta struct {
	Version string
	Caps    json.RawMessage
	// LogLevel is the level the request names, and HasLogLevel whether it names one; the
	// server reads the name.
	LogLevel    json.RawMessage
	HasLogLevel bool
	Traceparent string
}

// Params are the members of a modern request's params that the envelope reads.
type Params struct {
	Meta json.RawMessage `json:"_meta"`
	Name json.RawMessage `json:"name"`
	URI  json.RawMessage `json:"uri"`
	// Arguments are a tools/call's arguments, which Mcp-Param headers repeat.
	Arguments json.RawMessage `json:"arguments"`
	// TaskID is the task of tasks/get, tasks/update and tasks/cancel.
	TaskID json.RawMessage `json:"taskId"`
}

// A Fault is a request whose envelope is wrong: the JSON-RPC error's code and message, and its
// guidance.
type Fault struct {
	Code     int64
	Text     string
	Guidance *guidance.Data
}

// ReadMeta reads the _meta of a modern request's params: the fields every request must carry
// (-32602), the log level it names and its traceparent. It is the part of the checks that every
// transport makes; HTTP adds its headers.
func ReadMeta(params json.RawMessage) (Meta, Params, *Fault) {
	if m, p, ok := scanMeta(params); ok {
		return m, p, nil
	}
	return readMeta(params)
}

// paramNames and metaNames are the members scanMeta reads, as Params and ReadMeta name them.
var (
	paramNames = []string{"_meta", "name", "uri", "arguments", "taskId"}
	metaNames  = []string{MetaProtocolVersion, MetaClientCapabilities, MetaLogLevel, "traceparent"}
)

// scanMeta reads the envelope of a modern request without reflection (rawjson.ScanMembers),
// the values being slices of params; ok is false whenever the text is not the plain, valid
// envelope of a request that readMeta accepts, and readMeta then reads it again and says what
// is wrong. Every request of the era passes here, so the two json.Unmarshal calls of readMeta
// (into Params and into a map of the _meta) were most of the era's own cost per call.
func scanMeta(params json.RawMessage) (m Meta, p Params, ok bool) {
	if !rawjson.ScanMembers(params, paramNames, func(i int, v []byte) {
		switch i {
		case 0:
			p.Meta = v
		case 1:
			p.Name = v
		case 2:
			p.URI = v
		case 3:
			p.Arguments = v
		case 4:
			p.TaskID = v
		}
	}) || rawjson.Kind(p.Meta) != "object" {
		return Meta{}, Params{}, false
	}
	var version, caps, traceparent []byte
	if !rawjson.ScanMembers(p.Meta, metaNames, func(i int, v []byte) {
		switch i {
		case 0:
			version = v
		case 1:
			caps = v
		case 2:
			m.LogLevel, m.HasLogLevel = v, true
		case 3:
			traceparent = v
		}
	}) || rawjson.Kind(version) != "string" || rawjson.Kind(caps) != "object" {
		return Meta{}, Params{}, false
	}
	v := V20260728
	if string(version) != `"`+V20260728+`"` {
		// Any other version is read, and refused later with what it says.
		var err error
		if v, err = rawjson.Unquote(version); err != nil {
			return Meta{}, Params{}, false
		}
	}
	m.Version, m.Caps = v, caps
	if traceparent != nil {
		if tp, err := rawjson.Unquote(traceparent); err == nil {
			m.Traceparent = tp
		}
	}
	return m, p, true
}

// readMeta is ReadMeta with encoding/json: the reading of any envelope, and the faults of a
// wrong one.
func readMeta(params json.RawMessage) (Meta, Params, *Fault) {
	var m Meta
	var p Params
	bad := func(text, field string) (Meta, Params, *Fault) {
		return m, p, &Fault{Code: jsonrpc.CodeInvalidParams, Text: text, Guidance: MetaGuidance(field)}
	}
	var meta map[string]json.RawMessage
	switch {
	case params == nil || rawjson.Kind(params) != "object" || json.Unmarshal(params, &p) != nil:
		return bad("invalid params: a 2026-07-28 request needs params with _meta", "params._meta")
	case p.Meta == nil || rawjson.Kind(p.Meta) != "object" || json.Unmarshal(p.Meta, &meta) != nil:
		return bad("invalid params: params._meta is missing; a 2026-07-28 request carries its protocol version and client capabilities there", "params._meta")
	case rawjson.Kind(meta[MetaProtocolVersion]) != "string" || json.Unmarshal(meta[MetaProtocolVersion], &m.Version) != nil:
		return bad("invalid params: params._meta needs "+wording.Quote(MetaProtocolVersion)+", a string", "params._meta."+MetaProtocolVersion)
	case rawjson.Kind(meta[MetaClientCapabilities]) != "object":
		return bad("invalid params: params._meta needs "+wording.Quote(MetaClientCapabilities)+", an object ({} declares none)", "params._meta."+MetaClientCapabilities)
	}
	m.Caps = meta[MetaClientCapabilities]
	m.LogLevel, m.HasLogLevel = meta[MetaLogLevel]
	if raw, ok := meta["traceparent"]; ok {
		_ = json.Unmarshal(raw, &m.Traceparent)
	}
	return m, p, nil
}

// NameInBody returns the member of params that the Mcp-Name header repeats for method, and
// its value; ok is false for a method without one, or a body that lacks it (the method's own
// checks answer that).
func NameInBody(method string, p Params) (field, value string, ok bool) {
	raw := p.Name
	field = "params.name"
	switch method {
	case "tools/call", "prompts/get":
	case "resources/read":
		raw, field = p.URI, "params.uri"
	case tasks.MethodGet, tasks.MethodUpdate, tasks.MethodCancel:
		raw, field = p.TaskID, "params.taskId"
	default:
		return "", "", false
	}
	if rawjson.Kind(raw) != "string" {
		return "", "", false
	}
	value, err := rawjson.Unquote(raw)
	if err != nil {
		return "", "", false
	}
	return field, value, true
}

// MismatchText says that header carries got where the body's field has want.
func MismatchText(header, got, field, want string) string {
	if got == "" {
		return "header mismatch: the " + header + " header is missing; it must repeat " + field + " (" + wording.Quote(want) + ")"
	}
	return "header mismatch: " + header + " header " + wording.Quote(got) + " does not match " + field + " " + wording.Quote(want)
}

// MetaGuidance is the guidance of a request whose _meta lacks field.
func MetaGuidance(field string) *guidance.Data {
	return &guidance.Data{
		Hint:  "Put " + MetaProtocolVersion + " and " + MetaClientCapabilities + " in params._meta of every request, as in try.",
		Field: field,
		Try:   TryDiscover(),
	}
}

// TryDiscover returns a server/discover request of the modern era to copy.
func TryDiscover() json.RawMessage {
	return json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"` + MetaProtocolVersion + `":"` +
		V20260728 + `","` + MetaClientCapabilities + `":{},"io.modelcontextprotocol/clientInfo":{"name":"example-client","version":"1.0.0"}}}}`)
}

// CacheScopes are the results that carry caching hints, and their scope: lists and
// server/discover are the same for every client; a resource's contents may not be.
var CacheScopes = map[string]string{
	MethodDiscover:             "public",
	"tools/list":               "public",
	"prompts/list":             "public",
	"resources/list":           "public",
	"resources/templates/list": "public",
	"resources/read":           "private",
}

// A Result is a result of the core as the 2026-07-28 era writes it: the result's own
// members, then resultType "complete" unless the result says its type, the server's identity
// added to _meta, and the caching hints of a cacheable one. It encodes the result once and
// writes the era's members around its JSON.
type Result struct {
	Value any
	// ServerInfo is the _meta object that names the server, encoded.
	ServerInfo []byte
	// Scope is the cacheScope of a cacheable result; "" for one that is not.
	Scope string
}

// MarshalJSON writes r.
func (r Result) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.Value)
	if err != nil {
		return nil, err
	}
	if string(b) == "null" {
		b = []byte("{}")
	}
	// The result's own members: json.Marshal writes them compact, under plain names.
	var typed bool
	var meta []byte
	if !rawjson.ScanMembers(b, []string{"resultType", "_meta"}, func(i int, v []byte) {
		if i == 0 {
			typed = true
		} else {
			meta = v
		}
	}) {
		return nil, errors.New("mcp: a result is not a JSON object")
	}
	out := make([]byte, 0, len(b)+len(r.ServerInfo)+64)
	if meta == nil {
		out = append(out, b[:len(b)-1]...)
	} else {
		// Leave the result's _meta out here: it is written merged below.
		at := cap(b) - cap(meta) - len(`"_meta":`)
		end := at + len(`"_meta":`) + len(meta)
		switch {
		case b[at-1] == ',':
			at--
		case b[end] == ',':
			end++
		}
		out = append(append(out, b[:at]...), b[end:len(b)-1]...)
	}
	sep := func() {
		if out[len(out)-1] != '{' {
			out = append(out, ',')
		}
	}
	if !typed {
		// Only a result that waits for the client (input_required) says its type itself.
		sep()
		out = append(out, `"resultType":"complete"`...)
	}
	sep()
	out = append(out, `"_meta":`...)
	out = append(out, r.ServerInfo[:len(r.ServerInfo)-1]...)
	if m := bytes.TrimSpace(meta); len(m) > 2 && m[0] == '{' {
		// The result's own _meta, whose members this server never names as the era's.
		out = append(append(out, ','), m[1:len(m)-1]...)
	}
	out = append(out, '}')
	if r.Scope != "" {
		out = append(out, `,"ttlMs":`...)
		out = strconv.AppendInt(out, CacheTTLMillis, 10)
		out = append(out, `,"cacheScope":"`...)
		out = append(out, r.Scope...)
		out = append(out, '"')
	}
	return append(out, '}'), nil
}
