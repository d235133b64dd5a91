package mcp

import (
	"context"
	"encoding/json"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/entries"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/round"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/proto"
)

// Prompts and resources are entries of the same generated table as tools, with another
// Surface; package entries answers their methods. This file holds the server's side: their
// capabilities, their rows of the method table, and how an entry's request reaches a worker.

// The methods of prompts, resources and completion.
const (
	methodPromptsList       = "prompts/list"
	methodPromptsGet        = "prompts/get"
	methodResourcesList     = "resources/list"
	methodResourcesRead     = "resources/read"
	methodResourceTemplates = "resources/templates/list"
	methodSubscribe         = "resources/subscribe"
	methodUnsubscribe       = "resources/unsubscribe"
	methodComplete          = "completion/complete"
)

// liveService reports whether a live worker serves service; without a LiveBackend every
// service counts as live.
func (s *Server) liveService(service string) bool {
	if s.live == nil {
		return true
	}
	for _, l := range s.live.Services() {
		if l == service {
			return true
		}
	}
	return false
}

// entryCapabilities adds the capabilities of prompts, resources and completion to c, for
// those the table has.
func (s *Server) entryCapabilities(c serverCapabilities) serverCapabilities {
	if len(s.entries.Prompts()) > 0 {
		c.Prompts = &listChangedCapability{}
	}
	if len(s.entries.Resources()) > 0 || len(s.entries.Templates()) > 0 {
		c.Resources = &resourcesCapability{Subscribe: true}
	}
	if len(s.entries.Prompts()) > 0 || len(s.entries.Templates()) > 0 {
		c.Completions = &struct{}{}
	}
	return c
}

// listChangedCapability says whether the server announces changes of a list.
type listChangedCapability struct {
	ListChanged bool `json:"listChanged"`
}

// resourcesCapability says that the server has resources, and accepts subscriptions to them.
type resourcesCapability struct {
	Subscribe   bool `json:"subscribe"`
	ListChanged bool `json:"listChanged"`
}

// callEntry sends the request req of the entry t, asked for by rq, to a worker and returns the
// typed answer, or the error response to give. The worker may ask the client, as a tool's may.
func (s *Server) callEntry(ctx context.Context, rq methodRequest, t *hootv1hoot.Tool, req proto.Message) (proto.Message, *jsonrpc.Response) {
	msg := rq.msg
	id := msg.ID
	if r := s.entryAboveGrant(ctx, id, t); r != nil {
		return nil, r
	}
	// In the 2026-07-28 era the handler may ask the client, and the request may be a retry
	// that carries answers (mrtr.go).
	var rd *round.Round
	var ask hooteproto.ClientAsker
	switch {
	case rq.sess.Modern:
		var err error
		// The retry members of params, if any (a *questions.Malformed or *reqstate.Error).
		if rd, err = round.Open(s.states, msg.Method, t.Name, principalOf(ctx), req, rq.sess.Caps().CanAnswer, msg.Params); err != nil {
			return nil, s.roundFailure(id, msg.Method, t.Name, err)
		}
		ask = rd.Ask
	case rq.out != nil:
		// Before 2026-07-28 the questions go to the client as requests on the request's stream.
		ask = s.clientAsker(rq.sess, rq.out)
	}
	cctx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
	defer cancel()
	payload := t.Wrap(req)
	cctx, endBackend := s.startBackendCall(cctx, t.Service, payload)
	res, err := s.cfg.Backend.Call(cctx, hooteproto.Call{Service: t.Service, Payload: payload, Caller: callerOf(ctx), Ask: ask})
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

// entryHost is the server as package entries sees it.
type entryHost struct{ s *Server }

func (h entryHost) Live(service string) bool { return h.s.liveService(service) }

func (h entryHost) Fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response {
	return h.s.fail(id, code, msg, g)
}

// entryCaller returns the entries.Caller of the request rq.
func (s *Server) entryCaller(ctx context.Context, rq methodRequest) entries.Caller {
	return func(t *hootv1hoot.Tool, req proto.Message) (proto.Message, *jsonrpc.Response) {
		return s.callEntry(ctx, rq, t, req)
	}
}

func (s *Server) listPrompts(_ context.Context, msg *message) *jsonrpc.Response {
	return s.entries.ListPrompts(msg.ID)
}

func (s *Server) getPrompt(ctx context.Context, rq methodRequest) *jsonrpc.Response {
	return s.entries.GetPrompt(rq.msg.ID, rq.msg.Params, s.entryCaller(ctx, rq))
}

func (s *Server) listResources(_ context.Context, msg *message) *jsonrpc.Response {
	return s.entries.ListResources(msg.ID)
}

func (s *Server) listResourceTemplates(_ context.Context, msg *message) *jsonrpc.Response {
	return s.entries.ListTemplates(msg.ID)
}

func (s *Server) readResource(ctx context.Context, rq methodRequest) *jsonrpc.Response {
	return s.entries.ReadResource(rq.msg.ID, rq.msg.Params, s.entryCaller(ctx, rq))
}

func (s *Server) subscribe(_ context.Context, msg *message) *jsonrpc.Response {
	return s.entries.Subscribe(msg.ID, msg.Method, msg.Params)
}

func (s *Server) complete(_ context.Context, msg *message) *jsonrpc.Response {
	return s.entries.Complete(msg.ID, msg.Params)
}
