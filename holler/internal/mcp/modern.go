package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/hootenanny/hoot/holler/internal/mcp/entries"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/httpcheck"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/mcpheader"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/round"
	"github.com/hootenanny/hoot/holler/internal/mcp/sse"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

// The 2026-07-28 era.
//
// MCP 2026-07-28 has no initialize and no sessions: every request carries its protocol
// version and the client's capabilities in params._meta, and the HTTP headers MCP-Protocol-Version,
// Mcp-Method and Mcp-Name repeat what the body says so that intermediaries can route on them.
// This server speaks it beside the legacy versions on the same endpoint; eraOf decides, per
// request and for both transports, which era serves it. A modern request is checked here (the envelope), answered by
// the same core as a legacy one through a session that lives only as long as the request, and
// its result is dressed here again (resultType, serverInfo, caching hints). Nothing that a later
// request needs stays in memory.

// The HTTP headers and _meta keys of the 2026-07-28 era.
const (
	headerMethod = "Mcp-Method"
	headerName   = "Mcp-Name"

	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = round.MetaClientCapabilities
	metaServerInfo         = "io.modelcontextprotocol/serverInfo"
)

// The methods and error codes that only the 2026-07-28 era has.
const (
	methodDiscover = "server/discover"

	// codeHeaderMismatch: a routing header is missing or disagrees with the body.
	codeHeaderMismatch = -32020
	// codeUnsupportedVersion: the request's protocol version is not one this server speaks.
	codeUnsupportedVersion = -32022
)

// modernCacheTTLMillis is how long a client may reuse a list or discover result. Lists change
// when workers come and go; a client that listens (subscriptions/listen) hears of it, one that
// does not looks again soon, so the time is short.
const modernCacheTTLMillis = 10_000

// An era is a family of protocol versions that a request is served by.
type era int

const (
	eraLegacy era = iota // initialize and sessions: 2025-03-26, 2025-06-18, 2025-11-25
	eraModern            // per-request _meta, no sessions: 2026-07-28
)

// eraOf decides which era serves a message, over either transport: the one place where the
// era is told. A message of a live legacy session (over HTTP, one whose Mcp-Session-Id names a
// live session; over stdio, any after initialize) keeps its era. A message whose params._meta
// names a protocol version, or whose MCP-Protocol-Version header (HTTP only: stdio passes "")
// names a modern version, is modern: then even initialize is answered as the modern era
// answers it. A header naming a version this server does not speak at all, without modern
// _meta, is left to the legacy checks, whose answer lists the versions of both eras.
// Everything else (initialize, a message without either sign) is legacy, as it was before this
// server knew the modern era.
func eraOf(inLegacySession bool, headerVersion string, params json.RawMessage) era {
	switch {
	case inLegacySession:
		return eraLegacy
	case isModernVersion(headerVersion), hasModernMeta(params):
		return eraModern
	}
	return eraLegacy
}

// modernMeta is what a modern request's params._meta says.
type modernMeta struct {
	version     string
	caps        json.RawMessage
	logLevel    logLevel
	traceparent string
}

// modernParams are the members of a modern request's params that the envelope reads.
type modernParams struct {
	Meta json.RawMessage `json:"_meta"`
	Name json.RawMessage `json:"name"`
	URI  json.RawMessage `json:"uri"`
	// Arguments are a tools/call's arguments, which Mcp-Param headers repeat (mcpparam.go).
	Arguments json.RawMessage `json:"arguments"`
	// TaskID is the task of tasks/get, tasks/update and tasks/cancel (tasks.go).
	TaskID json.RawMessage `json:"taskId"`
}

// logSilent is a level above every message's: a modern request without a logLevel gets no
// log messages at all.
const logSilent = logEmergency + 1

// A modernFailure is a modern request refused by the envelope: the HTTP status and the error.
type modernFailure struct {
	status int
	resp   *jsonrpc.Response
}

