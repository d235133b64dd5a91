// Package listen is what subscriptions/listen (2026-07-28) and the older era's list-change
// notifications are made of: the kinds of lists, the one fan-out of their changes (Hub), a
// listen request's filter, the streams' bound (Set), one open stream's queue (Stream), and the
// serving of a stream (Server, serve.go): an event stream over HTTP, lines over stdio, with what
// it needs of the MCP server lent through a Host.
package listen

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"sync"

	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
)

// The notifications and _meta key of subscriptions/listen.
const (
	NotifyAck             = "notifications/subscriptions/acknowledged"
	NotifyToolsChange     = "notifications/tools/list_changed"
	NotifyPromptsChange   = "notifications/prompts/list_changed"
	NotifyResourcesChange = "notifications/resources/list_changed"
	MetaSubscriptionID    = "io.modelcontextprotocol/subscriptionId"
)

// Bounds of one listen stream.
const (
	// MaxResourceSubscriptions bounds the URIs of one filter's resourceSubscriptions, and
	// MaxSubscribedURI the length of each.
	MaxResourceSubscriptions = 100
	MaxSubscribedURI         = 4096
	// MaxQueue bounds the extensions' notifications waiting on one stream; a stream whose
	// client reads too slowly for them is ended, and the client listens again.
	MaxQueue = 256
)

// Kinds are a set of lists that changed, or that a subscriber follows.
type Kinds uint8

// The lists.
const (
	Tools Kinds = 1 << iota
	Prompts
	Resources
)

// A Hub hands each change of the lists to the subscribers that follow those lists.
type Hub struct {
	mu   sync.Mutex
	subs map[*subscriber]struct{}
}

// A subscriber is one subscriber: the lists it follows and what it does with a change, which
// must not block (it runs on the watcher's goroutine).
type subscriber struct {
	kinds   Kinds
	deliver func(Kinds)
}

// Subscribe calls deliver with the lists among kinds that changed, at every change, until the
// returned function is called.
func (h *Hub) Subscribe(kinds Kinds, deliver func(Kinds)) (cancel func()) {
	sub := &subscriber{kinds: kinds, deliver: deliver}
	h.mu.Lock()
	if h.subs == nil {
		h.subs = make(map[*subscriber]struct{})
	}
	h.subs[sub] = struct{}{}
	h.mu.Unlock()
	return func() {
		h.mu.Lock()
		delete(h.subs, sub)
		h.mu.Unlock()
	}
}

// Publish tells every subscriber that follows one of the lists in changed.
func (h *Hub) Publish(changed Kinds) {
	h.mu.Lock()
	subs := make([]*subscriber, 0, len(h.subs))
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

// Names names the lists in k, for logs.
func (k Kinds) Names() []string {
	var out []string
	for _, c := range []struct {
		k    Kinds
		name string
	}{{Tools, "tools"}, {Prompts, "prompts"}, {Resources, "resources"}} {
		if k&c.k != 0 {
			out = append(out, c.name)
		}
	}
	return slices.Clip(out)
}

// An Extension serves one more member of a subscriptions/listen filter.
type Extension struct {
	// Member is the filter's member it reads, such as "taskIds".
	Member string
	// Open starts serving the member for one stream, with value its JSON value. It returns what
	// it honours (written into the acknowledgement under member; nil leaves member out), and a
	// function that stops it, called once when the stream ends. A malformed value is refused
	// with problem, which says what was wrong (the request then fails with -32602). notify queues
	// a notification on the stream, tagged with the subscription id there; it never blocks, and
	// may be called from any goroutine until stop returns.
	Open func(ctx context.Context, value json.RawMessage, notify func(method string, params map[string]any)) (honoured any, stop func(), problem string)
}

// A Filter is what a subscriptions/listen request asks for.
type Filter struct {
	Kinds     Kinds
	Resources []string
	// Extensions holds the members that extensions read, by member.
	Extensions map[string]json.RawMessage
}

// A Fault is what is wrong with a listen request's filter.
type Fault struct {
	Text, Field, Expected string
}

// ReadFilter reads the filter of a subscriptions/listen request's params; members are the
// filter members that extensions read.
func ReadFilter(params json.RawMessage, members []string) (Filter, *Fault) {
	var f Filter
	var p struct {
		Notifications json.RawMessage `json:"notifications"`
	}
	bad := func(text, field, expected string) (Filter, *Fault) {
		return f, &Fault{Text: text, Field: field, Expected: expected}
	}
	if json.Unmarshal(params, &p) != nil || rawjson.Kind(p.Notifications) != "object" {
		return bad("subscriptions/listen needs params.notifications, an object that names the notifications to hear", "params.notifications", "an object")
	}
	var given map[string]json.RawMessage
	_ = json.Unmarshal(p.Notifications, &given) // an object always decodes
	for _, b := range []struct {
		member string
		kind   Kinds
	}{{"toolsListChanged", Tools}, {"promptsListChanged", Prompts}, {"resourcesListChanged", Resources}} {
		raw, ok := given[b.member]
		if !ok || rawjson.Kind(raw) == "null" {
			continue
		}
		var on bool
		if json.Unmarshal(raw, &on) != nil {
			return bad("params.notifications."+b.member+" must be true or false, got "+wording.Short(string(raw)), "params.notifications."+b.member, "a boolean")
		}
		if on {
			f.Kinds |= b.kind
		}
	}
	if raw, ok := given["resourceSubscriptions"]; ok && rawjson.Kind(raw) != "null" {
		if json.Unmarshal(raw, &f.Resources) != nil {
			return bad("params.notifications.resourceSubscriptions must be a list of resource URIs", "params.notifications.resourceSubscriptions", "an array of strings")
		}
		if len(f.Resources) > MaxResourceSubscriptions {
			return bad("params.notifications.resourceSubscriptions names "+strconv.Itoa(len(f.Resources))+" resources, more than this server's limit of "+strconv.Itoa(MaxResourceSubscriptions),
				"params.notifications.resourceSubscriptions", "at most "+strconv.Itoa(MaxResourceSubscriptions)+" URIs")
		}
		for _, uri := range f.Resources {
			if len(uri) > MaxSubscribedURI {
				return bad("a URI of params.notifications.resourceSubscriptions is "+strconv.Itoa(len(uri))+" bytes long, more than this server's limit of "+strconv.Itoa(MaxSubscribedURI),
					"params.notifications.resourceSubscriptions", "URIs of at most "+strconv.Itoa(MaxSubscribedURI)+" bytes")
			}
		}
	}
	for _, m := range members {
		if raw, ok := given[m]; ok && rawjson.Kind(raw) != "null" {
			if f.Extensions == nil {
				f.Extensions = make(map[string]json.RawMessage)
			}
			f.Extensions[m] = raw
		}
	}
	return f, nil
}

// A Set counts the open listen streams and ends them all when the server shuts down.
type Set struct {
	max     int
	mu      sync.Mutex
	open    int
	end     chan struct{}
	endOnce sync.Once
}

// Init bounds the set to max streams.
func (l *Set) Init(max int) {
	l.max = max
	l.end = make(chan struct{})
}

// Acquire takes a place for one more stream, or reports false when all are taken.
func (l *Set) Acquire() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.max {
		return false
	}
	l.open++
	return true
}

