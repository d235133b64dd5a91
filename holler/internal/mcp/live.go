package mcp

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/toollist"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
)

// watchServices follows the Backend's live services until the server closes, starting with
// the change channel taken before the first look.
func (s *Server) watchServices(changed <-chan struct{}) {
	for {
		select {
		case <-s.closed:
			return
		case <-changed:
		}
		// Take the next channel before looking, so that no change goes unseen.
		changed = s.live.Changed()
		if kinds := s.refreshLists(); kinds != 0 {
			s.log.Info("mcp: the live lists changed", "lists", kinds.Names(), "tools", s.listedNames())
			s.changes.Publish(kinds)
		}
	}
}

// refreshTools recomputes the listed tools from the live services and reports whether the
// list changed.
func (s *Server) refreshTools() bool {
	next := s.liveTools()
	s.listMu.Lock()
	defer s.listMu.Unlock()
	same := slices.EqualFunc(s.listed, next, func(a, b toollist.Description) bool { return a.Name == b.Name })
	s.listed = next
	return !same
}

// liveTools describes the allowed tools whose service a live worker serves now.
func (s *Server) liveTools() []toollist.Description {
	live := make(map[string]bool)
	for _, svc := range s.live.Services() {
		live[svc] = true
	}
	var tools []*hootv1hoot.Tool
	for _, t := range s.allowed {
		if live[t.Service] {
			tools = append(tools, t)
		}
	}
	return toollist.Describe(s.policy, tools)
}

// listedNames returns the names of the tools tools/list shows now.
func (s *Server) listedNames() []string {
	s.listMu.RLock()
	defer s.listMu.RUnlock()
	names := make([]string, len(s.listed))
	for i, d := range s.listed {
		names[i] = d.Name
	}
	return names
}

// listTools answers tools/list with one page of the tools shown now. A cursor is the offset
// of its page with a fingerprint of the listing it belongs to (the tools listed and the page
// size), so that a cursor goes on only in the same listing: on this gateway or any other that
// lists the same tools, and not across a change of the live tools, where it would skip or repeat
// some. A cursor that does not fit is refused, with the advice to start again.
func (s *Server) listTools(ctx context.Context, msg *message) *jsonrpc.Response {
	var p struct {
		Cursor *string `json:"cursor"`
	}
	if msg.Params != nil && (rawjson.Kind(msg.Params) != "object" || json.Unmarshal(msg.Params, &p) != nil) {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: tools/list takes an object with an optional cursor (a string)", &guidance.Data{
			Hint: "Send tools/list with empty params for the first page, and with the nextCursor of a page for the next.",
			Try:  guidance.TryToolsList(),
		})
	}
	// The answer comes from the backend's live services as they are now, not from the copy the
	// change watcher keeps to tell sessions about changes: that copy may trail by a moment, and
	// a client that asks just after a worker arrived must see its tools.
	all := s.capListing(ctx, s.listedNow())
	key := toollist.CursorKey(s.cfg.PageSize, all)
	offset := 0
	if p.Cursor != nil {
		o, ok := toollist.ReadCursor(key, *p.Cursor)
		if !ok {
			return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: unknown cursor "+wording.Quote(*p.Cursor), &guidance.Data{
				Hint: "Pass the nextCursor of the previous tools/list answer unchanged, or send tools/list without a cursor to start from the first page.",
				Try:  guidance.TryToolsList(),
			})
		}
		offset = o
	}
	res := toollist.Result{Tools: []toollist.Description{}, Meta: &toollist.Meta{SchemaHash: s.hasher.Hash(all)}}
	if offset < len(all) {
		end := min(offset+s.cfg.PageSize, len(all))
		res.Tools = all[offset:end]
		if end < len(all) {
			res.NextCursor = toollist.MakeCursor(key, end)
		}
	}
	return jsonrpc.NewResult(msg.ID, res)
}

// listedNow returns the tools tools/list shows now: the live ones when the backend reports
// liveness, all allowed ones otherwise.
func (s *Server) listedNow() []toollist.Description {
	if s.live != nil {
		return s.liveTools()
	}
	s.listMu.RLock()
	defer s.listMu.RUnlock()
	return s.listed
}