// checkModern runs the checks of a modern request in the order MCP 2026-07-28 gives them: the
// required _meta fields (-32602), the headers against the body (-32020), the version
// (-32022), whether the method exists (-32601, 404), and whether the request declares the
// extension that what it asks for needs (-32021). Every transport makes these checks; r is the
// HTTP request whose headers are checked too, nil for a transport without headers (stdio).
func (s *Server) checkModern(r *http.Request, msg *message) (modernMeta, *modernFailure) {
	m, p, fail := s.readModernMeta(msg)
	if fail != nil {
		return m, fail
	}
	if r == nil {
		if fail := s.checkModernVersion(msg, m); fail != nil {
			return m, fail
		}
		if !s.modernMethod(msg.Method) {
			return m, &modernFailure{status: http.StatusNotFound, resp: s.modernMethodNotFound(msg)}
		}
		return m, s.checkTaskCapability(msg, m.caps)
	}
	bad := func(status int, code int64, text string, g *guidance.Data) *modernFailure {
		return &modernFailure{status: status, resp: s.modernError(msg.ID, code, text, g)}
	}

	pv := r.Header.Get(headerProtocolVersion)
	if pv != m.version {
		return m, bad(http.StatusBadRequest, codeHeaderMismatch, mismatchText(headerProtocolVersion, pv, "params._meta."+metaProtocolVersion, m.version),
			&guidance.Data{Hint: "Send the header " + headerProtocolVersion + " with the same value as params._meta." + metaProtocolVersion + ".",
				Field: headerProtocolVersion, Expected: wording.Short(m.version), Got: wording.Short(pv)})
	}
	if fail := s.checkModernVersion(msg, m); fail != nil {
		return m, fail
	}
	if got := r.Header.Get(headerMethod); got != msg.Method {
		return m, bad(http.StatusBadRequest, codeHeaderMismatch, mismatchText(headerMethod, got, "method", msg.Method),
			&guidance.Data{Hint: "Send the header " + headerMethod + " with the request's method, spelled exactly as in the body.",
				Field: headerMethod, Expected: wording.Short(msg.Method), Got: wording.Short(got)})
	}
	if !s.modernMethod(msg.Method) {
		return m, &modernFailure{status: http.StatusNotFound, resp: s.modernMethodNotFound(msg)}
	}
	if field, body, ok := nameInBody(msg.Method, p); ok {
		got, present := r.Header[http.CanonicalHeaderKey(headerName)]
		value := ""
		if present && len(got) > 0 {
			value = strings.TrimSpace(got[0])
		}
		decoded, valid := mcpheader.DecodeValue(value)
		if !present || !valid || decoded != body {
			return m, bad(http.StatusBadRequest, codeHeaderMismatch, mismatchText(headerName, value, field, body),
				&guidance.Data{Hint: "Send the header " + headerName + " with " + field + " of the body; a value that is not plain ASCII goes as =?base64?...?=.",
					Field: headerName, Expected: wording.Short(body), Got: wording.Short(value)})
		}
	}
	if msg.Method == methodToolsCall {
		if fail := s.checkParamHeaders(r, msg.ID, p); fail != nil {
			return m, fail
		}
	}
	return m, s.checkTaskCapability(msg, m.caps)
}

// checkModernVersion refuses a modern request whose protocol version this server does not
// speak (-32022).
func (s *Server) checkModernVersion(msg *message, m modernMeta) *modernFailure {
	if isModernVersion(m.version) {
		return nil
	}
	return &modernFailure{status: http.StatusBadRequest, resp: s.modernError(msg.ID, codeUnsupportedVersion, "unsupported protocol version "+wording.Quote(m.version), &guidance.Data{
		Hint:      "Send one of the versions in supported: " + protocolVersion20260728 + " per request with _meta, as in try; the older ones through initialize, which starts a session.",
		Supported: allProtocolVersions,
		Requested: wording.Short(m.version),
		Try:       tryDiscover(),
	})}
}

