package mcp

import (
	"context"
	"net/http"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/streamable"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolcall"
	"github.com/hootenanny/hoot/holler/internal/mcp/toollist"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
)

// This file applies the caller's grant, put in the request's context by access control
// (package access), to MCP: tools above the grant's tier are not listed to that caller, and a
// call of one is refused with 403 before it is handled. A request without a grant (stdio, or
// an HTTP endpoint served without access control) is capped by MaxTier alone.

// WriteAccessFailure answers an HTTP request to the MCP endpoint that access control refused:
// the failure's status and WWW-Authenticate challenge, and a JSON-RPC error whose message says
// what is wrong and whose data.hint says what to do, so that an MCP client can show it.
func (s *Server) WriteAccessFailure(w http.ResponseWriter, _ *http.Request, f *access.Failure) {
	f.SetHeaders(w.Header())
	streamable.WriteFailure(w, f.Status, jsonrpc.NewError(nil, jsonrpc.CodeInvalidRequest, f.Message, nil), f.Hint, s.cfg.MinimalErrors)
}

// refuseAboveGrant answers 403 to a tools/call, sent by POST by the caller of grant g, of a
// tool that the server serves and g does not allow, and reports whether it did. The body is the
// JSON-RPC error of the request, with the policy's decision in its data; the challenge is the
// grant's (insufficient_scope with the scope to ask for, for an OAuth token).
func (s *Server) refuseAboveGrant(w http.ResponseWriter, g *access.Grant, msg *message) bool {
	if !msg.IsRequest() || msg.Method != methodToolsCall {
		return false
	}
	name, ok := toolcall.Name(msg.Params)
	if !ok {
		return false
	}
	t, ok := s.allowedTool(name)
	if !ok || t.Tier <= g.Tier {
		return false
	}
	d, _ := s.policy.ForGrant(g).Decide(t, nil)
	f := g.Refuse(t.Tier)
	f.SetHeaders(w.Header())
	s.log.Info("mcp: tool call refused: the caller's token allows a lower tier", "tool", t.Name, "caller", g.Name, "via", g.Via,
		"tier", d.Tier, "tokenTier", d.TokenTier)
	streamable.WriteJSON(w, http.StatusForbidden, s.fail(msg.ID, jsonrpc.CodeInvalidRequest,
		"tool "+wording.Quote(t.Name)+" needs tier "+d.Tier+": "+f.Message, &guidance.Data{Hint: f.Hint, Tool: t.Name, Policy: &d}))
	return true
}

// capListing returns the tools of listed that the caller of ctx may call.
func (s *Server) capListing(ctx context.Context, listed []toollist.Description) []toollist.Description {
	g, ok := access.GrantOf(ctx)
	if !ok || g.Tier >= s.cfg.MaxTier {
		return listed
	}
	out := make([]toollist.Description, 0, len(listed))
	for _, d := range listed {
		if t, ok := s.tools[d.Name]; ok && t.Tier <= g.Tier {
			out = append(out, d)
		}
	}
	return out
}

// callerOf returns the caller of ctx as a call to a worker names it: its principal and the
// tier of its grant, or nil for a request that came through no access control. The worker keeps
// jobs to their caller, so every call to a worker on behalf of a request names it.
func callerOf(ctx context.Context) *hootv1.Caller {
	g, _ := access.GrantOf(ctx)
	return g.Caller()
}
