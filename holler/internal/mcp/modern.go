package mcp

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/hootenanny/hoot/holler/internal/mcp/entries"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/loglevel"
	"github.com/hootenanny/hoot/holler/internal/mcp/mcpheader"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/streamable"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
	"github.com/hootenanny/hoot/holler/internal/mcp/toollist"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

// The 2026-07-28 era (package era says what it is). A modern request is checked here in the
// protocol's order, answered by the same core as a legacy one through a session that lives only
// as long as the request, and its result is dressed here again (resultType, serverInfo, caching
// hints). Nothing that a later request needs stays in memory.

// modernMeta is what a modern request's params._meta says, as the server reads it.
type modernMeta struct {
	version     string
	caps        json.RawMessage
	logLevel    loglevel.Level
	traceparent string
}

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
		return m, bad(http.StatusBadRequest, era.CodeHeaderMismatch, era.MismatchText(headerProtocolVersion, pv, "params._meta."+era.MetaProtocolVersion, m.version),
			&guidance.Data{Hint: "Send the header " + headerProtocolVersion + " with the same value as params._meta." + era.MetaProtocolVersion + ".",
				Field: headerProtocolVersion, Expected: wording.Short(m.version), Got: wording.Short(pv)})
	}
	if fail := s.checkModernVersion(msg, m); fail != nil {
		return m, fail
	}
	if got := r.Header.Get(era.HeaderMethod); got != msg.Method {
		return m, bad(http.StatusBadRequest, era.CodeHeaderMismatch, era.MismatchText(era.HeaderMethod, got, "method", msg.Method),
			&guidance.Data{Hint: "Send the header " + era.HeaderMethod + " with the request's method, spelled exactly as in the body.",
				Field: era.HeaderMethod, Expected: wording.Short(msg.Method), Got: wording.Short(got)})
	}
	if !s.modernMethod(msg.Method) {
		return m, &modernFailure{status: http.StatusNotFound, resp: s.modernMethodNotFound(msg)}
	}
	if field, body, ok := era.NameInBody(msg.Method, p); ok {
		got, present := r.Header[http.CanonicalHeaderKey(era.HeaderName)]
		value := ""
		if present && len(got) > 0 {
			value = strings.TrimSpace(got[0])
		}
		decoded, valid := mcpheader.DecodeValue(value)
		if !present || !valid || decoded != body {
			return m, bad(http.StatusBadRequest, era.CodeHeaderMismatch, era.MismatchText(era.HeaderName, value, field, body),
				&guidance.Data{Hint: "Send the header " + era.HeaderName + " with " + field + " of the body; a value that is not plain ASCII goes as =?base64?...?=.",
					Field: era.HeaderName, Expected: wording.Short(body), Got: wording.Short(value)})
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
	if era.IsModern(m.version) {
		return nil
	}
	return &modernFailure{status: http.StatusBadRequest, resp: s.modernError(msg.ID, era.CodeUnsupportedVersion, "unsupported protocol version "+wording.Quote(m.version), &guidance.Data{
		Hint:      "Send one of the versions in supported: " + era.V20260728 + " per request with _meta, as in try; the older ones through initialize, which starts a session.",
		Supported: era.AllVersions,
		Requested: wording.Short(m.version),
		Try:       era.TryDiscover(),
	})}
}

// readModernMeta reads and checks the _meta of a modern request (era.ReadMeta) and its log
// level. It is the part of the checks that every transport makes; HTTP adds its headers
// (checkModern).
func (s *Server) readModernMeta(msg *message) (modernMeta, era.Params, *modernFailure) {
	em, p, f := era.ReadMeta(msg.Params)
	m := modernMeta{version: em.Version, caps: em.Caps, logLevel: loglevel.Silent, traceparent: em.Traceparent}
	if f == nil && em.HasLogLevel {
		var name string
		level, known := loglevel.Level(0), false
		if json.Unmarshal(em.LogLevel, &name) == nil {
			level, known = loglevel.Parse(name)
		}
		if !known {
			g := era.MetaGuidance("params._meta." + era.MetaLogLevel)
			g.Hint, g.Expected, g.Got = "Name one of the levels in expected, or leave logLevel out to receive no log messages.", loglevel.Listed(), wording.Short(string(em.LogLevel))
			f = &era.Fault{Code: jsonrpc.CodeInvalidParams, Text: "invalid params: unknown logLevel " + wording.Short(string(em.LogLevel)), Guidance: g}
		}
		m.logLevel = level
	}
	if f != nil {
		return m, p, &modernFailure{status: http.StatusBadRequest, resp: s.modernError(msg.ID, f.Code, f.Text, f.Guidance)}
	}
	return m, p, nil
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
	hint := "In protocol " + era.V20260728 + " this server answers the methods listed in methods; server/discover describes it."
	switch msg.Method {
	case methodInitialize:
		hint = "Protocol " + era.V20260728 + " has no initialize: send every request with params._meta as in try. To speak an older version, send initialize without the 2026-07-28 header and _meta."
	case methodPing, methodSetLevel, methodSubscribe, methodUnsubscribe:
		hint = "Protocol " + era.V20260728 + " has no " + msg.Method + "; server/discover describes what this server answers."
	}
	return s.modernError(msg.ID, jsonrpc.CodeMethodNotFound, "method not found: "+wording.Quote(msg.Method)+" is not a method of protocol "+era.V20260728+wording.DidYouMean(wording.Close(msg.Method, methods)), &guidance.Data{
		Hint:       hint,
		DidYouMean: wording.Close(msg.Method, methods),
		Methods:    methods,
		Try:        era.TryDiscover(),
	})
}

// modernError returns an error of the modern envelope. Its data is the guidance, and always
// carries what the protocol requires there (an unsupported version's supported and requested)
// even when guidance is off.
func (s *Server) modernError(id json.RawMessage, code int64, text string, g *guidance.Data) *jsonrpc.Response {
	if s.cfg.MinimalErrors && code == era.CodeUnsupportedVersion {
		return jsonrpc.NewError(id, code, text, &guidance.Data{Supported: g.Supported, Requested: g.Requested})
	}
	return s.fail(id, code, text, g)
}

// discoverResult is server/discover's answer.
type discoverResult struct {
	SupportedVersions []string           `json:"supportedVersions"`
	Capabilities      serverCapabilities `json:"capabilities"`
	Instructions      string             `json:"instructions,omitempty"`
	// Services and SchemaHash describe the tools of the caller (schema.go).
	Services   []toollist.Service `json:"services"`
	SchemaHash string             `json:"schemaHash"`
}

// discover answers server/discover: with the services the caller of ctx may call, their
// tools, and the hash of that schema (schema.go).
func (s *Server) discover(ctx context.Context, id json.RawMessage) *jsonrpc.Response {
	listed := s.capListing(ctx, s.listedNow())
	return jsonrpc.NewResult(id, discoverResult{
		SupportedVersions: era.AllVersions,
		Capabilities:      s.modernCapabilities(),
		Instructions:      s.cfg.Instructions,
		Services:          s.hasher.Services(listed),
		SchemaHash:        s.hasher.Hash(listed),
	})
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
		streamable.WriteJSON(w, fail.status, fail.resp)
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
		s.listening.ServeHTTP(ctx, w, r, &msg.Message)
		return
	}
	sess := s.modernSession(meta)
	sess.Tasks = tasks.Declares(meta.caps)
	reply := streamable.NewReply(w, r, sess, s.cfg.KeepAlive, true)
	resp := s.modernResponse(msg.Method, s.handle(ctx, sess, msg, reply, cancel))
	// A missing client capability is a client error in this era (400); anything else is 200.
	status := http.StatusOK
	if resp.Error != nil && resp.Error.Code == era.CodeMissingCapability {
		status = http.StatusBadRequest
	}
	reply.FinishStatus(resp, status)
}

