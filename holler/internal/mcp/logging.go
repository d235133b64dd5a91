package mcp

import (
	"encoding/json"

	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/loglevel"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
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
