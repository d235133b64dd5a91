package mcp

import (
	"encoding/json"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/loglevel"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/hooteproto"
)

// setLogLevel answers logging/setLevel: from now on the session receives log messages of
// that severity and above.
func (s *Server) setLogLevel(sess *sessions.Session, msg *message) *jsonrpc.Response {
	var p struct {
		Level json.RawMessage `json:"level"`
	}
	var name string
	bad := msg.Params == nil || rawjson.Kind(msg.Params) != "object" || json.Unmarshal(msg.Params, &p) != nil ||
		rawjson.Kind(p.Level) != "string" || json.Unmarshal(p.Level, &name) != nil
	level, ok := loglevel.Parse(name)
	if bad || !ok {
		got := "no level"
		if p.Level != nil {
			got = string(p.Level)
		}
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: logging/setLevel needs params.level, one of "+loglevel.Listed()+"; got "+got, &guidance.Data{
			Hint:     "Send one of the levels in expected, such as \"info\".",
			Expected: loglevel.Listed(),
			Got:      got,
			Try:      json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"logging/setLevel","params":{"level":"info"}}`),
		})
	}
	sess.SetLogLevel(level)
	return jsonrpc.NewResult(msg.ID, struct{}{})
}

// logCallFailure tells the session, on the call's stream, when a call failed because its
// service has no live worker or its worker went away: an event of the gateway, not of the
// tool, which the client may want to see besides the tool's error result.
func (s *Server) logCallFailure(sess *sessions.Session, out sessions.Notifier, tool, service string, e *hooteproto.Error) {
	if e.Code() != hooteproto.CodeUnavailable {
		return
	}
	sess.Log(out, loglevel.Warning, "holler", map[string]any{
		"event":   "unavailable",
		"tool":    tool,
		"service": service,
		"message": e.Message(),
	})
}

// logRelay returns the function that relays a worker's reports for one call: log entries
// become notifications/message for sess, on out; progress goes to progress, if not nil.
func (s *Server) logRelay(sess *sessions.Session, out sessions.Notifier, progress func(*hootv1.Progress)) func(*hootv1.Progress) {
	return func(p *hootv1.Progress) {
		if e := p.GetLog(); e != nil {
			level := loglevel.Info
			if e.GetLevel() != hootv1.LogLevel_LOG_LEVEL_UNSPECIFIED {
				level = loglevel.Level(e.GetLevel() - hootv1.LogLevel_LOG_LEVEL_DEBUG)
			}
			sess.Log(out, level, e.GetLogger(), e.GetMessage())
			return
		}
		if progress != nil {
			progress(p)
		}
	}
}