// Release gives a stream's place back.
func (l *Set) Release() {
	l.mu.Lock()
	l.open--
	l.mu.Unlock()
}

// EndAll ends every stream, open now or opened later, with its result.
func (l *Set) EndAll() { l.endOnce.Do(func() { close(l.end) }) }

// Open returns the number of streams open.
func (l *Set) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

// Ended is closed once EndAll is called.
func (l *Set) Ended() <-chan struct{} { return l.end }

// A Stream is one open subscriptions/listen: the notifications waiting to be written.
// The lists that changed are kept as a set, so that a burst of changes is one notification per
// list and never more memory.
type Stream struct {
	id   json.RawMessage
	wake chan struct{}

	mu       sync.Mutex
	pending  Kinds
	queue    []*jsonrpc.Notification
	overflow bool
}

// NewStream returns the stream of the listen request id.
func NewStream(id json.RawMessage) *Stream {
	return &Stream{id: id, wake: make(chan struct{}, 1)}
}

func (ls *Stream) signal() {
	select {
	case ls.wake <- struct{}{}:
	default:
	}
}

// Lists notes that the lists in k changed.
func (ls *Stream) Lists(k Kinds) {
	ls.mu.Lock()
	ls.pending |= k
	ls.mu.Unlock()
	ls.signal()
}

// Notify queues an extension's notification.
func (ls *Stream) Notify(method string, params map[string]any) {
	n := ls.Tagged(method, params)
	ls.mu.Lock()
	if len(ls.queue) >= MaxQueue {
		ls.overflow = true
	} else {
		ls.queue = append(ls.queue, n)
	}
	ls.mu.Unlock()
	ls.signal()
}

// Take returns what waits to be written and empties the stream.
func (ls *Stream) Take() (Kinds, []*jsonrpc.Notification, bool) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	k, q, over := ls.pending, ls.queue, ls.overflow
	ls.pending, ls.queue = 0, nil
	return k, q, over
}

// Tagged returns a notification of method with params and the subscription id in _meta.
func (ls *Stream) Tagged(method string, params map[string]any) *jsonrpc.Notification {
	p := make(map[string]any, len(params)+1)
	maps.Copy(p, params)
	meta := map[string]any{}
	if m, ok := params["_meta"].(map[string]any); ok {
		maps.Copy(meta, m)
	}
	meta[MetaSubscriptionID] = ls.id
	p["_meta"] = meta
	return &jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: method, Params: p}
}

// ID is the id of the stream's listen request.
func (ls *Stream) ID() json.RawMessage { return ls.id }

// Wake receives when something waits to be taken.
func (ls *Stream) Wake() <-chan struct{} { return ls.wake }

// ChangeMethods are the notifications of each list, in the order a burst writes them.
var ChangeMethods = []struct {
	Kind   Kinds
	Method string
}{{Tools, NotifyToolsChange}, {Prompts, NotifyPromptsChange}, {Resources, NotifyResourcesChange}}
