package mcp

import (
	"context"
	"encoding/json"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/entries"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
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

// entryHost is the server as package entries sees it.
type entryHost struct{ s *Server }

func (h entryHost) Live(service string) bool { return h.s.liveService(service) }

func (h entryHost) Fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response {
	return h.s.fail(id, code, msg, g)
}

// entryCaller returns the entries.Caller of the request rq.
func (s *Server) entryCaller(ctx context.Context, rq methodRequest) entries.Caller {
	return func(t *hootv1hoot.Tool, req proto.Message) (proto.Message, *jsonrpc.Response) {
		return s.calls.CallEntry(ctx, rq.sess, &rq.msg.Message, rq.out, t, req)
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
