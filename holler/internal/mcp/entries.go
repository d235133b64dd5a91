package mcp

import (
	"context"
	"regexp"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/round"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/proto"
)

// Prompts and resources are entries of the same generated table as tools, with another
// Surface: they are called through the Backend like tools, and listed and fetched with their
// own methods. This file holds what they share.

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

// codeResourceNotFound is MCP's error code for a resource URI that no resource has.
const codeResourceNotFound = -32002

// entries are the prompts and resources of the table, within the server's tier.
type entries struct {
	prompts   []*hootv1hoot.Tool
	resources []*hootv1hoot.Tool // fixed URIs
	templates []*resourceTemplate
}

// A resourceTemplate is a resource whose URI has {variables}, with the pattern that matches
// the URIs it serves.
type resourceTemplate struct {
	tool  *hootv1hoot.Tool
	vars  []string
	match *regexp.Regexp
}

// templateVar matches one {variable} of a URI template.
var templateVar = regexp.MustCompile(`\{([^{}]*)\}`)

// add files t under its surface; it reports false for a tool.
func (e *entries) add(t *hootv1hoot.Tool) bool {
	switch t.Surface {
	case hootv1.Surface_SURFACE_PROMPT:
		e.prompts = append(e.prompts, t)
	case hootv1.Surface_SURFACE_RESOURCE:
		if !strings.Contains(t.URI, "{") {
			e.resources = append(e.resources, t)
			return true
		}
		rt := &resourceTemplate{tool: t}
		pattern := "^"
		rest := t.URI
		for _, loc := range templateVar.FindAllStringSubmatchIndex(t.URI, -1) {
			start := len(t.URI) - len(rest)
			pattern += regexp.QuoteMeta(t.URI[start:loc[0]]) + "([^/]+)"
			rt.vars = append(rt.vars, t.URI[loc[2]:loc[3]])
			rest = t.URI[loc[1]:]
		}
		rt.match = regexp.MustCompile(pattern + regexp.QuoteMeta(rest) + "$")
		e.templates = append(e.templates, rt)
	default:
		return false
	}
	return true
}

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
	if len(s.entries.prompts) > 0 {
		c.Prompts = &listChangedCapability{}
	}
	if len(s.entries.resources) > 0 || len(s.entries.templates) > 0 {
		c.Resources = &resourcesCapability{Subscribe: true}
	}
	if len(s.entries.prompts) > 0 || len(s.entries.templates) > 0 {
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
	case rq.sess.modern:
		var err error
		if rd, err = s.openRound(ctx, msg.Method, t.Name, req, rq.sess.caps, msg.Params); err != nil {
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
	endBackend(res, err)
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

// fieldsOfType returns the values of the top-level fields of m whose message type is T, in
// field order.
func fieldsOfType[T proto.Message](m proto.Message) []T {
	var out []T
	var zero T
	want := zero.ProtoReflect().Descriptor().FullName()
	r := m.ProtoReflect()
	fields := r.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Message() == nil || fd.Message().FullName() != want || fd.IsMap() {
			continue
		}
		if !fd.IsList() {
			if r.Has(fd) {
				if x, ok := r.Get(fd).Message().Interface().(T); ok {
					out = append(out, x)
				}
			}
			continue
		}
		list := r.Get(fd).List()
		for j := range list.Len() {
			if x, ok := list.Get(j).Message().Interface().(T); ok {
				out = append(out, x)
			}
		}
	}
	return out
}
