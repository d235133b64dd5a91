package mcp

import (
	"strings"

	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/listen"
)

// List changes (package listen has the kinds and the fan-out, Hub).
//
// The lists of tools, prompts and resources follow the services that live workers serve: a
// worker that comes, goes or withdraws a service changes them. watchServices (live.go) sees
// each change of the Backend's live services, works out which lists changed, and publishes
// that here, once. Everyone who tells clients about changes subscribes here: the sessions of
// the older era (notifications/tools/list_changed on their own stream) as one subscriber, and
// each subscriptions/listen stream of the 2026-07-28 era (listen.go) as another. Nothing is
// kept for later: a gateway tells its own listeners what it sees, now.

// refreshLists recomputes the lists from the live services and reports which changed since
// the last look.
func (s *Server) refreshLists() listen.Kinds {
	var changed listen.Kinds
	if s.refreshTools() {
		changed |= listen.Tools
	}
	live := make(map[string]bool)
	for _, svc := range s.live.Services() {
		live[svc] = true
	}
	names := func(ts []string, services []string) string {
		var out []string
		for i, n := range ts {
			if live[services[i]] {
				out = append(out, n)
			}
		}
		return strings.Join(out, "\x00")
	}
	var pn, ps, rn, rs []string
	for _, t := range s.entries.Prompts() {
		pn, ps = append(pn, t.Name), append(ps, t.Service)
	}
	for _, t := range s.entries.Resources() {
		rn, rs = append(rn, t.URI), append(rs, t.Service)
	}
	for _, t := range s.entries.Templates() {
		rn, rs = append(rn, t.URI), append(rs, t.Service)
	}
	prompts, resources := names(pn, ps), names(rn, rs)
	s.listMu.Lock()
	if prompts != s.livePrompts {
		changed |= listen.Prompts
	}
	if resources != s.liveResources {
		changed |= listen.Resources
	}
	s.livePrompts, s.liveResources = prompts, resources
	s.listMu.Unlock()
	return changed
}

// tellSessions is the older era's subscriber: every session hears that the tools changed on
// its own stream (GET over HTTP, the output over stdio). Its initialize declared listChanged
// for tools only, so only those are told.
func (s *Server) tellSessions(changed listen.Kinds) {
	if changed&listen.Tools == 0 {
		return
	}
	n := &jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: notifyToolsChange}
	for _, sess := range s.sessions.Everyone() {
		if !sess.Modern {
			sess.Push(n)
		}
	}
}