// readModernMeta reads and checks the _meta of a modern request: the fields every request
// must carry (-32602) and the log level. It is the part of the checks that every transport
// makes; HTTP adds its headers (checkModern).
func (s *Server) readModernMeta(msg *message) (modernMeta, modernParams, *modernFailure) {
	var m modernMeta
	id := msg.ID
	var p modernParams
	bad := func(status int, code int64, text string, g *guidance.Data) (modernMeta, modernParams, *modernFailure) {
		return m, p, &modernFailure{status: status, resp: s.modernError(id, code, text, g)}
	}
	var meta map[string]json.RawMessage
	switch {
	case msg.Params == nil || rawjson.Kind(msg.Params) != "object" || json.Unmarshal(msg.Params, &p) != nil:
		return bad(http.StatusBadRequest, jsonrpc.CodeInvalidParams, "invalid params: a 2026-07-28 request needs params with _meta", metaGuidance("params._meta"))
	case p.Meta == nil || rawjson.Kind(p.Meta) != "object" || json.Unmarshal(p.Meta, &meta) != nil:
		return bad(http.StatusBadRequest, jsonrpc.CodeInvalidParams, "invalid params: params._meta is missing; a 2026-07-28 request carries its protocol version and client capabilities there", metaGuidance("params._meta"))
	case rawjson.Kind(meta[metaProtocolVersion]) != "string" || json.Unmarshal(meta[metaProtocolVersion], &m.version) != nil:
		return bad(http.StatusBadRequest, jsonrpc.CodeInvalidParams, "invalid params: params._meta needs "+wording.Quote(metaProtocolVersion)+", a string", metaGuidance("params._meta."+metaProtocolVersion))
	case rawjson.Kind(meta[metaClientCapabilities]) != "object":
		return bad(http.StatusBadRequest, jsonrpc.CodeInvalidParams, "invalid params: params._meta needs "+wording.Quote(metaClientCapabilities)+", an object ({} declares none)", metaGuidance("params._meta."+metaClientCapabilities))
	}
	m.caps = meta[metaClientCapabilities]
	m.logLevel = logSilent
	if raw, ok := meta["io.modelcontextprotocol/logLevel"]; ok {
		var name string
		level, known := logLevel(0), false
		if json.Unmarshal(raw, &name) == nil {
			level, known = parseLogLevel(name)
		}
		if !known {
			g := metaGuidance("params._meta.io.modelcontextprotocol/logLevel")
			g.Hint, g.Expected, g.Got = "Name one of the levels in expected, or leave logLevel out to receive no log messages.", joinNames(logLevelNames), wording.Short(string(raw))
			return bad(http.StatusBadRequest, jsonrpc.CodeInvalidParams, "invalid params: unknown logLevel "+wording.Short(string(raw)), g)
		}
		m.logLevel = level
	}
	if raw, ok := meta["traceparent"]; ok {
		_ = json.Unmarshal(raw, &m.traceparent)
	}
	return m, p, nil
}

// nameInBody returns the member of params that the Mcp-Name header repeats for method, and
// its value; ok is false for a method without one, or a body that lacks it (the method's own
// checks answer that).
func nameInBody(method string, p modernParams) (field, value string, ok bool) {
	raw := p.Name
	field = "params.name"
	switch method {
	case methodToolsCall, methodPromptsGet:
	case methodResourcesRead:
		raw, field = p.URI, "params.uri"
	case methodTasksGet, methodTasksUpdate, methodTasksCancel:
		raw, field = p.TaskID, "params.taskId"
	default:
		return "", "", false
	}
	if rawjson.Kind(raw) != "string" || json.Unmarshal(raw, &value) != nil {
		return "", "", false
	}
	return field, value, true
}

// mismatchText says that header carries got where the body's field has want.
func mismatchText(header, got, field, want string) string {
	if got == "" {
		return "header mismatch: the " + header + " header is missing; it must repeat " + field + " (" + wording.Quote(want) + ")"
	}
	return "header mismatch: " + header + " header " + wording.Quote(got) + " does not match " + field + " " + wording.Quote(want)
}

// isModernVersion reports whether v is served per request.
func isModernVersion(v string) bool {
	for _, m := range modernProtocolVersions {
		if m == v {
			return true
		}
	}
	return false
}

// modernCapabilities are the capabilities server/discover declares. subscriptions/listen
// announces the changes of the lists when the Backend reports its live services (listen.go).
func (s *Server) modernCapabilities() serverCapabilities {
	live := s.live != nil
	c := s.entryCapabilities(serverCapabilities{Logging: &struct{}{}, Tools: &toolsCapability{ListChanged: live}})
	if c.Prompts != nil {
		c.Prompts = &listChangedCapability{ListChanged: live}
	}
	if c.Resources != nil {
		c.Resources = &resourcesCapability{Subscribe: true, ListChanged: live}
	}
	c.Extensions = s.tasks.Extensions()
	return c
}