// modernSession returns the session of one modern request: initialized at the request's
// version, with nothing declared that a later request could rely on.
func (s *Server) modernSession(m modernMeta) *sessions.Session {
	return sessions.NewModern(m.version, sessions.ReadCapabilities(m.caps, m.version), m.logLevel, s.cfg.EventBuffer, s.cfg.EventBufferBytes)
}

// serverInfoMeta returns the _meta of every 2026-07-28 result, encoded: the server's identity.
func (s *Server) serverInfoMeta() []byte {
	s.modernMetaOnce.Do(func() {
		s.modernMetaJSON, _ = json.Marshal(map[string]any{
			era.MetaServerInfo: implementation{Name: s.cfg.Name, Title: s.cfg.Title, Version: s.cfg.Version}})
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
	// era's fields; every other result is encoded once, with the era's members around it. The
	// response is this request's own (the method table makes a new one for each), so it is
	// dressed in place.
	if res, ok := resp.Result.(toolresult.Result); ok && era.CacheScopes[method] == "" && toolresult.Fast(resp, res) {
		res.ModernMeta = s.serverInfoMeta()
		resp.Result = res
		return resp
	}
	resp.Result = era.Result{Value: resp.Result, ServerInfo: s.serverInfoMeta(), Scope: era.CacheScopes[method]}
	return resp
}
