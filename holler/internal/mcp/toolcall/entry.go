package toolcall

import (
	"context"
	"encoding/json"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/round"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/proto"
)

// CallEntry sends the request req of the prompt or resource t, asked for by msg of sess (whose
// stream is out), to a worker and returns the typed answer, or the error response to give. The
// worker may ask the client, as a tool's may.
func (s *Server) CallEntry(ctx context.Context, sess *sessions.Session, msg *jsonrpc.Message, out sessions.Notifier, t *hootv1hoot.Tool, req proto.Message) (proto.Message, *jsonrpc.Response) {
	id := msg.ID
	grant, _ := access.GrantOf(ctx)
	if r := s.entryAboveGrant(grant, id, t); r != nil {
		return nil, r
	}
	// In the 2026-07-28 era the handler may ask the client, and the request may be a retry
	// that carries answers (package round).
	var rd *round.Round
	var ask hooteproto.ClientAsker
	switch {
	case sess.Modern:
		var err error
		// The retry members of params, if any (a *questions.Malformed or *reqstate.Error).
		if rd, err = round.Open(s.states, msg.Method, t.Name, grant.Principal(), req, sess.Caps().CanAnswer, msg.Params); err != nil {
			return nil, s.roundFailure(id, msg.Method, t.Name, err)
		}
		ask = rd.Ask
	case out != nil:
		// Before 2026-07-28 the questions go to the client as requests on the request's stream.
		ask = s.ClientAsker(sess, out)
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
	defer cancel()
	payload := t.Wrap(req)
	cctx, endBackend := s.startBackendCall(cctx, t.Service, payload)
	res, err := s.cfg.Backend.Call(cctx, hooteproto.Call{Service: t.Service, Payload: payload, Caller: grant.Caller(), Ask: ask})
	if endBackend != nil {
		endBackend(res, err)
	}
	if err == nil && res.GetError() != nil {
		err = hooteproto.ErrorFromTool(res.GetError())
	}
	if rd != nil {
		if r := s.endRound(id, rd, err != nil); r != nil {
			return nil, r
		}
	}
	if err != nil {
		e := hooteproto.AsError(err)
		s.log.Info("mcp: "+t.Name+" failed", "code", e.Code(), "err", err)
		code := int64(jsonrpc.CodeInternalError)
		if e.Code() == hooteproto.CodeInvalidArgument || e.Code() == hooteproto.CodeNotFound {
			code = jsonrpc.CodeInvalidParams
		}
		return nil, s.fail(id, code, e.Message(), &guidance.Data{Hint: e.Hint()})
	}
	m, ok := t.Unwrap(res)
	if !ok || m == nil {
		return nil, s.internalError(id, "the worker answered "+wording.Quote(t.Name)+" with a result of another kind")
	}
	return m, nil
}

// entryAboveGrant refuses a prompt or resource above the tier of the caller's grant g (nil
// without access control), with the policy's decision and how to get a higher tier, or returns
// nil when the caller may have it.
func (s *Server) entryAboveGrant(g *access.Grant, id json.RawMessage, t *hootv1hoot.Tool) *jsonrpc.Response {
	if g == nil || t.Tier <= g.Tier {
		return nil
	}
	d, _ := s.policy.ForGrant(g).Decide(t, nil)
	f := g.Refuse(t.Tier)
	s.log.Info("mcp: refused: the caller's token allows a lower tier", "entry", t.Name, "caller", g.Name, "via", g.Via, "tier", d.Tier, "tokenTier", d.TokenTier)
	return s.fail(id, jsonrpc.CodeInvalidRequest, wording.Quote(t.Name)+" needs tier "+d.Tier+": "+f.Message, &guidance.Data{Hint: f.Hint, Tool: t.Name, Policy: &d})
}
