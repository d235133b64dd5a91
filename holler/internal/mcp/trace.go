package mcp

import (
	"context"
	"strconv"
	"time"

	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
	"github.com/hootenanny/hoot/hooteproto"
)

// observeCall answers tools/call as toolcall's CallTool does, telling the Observer and the Tracer.
func (s *Server) observeCall(ctx context.Context, sess *sessions.Session, msg *message, out sessions.Notifier) *jsonrpc.Response {
	o := s.cfg.Observer
	if o != nil {
		o.CallStarted()
	}
	var end func(CallRecord)
	if s.cfg.Tracer != nil {
		ctx, end = s.cfg.Tracer.StartCall(ctx)
	}
	start := time.Now()
	resp := s.calls.CallTool(ctx, sess, &msg.Message, out)
	rec := CallRecord{Tool: s.calls.Known(msg.Params), Era: eraName(sess), Outcome: outcomeOf(resp), Duration: time.Since(start)}
	if o != nil {
		o.CallEnded(rec)
	}
	if end != nil {
		rec.Code = failureCode(resp)
		end(rec)
	}
	return resp
}

// failureCode names the failure that resp answers, or "" when it is no failure.
func failureCode(resp *jsonrpc.Response) string {
	if resp == nil {
		return ""
	}
	if resp.Error != nil {
		return strconv.FormatInt(resp.Error.Code, 10)
	}
	if r, ok := resp.Result.(toolresult.Result); ok && r.IsError {
		if r.Code == 0 {
			return hooteproto.CodeInternal.String()
		}
		return r.Code.String()
	}
	return ""
}
