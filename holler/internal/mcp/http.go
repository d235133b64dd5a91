package mcp

import (
	"context"
	"errors"
	"github.com/hootenanny/hoot/hooteproto"
	"io"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// The HTTP headers of the Streamable HTTP transport.
const (
	headerSessionID       = "Mcp-Session-Id"
	headerProtocolVersion = "Mcp-Protocol-Version"
)

// ServeHTTP serves MCP's Streamable HTTP transport at the path the Server is mounted on.
//
// A POST carries one JSON-RPC message. A request is answered with application/json, or with
// text/event-stream when notifications of the request (progress) come before its response; a
// notification or a response is answered with 202 and no body. initialize starts a session
// and names it in the Mcp-Session-Id response header, which every later message must carry;
// DELETE ends it. GET is answered with 405: this server does not open streams of its own. A
// request from a browser origin other than loopback, the server's own or Config.AllowedOrigins
// is refused with 403.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.isClosed() {
		s.httpFail(w, http.StatusServiceUnavailable, newError(nil, codeInternalError, "the server is shutting down", nil),
			"Try again in a moment, or connect to another instance.")
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && !s.originAllowed(origin, r.Host) {
		s.httpFail(w, http.StatusForbidden, newError(nil, codeInvalidRequest, "origin "+quote(origin)+" is not allowed", nil),
			"This server serves requests from its own origin, loopback origins and the origins its operator allows.")
		return
	}
	switch r.Method {
	case http.MethodPost:
		s.servePost(w, r)
	case http.MethodDelete:
		s.serveDelete(w, r)
	default:
		// RFC 9110 asks a 405 to say what is allowed.
		w.Header().Set("Allow", "POST, DELETE")
		s.httpFail(w, http.StatusMethodNotAllowed,
			newError(nil, codeInvalidRequest, "method "+r.Method+" is not allowed: this endpoint takes JSON-RPC messages by POST and ends sessions by DELETE", nil),
			"POST each JSON-RPC message to this URL; this server opens no stream of its own on GET.")
	}
}

// servePost handles one JSON-RPC message sent by POST.
func (s *Server) servePost(w http.ResponseWriter, r *http.Request) {
	if ct := r.Header.Get("Content-Type"); !isJSONMediaType(ct) {
		got := ct
		if got == "" {
			got = "none"
		}
		s.httpFail(w, http.StatusUnsupportedMediaType,
			newError(nil, codeInvalidRequest, "unsupported Content-Type "+quote(got)+": the body must be a JSON-RPC message sent as application/json", nil),
			"Send the body with the header Content-Type: application/json.")
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			s.httpFail(w, http.StatusRequestEntityTooLarge,
				newError(nil, codeInvalidRequest, "the message is larger than this server's limit of "+strconv.FormatInt(s.cfg.MaxBodyBytes, 10)+" bytes", nil),
				"Send less at once: store large content in parts, or reference content that is already stored.")
			return
		}
		s.log.Debug("mcp: reading a request body failed", "err", err)
		s.httpFail(w, http.StatusBadRequest, newError(nil, codeParseError, "the request body could not be read", nil), "Send the whole message in the body.")
		return
	}
	msg, bad := decodeMessage(body)
	if bad != nil {
		s.writeJSON(w, http.StatusBadRequest, s.envelopeFailure(bad))
		return
	}
	id := msg.ID
	if pv := r.Header.Get(headerProtocolVersion); pv != "" && !isSupportedVersion(pv) {
		s.writeJSON(w, http.StatusBadRequest, s.fail(id, codeInvalidRequest, "unsupported "+headerProtocolVersion+" "+quote(pv), &guidance{
			Hint:      "Send the protocol version that initialize negotiated, one of supported.",
			Supported: supportedProtocolVersions,
		}))
		return
	}

	isInit := msg.isRequest() && msg.Method == methodInitialize
	sid := r.Header.Get(headerSessionID)
	var sess *session
	switch {
	case sid == "" && isInit:
		// The session exists once initialize succeeds; until then nobody can name it.
		sess = newSession(newSessionID())
	case sid == "":
		s.writeJSON(w, http.StatusBadRequest, s.fail(id, codeInvalidRequest, "missing "+headerSessionID+" header: send initialize first, then send its session id with every message", &guidance{
			Hint: "POST the initialize request in try, then send the " + headerSessionID + " header from its response with every later message.",
			Try:  tryInitialize(),
		}))
		return
	default:
		var ok bool
		if sess, ok = s.sessions.get(sid); !ok {
			s.writeJSON(w, http.StatusNotFound, s.fail(id, codeInvalidRequest, "unknown or expired session "+quote(sid), &guidance{
				Hint: "Start a new session: POST initialize without the " + headerSessionID + " header.",
				Try:  tryInitialize(),
			}))
			return
		}
	}

	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	// A W3C trace context from the client continues into the worker's logs.
	if tp := r.Header.Get("traceparent"); hooteproto.ValidTraceparent(tp) {
		ctx = hooteproto.WithTraceparent(ctx, tp)
	}
	// Close ends the calls in flight too, not only the client going away.
	stop := context.AfterFunc(s.base, cancel)
	defer stop()

	if !msg.isRequest() {
		s.handle(ctx, sess, msg, nil)
		w.WriteHeader(http.StatusAccepted)
		return
	}
	jsonOK, sseOK := acceptable(r.Header.Values("Accept"))
	reply := &httpReply{w: w, jsonOK: jsonOK, sseOK: sseOK}
	resp := s.handle(ctx, sess, msg, reply)
	if isInit && resp.Error == nil {
		s.sessions.add(sess)
		w.Header().Set(headerSessionID, sess.id)
	}
	reply.finish(resp)
}

