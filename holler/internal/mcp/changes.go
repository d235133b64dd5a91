package mcp

import (
	"slices"
	"strings"
	"sync"

	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
)

// List changes.
//
// The lists of tools, prompts and resources follow the services that live workers serve: a
// worker that comes, goes or withdraws a service changes them. watchServices (live.go) sees
// each change of the Backend's live services, works out which lists changed, and publishes
// that here, once. Everyone who tells clients about changes subscribes here: the sessions of
// the older era (notifications/tools/list_changed on their own stream) as one subscriber, and
// each subscriptions/listen stream of the 2026-07-28 era (listen.go) as another. Nothing is
// kept for later: a gateway tells its own listeners what it sees, now.

// listKinds are a set of lists that changed, or that a subscriber follows.
type listKinds uint8

const (
	listTools listKinds = 1 << iota
	listPrompts
	listResources
)

// A changeHub hands each change of the lists to the subscribers that follow those lists.
type changeHub struct {
	mu   sync.Mutex
	subs map[*changeSub]struct{}
}

// A changeSub is one subscriber: the lists it follows and what it does with a change, which
// must not block (it runs on the watcher's goroutine).
type changeSub struct {
	kinds   listKinds
	deliver func(listKinds)
}

// subscribe calls deliver with the lists among kinds that changed, at every change, until the
// returned function is called.
func (h *changeHub) subscribe(kinds listKinds, deliver func(listKinds)) (cancel func()) {
	sub := &changeSub{kinds: kinds, deliver: deliver}
	h.mu.Lock()
	if h.subs == nil {
		h.subs = make(map[*changeSub]struct{})
	}
	h.subs[sub] = struct{}{}
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(h.subs, sub)
		h.mu.Unlock()
	}
}

// publish tells every subscriber that follows one of the lists in changed.
func (h *changeHub) publish(changed listKinds) {
	h.mu.Lock()
	subs := make([]*changeSub, 0, len(h.subs))
	for sub := range h.subs {
		subs = append(subs, sub)
	}
	h.mu.Unlock()
	for _, sub := range subs {
		if k := sub.kinds & changed; k != 0 {
			sub.deliver(k)
		}
	}
}

// refreshLists recomputes the lists from the live services and reports which changed since
// the last look.
func (s *Server) refreshLists() listKinds {
	var changed listKinds
	if s.refreshTools() {
		changed |= listTools
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
		changed |= listPrompts
	}
	if resources != s.liveResources {
		changed |= listResources
	}
	s.livePrompts, s.liveResources = prompts, resources
	s.listMu.Unlock()
	return changed
}

// tellSessions is the older era's subscriber: every session hears that the tools changed on
// its own stream (GET over HTTP, the output over stdio). Its initialize declared listChanged
// for tools only, so only those are told.
func (s *Server) tellSessions(changed listKinds) {
	if changed&listTools == 0 {
		return
	}
	n := &jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: notifyToolsChange}
	for _, sess := range s.sessions.Everyone() {
		if !sess.modern {
			sess.push(n)
		}
	}
}

// names names the lists in k, for logs.
func (k listKinds) names() []string {
	var out []string
	for _, c := range []struct {
		k    listKinds
		name string
	}{{listTools, "tools"}, {listPrompts, "prompts"}, {listResources, "resources"}} {
		if k&c.k != 0 {
			out = append(out, c.name)
		}
	}
	return slices.Clip(out)
}