// modernMethodNotFound answers a method the modern era does not have, which includes the
// legacy era's initialize, ping, logging/setLevel and resources/subscribe.
func (s *Server) modernMethodNotFound(msg *message) *jsonrpc.Response {
	methods := s.modernMethods()
	hint := "In protocol " + protocolVersion20260728 + " this server answers the methods listed in methods; server/discover describes it."
	switch msg.Method {
	case methodInitialize:
		hint = "Protocol " + protocolVersion20260728 + " has no initialize: send every request with params._meta as in try. To speak an older version, send initialize without the 2026-07-28 header and _meta."
	case methodPing, methodSetLevel, methodSubscribe, methodUnsubscribe:
		hint = "Protocol " + protocolVersion20260728 + " has no " + msg.Method + "; server/discover describes what this server answers."
	}
	return s.modernError(msg.ID, jsonrpc.CodeMethodNotFound, "method not found: "+wording.Quote(msg.Method)+" is not a method of protocol "+protocolVersion20260728+wording.DidYouMean(wording.Close(msg.Method, methods)), &guidance.Data{
		Hint:       hint,
		DidYouMean: wording.Close(msg.Method, methods),
		Methods:    methods,
		Try:        tryDiscover(),
	})
}

// modernError returns an error of the modern envelope. Its data is the guidance, and always
// carries what the protocol requires there (an unsupported version's supported and requested)
// even when guidance is off.
func (s *Server) modernError(id json.RawMessage, code int64, text string, g *guidance.Data) *jsonrpc.Response {
	if s.cfg.MinimalErrors && code == codeUnsupportedVersion {
		return jsonrpc.NewError(id, code, text, &guidance.Data{Supported: g.Supported, Requested: g.Requested})
	}
	return s.fail(id, code, text, g)
}

// metaGuidance is the guidance of a request whose _meta lacks field.
func metaGuidance(field string) *guidance.Data {
	return &guidance.Data{
		Hint:  "Put " + metaProtocolVersion + " and " + metaClientCapabilities + " in params._meta of every request, as in try.",
		Field: field,
		Try:   tryDiscover(),
	}
}

// tryDiscover returns a server/discover request of the modern era to copy.
func tryDiscover() json.RawMessage {
	return json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta":{"` + metaProtocolVersion + `":"` +
		protocolVersion20260728 + `","` + metaClientCapabilities + `":{},"io.modelcontextprotocol/clientInfo":{"name":"example-client","version":"1.0.0"}}}}`)
}

// discoverResult is server/discover's answer.
type discoverResult struct {
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      serverCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	// Services and SchemaHash describe the tools of the caller (schema.go).
	Services   []serviceDescription `json:"services"`
	SchemaHash string               `json:"schemaHash"`
}

// servePostModern answers a POSTed message of the modern era.
func (s *Server) servePostModern(w http.ResponseWriter, r *http.Request, msg *message) {
	if !msg.IsRequest() {
		// The era defines no notification from the client over HTTP, and a response answers
		// nothing this server asked: both are taken and dropped.
		w.WriteHeader(http.StatusAccepted)
		return
	}
	meta, fail := s.checkModern(r, msg)
	if fail != nil {
		s.writeJSON(w, fail.status, fail.resp)
		return
	}
	// Closing the response is the client's cancellation of the request in this era.
	ctx, cancel := context.WithCancelCause(r.Context())
	defer cancel(nil)
	stop := context.AfterFunc(s.base, func() { cancel(nil) })
	defer stop()
	tp := meta.traceparent
	if !hooteproto.ValidTraceparent(tp) {
		tp = r.Header.Get("Traceparent")
	}
	ctx, endTrace := s.traceRequest(ctx, r, tp, msg.Method)
	if endTrace != nil {
		defer endTrace()
	}

	// subscriptions/listen is served by the transport, its answer being a stream of its own;
	// every other method goes through the method table.
	if msg.Method == methodListen {
		s.serveListenHTTP(ctx, w, r, msg)
		return
	}
	sess := s.modernSession(meta)
	sess.tasks = tasks.Declares(meta.caps)
	jsonOK, sseOK := httpcheck.Accepts(r.Header.Values("Accept"))
	reply := &httpReply{w: w, sw: sse.NewWriter(w), sess: sess, jsonOK: jsonOK, sseOK: sseOK, keepAlive: s.cfg.KeepAlive, noIDs: true}
	resp := s.modernResponse(msg.Method, s.handle(ctx, sess, msg, reply, cancel))
	reply.finishStatus(resp, modernStatus(resp))
}