// serveDelete ends the session the request names.
func (s *Server) serveDelete(w http.ResponseWriter, r *http.Request) {
	sid := r.Header.Get(headerSessionID)
	if sid == "" {
		s.httpFail(w, http.StatusBadRequest, newError(nil, codeInvalidRequest, "missing "+headerSessionID+" header: DELETE ends the session it names", nil),
			"Send DELETE with the "+headerSessionID+" header of the session to end.")
		return
	}
	if !s.sessions.remove(sid) {
		s.httpFail(w, http.StatusNotFound, newError(nil, codeInvalidRequest, "unknown or expired session "+quote(sid), nil),
			"The session is already gone; nothing to end.")
		return
	}
	s.log.Info("mcp: session ended by the client", "session", sid)
	w.WriteHeader(http.StatusNoContent)
}

// httpFail writes resp, an error about the HTTP request itself, with status and, when
// guidance is on, a hint.
func (s *Server) httpFail(w http.ResponseWriter, status int, resp *response, hint string) {
	if !s.cfg.MinimalErrors && resp.Error != nil {
		resp.Error.Data = &guidance{Hint: hint}
	}
	s.writeJSON(w, status, resp)
}

// writeJSON writes resp as a JSON body with status.
func (s *Server) writeJSON(w http.ResponseWriter, status int, resp *response) {
	b := encode(resp)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// isJSONMediaType reports whether a Content-Type names JSON: application/json, or a JSON
// type with a suffix such as application/vnd.x+json.
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// acceptable reads the Accept headers leniently: clients should list both application/json and
// text/event-stream, but a missing header or a wildcard accepts both, and a client that lists
// only one gets only that one.
func acceptable(values []string) (jsonOK, sseOK bool) {
	named := false
	for _, v := range values {
		for _, part := range strings.Split(v, ",") {
			mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil {
				continue
			}
			named = true
			switch mt {
			case "*/*":
				jsonOK, sseOK = true, true
			case "application/json", "application/*":
				jsonOK = true
			case "text/event-stream", "text/*":
				sseOK = true
			}
		}
	}
	if !named || (!jsonOK && !sseOK) {
		// A client that names neither still understands one of them; JSON is the one that
		// needs no streaming.
		return true, !named
	}
	return jsonOK, sseOK
}

// originAllowed reports whether a browser origin may use the server: a loopback origin, the
// server's own (the request's Host), or one the Config allows.
func (s *Server) originAllowed(origin, host string) bool {
	for _, o := range s.cfg.AllowedOrigins {
		if strings.EqualFold(strings.TrimSuffix(o, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	name := u.Hostname()
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip, err := netip.ParseAddr(name)
	return err == nil && ip.IsLoopback()
}