// modernSession returns the session of one modern request: initialized at the request's
// version, with nothing declared that a later request could rely on.
func (s *Server) modernSession(m modernMeta) *session {
	sess := newSession("")
	sess.modern = true
	sess.initialized, sess.ready = true, true
	sess.version = m.version
	sess.caps = readClientCapabilities(m.caps, m.version)
	sess.logLevel = m.logLevel
	sess.events = sse.NewLog(s.cfg.EventBuffer, s.cfg.EventBufferBytes)
	return sess
}

// cacheScopes are the results that carry caching hints, and their scope: lists and
// server/discover are the same for every client; a resource's contents may not be.
var cacheScopes = map[string]string{
	methodDiscover:          "public",
	methodToolsList:         "public",
	methodPromptsList:       "public",
	methodResourcesList:     "public",
	methodResourceTemplates: "public",
	methodResourcesRead:     "private",
}

// serverInfoMeta returns the _meta of every 2026-07-28 result, encoded: the server's identity.
func (s *Server) serverInfoMeta() []byte {
	s.modernMetaOnce.Do(func() {
		s.modernMetaJSON, _ = json.Marshal(map[string]any{
			metaServerInfo: implementation{Name: s.cfg.Name, Title: s.cfg.Title, Version: s.cfg.Version}})
	})
	return s.modernMetaJSON
}

// modernResponse dresses the core's response for the modern era (modernResult): every result says
// resultType "complete" (but an input_required one, which says so itself) and names the
// server in _meta, cacheable ones carry ttlMs and cacheScope, and a missing resource is
// -32602 with the URI, as -32002 is retired.
func (s *Server) modernResponse(method string, resp *jsonrpc.Response) *jsonrpc.Response {
	if resp.Error != nil {
		if resp.Error.Code == entries.CodeResourceNotFound {
			uri := ""
			if d, ok := resp.Error.Data.(struct {
				URI string `json:"uri"`
			}); ok {
				uri = d.URI
			}
			return s.modernError(resp.ID, jsonrpc.CodeInvalidParams, resp.Error.Message, &guidance.Data{
				Hint: "Read a resource that resources/list shows, or a URI that a template of resources/templates/list matches.",
				URI:  uri,
			})
		}
		return resp
	}
	// The common answer, a tool's text result, is written whole by the fast encoder with the
	// era's fields; every other result is encoded once, with the era's members around it.
	if res, ok := resp.Result.(toolresult.Result); ok && cacheScopes[method] == "" && toolresult.Fast(resp, res) {
		res.ModernMeta = s.serverInfoMeta()
		out := *resp
		out.Result = res
		return &out
	}
	out := *resp
	out.Result = modernResult{result: resp.Result, serverInfo: s.serverInfoMeta(), scope: cacheScopes[method]}
	return &out
}

// A modernResult is a result of the core as the 2026-07-28 era writes it: the result's own
// members, then resultType "complete" unless the result says its type, the server's identity
// added to _meta, and the caching hints of a cacheable one. It encodes the result once and
// writes the era's members around its JSON.
type modernResult struct {
	result any
	// serverInfo is the _meta object that names the server (serverInfoMeta).
	serverInfo []byte
	// scope is the cacheScope of a cacheable result; "" for one that is not.
	scope string
}

// MarshalJSON writes r.
func (r modernResult) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(r.result)
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
	out := make([]byte, 0, len(b)+len(r.serverInfo)+64)
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
	out = append(out, r.serverInfo[:len(r.serverInfo)-1]...)
	if m := bytes.TrimSpace(meta); len(m) > 2 && m[0] == '{' {
		// The result's own _meta, whose members this server never names as the era's.
		out = append(append(out, ','), m[1:len(m)-1]...)
	}
	out = append(out, '}')
	if r.scope != "" {
		out = append(out, `,"ttlMs":`...)
		out = strconv.AppendInt(out, modernCacheTTLMillis, 10)
		out = append(out, `,"cacheScope":"`...)
		out = append(out, r.scope...)
		out = append(out, '"')
	}
	return append(out, '}'), nil
}
