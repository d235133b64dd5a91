package mcp

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/httpcheck"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/sse"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
)

// subscriptions/listen (2026-07-28).
//
// The 2026-07-28 era has no session stream; a client that wants to hear of changes opens
// subscriptions/listen, a request whose answer stays open: an event stream over HTTP, a run of
// lines over stdio. It asks in params.notifications for the kinds it wants (a filter); the first
// message is notifications/subscriptions/acknowledged with the part of the filter this server
// honours, and every notification after it carries the listen request's id in
// params._meta["io.modelcontextprotocol/subscriptionId"]. The stream ends when the client closes
// it (HTTP) or cancels the request (stdio, notifications/cancelled); when the server shuts down
// it ends the stream with the request's result, {"resultType":"complete"} and the subscription
// id in _meta. The list changes come from the one fan-out of changes.go, the same one that tells
// the older era's sessions. Nothing outlives the stream, so any gateway can serve one.
//
// A feature that streams more kinds (such as the tasks extension's taskIds) adds a
// listenExtension to Server.listenExtensions: it reads its member of the filter, says what it
// honours, and queues its notifications on the stream, which tags them.

// The method, notifications and _meta key of subscriptions/listen.
const (
	methodListen          = "subscriptions/listen"
	notifyListenAck       = "notifications/subscriptions/acknowledged"
	notifyPromptsChange   = "notifications/prompts/list_changed"
	notifyResourcesChange = "notifications/resources/list_changed"
	metaSubscriptionID    = "io.modelcontextprotocol/subscriptionId"
)

// Bounds of one listen stream.
const (
	// maxResourceSubscriptions bounds the URIs of one filter's resourceSubscriptions, and
	// maxSubscribedURI the length of each.
	maxResourceSubscriptions = 100
	maxSubscribedURI         = 4096
	// maxListenQueue bounds the extensions' notifications waiting on one stream; a stream whose
	// client reads too slowly for them is ended, and the client listens again.
	maxListenQueue = 256
)

// A listenExtension serves one more member of a subscriptions/listen filter.
type listenExtension struct {
	// member is the filter's member it reads, such as "taskIds".
	member string
	// open starts serving the member for one stream, with value its JSON value. It returns what
	// it honours (written into the acknowledgement under member; nil leaves member out), and a
	// function that stops it, called once when the stream ends. A malformed value is refused
	// with problem, which says what was wrong (the request then fails with -32602). notify queues
	// a notification on the stream, tagged with the subscription id there; it never blocks, and
	// may be called from any goroutine until stop returns.
	open func(ctx context.Context, value json.RawMessage, notify func(method string, params map[string]any)) (honoured any, stop func(), problem string)
}

// A listenFilter is what a subscriptions/listen request asks for.
type listenFilter struct {
	kinds     listKinds
	resources []string
	// extensions holds the members that listenExtensions read, by member.
	extensions map[string]json.RawMessage
}

// A listenSet counts the open listen streams and ends them all when the server shuts down.
type listenSet struct {
	max     int
	mu      sync.Mutex
	open    int
	end     chan struct{}
	endOnce sync.Once
}

func (l *listenSet) init(max int) {
	l.max = max
	l.end = make(chan struct{})
}

// acquire takes a place for one more stream, or reports false when all are taken.
func (l *listenSet) acquire() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.open >= l.max {
		return false
	}
	l.open++
	return true
}

func (l *listenSet) release() {
	l.mu.Lock()
	l.open--
	l.mu.Unlock()
}

// endAll ends every stream, open now or opened later, with its result.
func (l *listenSet) endAll() { l.endOnce.Do(func() { close(l.end) }) }

// EndSubscriptions ends every subscriptions/listen stream with its result, as the protocol asks
// of a server that shuts down; streams opened later end at once. An HTTP server calls it when
// it begins to shut down (http.Server.RegisterOnShutdown), since the streams would otherwise
// hold the shutdown until its deadline. Close calls it too.
func (s *Server) EndSubscriptions() { s.listens.endAll() }

// A listenStream is one open subscriptions/listen: the notifications waiting to be written.
// The lists that changed are kept as a set, so that a burst of changes is one notification per
// list and never more memory.
type listenStream struct {
	id   json.RawMessage
	wake chan struct{}

	mu       sync.Mutex
	pending  listKinds
	queue    []*jsonrpc.Notification
	overflow bool
}

func newListenStream(id json.RawMessage) *listenStream {
	return &listenStream{id: id, wake: make(chan struct{}, 1)}
}

func (ls *listenStream) signal() {
	select {
	case ls.wake <- struct{}{}:
	default:
	}
}

// lists notes that the lists in k changed.
func (ls *listenStream) lists(k listKinds) {
	ls.mu.Lock()
	ls.pending |= k
	ls.mu.Unlock()
	ls.signal()
}

// notify queues an extension's notification.
func (ls *listenStream) notify(method string, params map[string]any) {
	n := ls.tagged(method, params)
	ls.mu.Lock()
	if len(ls.queue) >= maxListenQueue {
		ls.overflow = true
	} else {
		ls.queue = append(ls.queue, n)
	}
	ls.mu.Unlock()
	ls.signal()
}

// take returns what waits to be written and empties the stream.
func (ls *listenStream) take() (listKinds, []*jsonrpc.Notification, bool) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	k, q, over := ls.pending, ls.queue, ls.overflow
	ls.pending, ls.queue = 0, nil
	return k, q, over
}

// tagged returns a notification of method with params and the subscription id in _meta.
func (ls *listenStream) tagged(method string, params map[string]any) *jsonrpc.Notification {
	p := make(map[string]any, len(params)+1)
	maps.Copy(p, params)
	meta := map[string]any{}
	if m, ok := params["_meta"].(map[string]any); ok {
		maps.Copy(meta, m)
	}
	meta[metaSubscriptionID] = ls.id
	p["_meta"] = meta
	return &jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: method, Params: p}
}

// listChangeMethods are the notifications of each list, in the order a burst writes them.
var listChangeMethods = []struct {
	kind   listKinds
	method string
}{{listTools, notifyToolsChange}, {listPrompts, notifyPromptsChange}, {listResources, notifyResourcesChange}}

// readListen reads the filter of a subscriptions/listen request.
func (s *Server) readListen(msg *message) (listenFilter, *jsonrpc.Response) {
	var f listenFilter
	var p struct {
		Notifications json.RawMessage `json:"notifications"`
	}
	bad := func(text, field, expected string) (listenFilter, *jsonrpc.Response) {
		return f, s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: "+text, &guidance.Data{
			Hint:     "Send params.notifications with the kinds to hear: toolsListChanged, promptsListChanged and resourcesListChanged (true or false) and resourceSubscriptions (a list of resource URIs), as in try.",
			Field:    field,
			Expected: expected,
			Try:      tryListen(),
		})
	}
	if json.Unmarshal(msg.Params, &p) != nil || rawjson.Kind(p.Notifications) != "object" {
		return bad("subscriptions/listen needs params.notifications, an object that names the notifications to hear", "params.notifications", "an object")
	}
	var members map[string]json.RawMessage
	_ = json.Unmarshal(p.Notifications, &members) // an object always decodes
	for _, b := range []struct {
		member string
		kind   listKinds
	}{{"toolsListChanged", listTools}, {"promptsListChanged", listPrompts}, {"resourcesListChanged", listResources}} {
		raw, ok := members[b.member]
		if !ok || rawjson.Kind(raw) == "null" {
			continue
		}
		var on bool
		if json.Unmarshal(raw, &on) != nil {
			return bad("params.notifications."+b.member+" must be true or false, got "+wording.Short(string(raw)), "params.notifications."+b.member, "a boolean")
		}
		if on {
			f.kinds |= b.kind
		}
	}
	if raw, ok := members["resourceSubscriptions"]; ok && rawjson.Kind(raw) != "null" {
		if json.Unmarshal(raw, &f.resources) != nil {
			return bad("params.notifications.resourceSubscriptions must be a list of resource URIs", "params.notifications.resourceSubscriptions", "an array of strings")
		}
		if len(f.resources) > maxResourceSubscriptions {
			return bad("params.notifications.resourceSubscriptions names "+strconv.Itoa(len(f.resources))+" resources, more than this server's limit of "+strconv.Itoa(maxResourceSubscriptions),
				"params.notifications.resourceSubscriptions", "at most "+strconv.Itoa(maxResourceSubscriptions)+" URIs")
		}
		for _, uri := range f.resources {
			if len(uri) > maxSubscribedURI {
				return bad("a URI of params.notifications.resourceSubscriptions is "+strconv.Itoa(len(uri))+" bytes long, more than this server's limit of "+strconv.Itoa(maxSubscribedURI),
					"params.notifications.resourceSubscriptions", "URIs of at most "+strconv.Itoa(maxSubscribedURI)+" bytes")
			}
		}
	}
	for _, e := range s.listenExtensions {
		if raw, ok := members[e.member]; ok && rawjson.Kind(raw) != "null" {
			if f.extensions == nil {
				f.extensions = make(map[string]json.RawMessage)
			}
			f.extensions[e.member] = raw
		}
	}
	return f, nil
}

// openListen subscribes a new stream for the listen request msg to what f asks and this server
// honours. It returns the stream, its acknowledgement, and the function that unsubscribes it.
func (s *Server) openListen(ctx context.Context, msg *message, f listenFilter) (*listenStream, *jsonrpc.Notification, func(), *jsonrpc.Response) {
	ls := newListenStream(msg.ID)
	caps := s.modernCapabilities()
	honoured := f.kinds & listTools
	if caps.Prompts != nil {
		honoured |= f.kinds & listPrompts
	}
	ack := map[string]any{}
	if caps.Resources != nil {
		honoured |= f.kinds & listResources
		// Resources here are write-once (stored objects, artifacts' contents, fixtures): a
		// subscription to one that exists is honoured, and never fires.
		var known []string
		for _, uri := range f.resources {
			if s.entries.HasResource(uri) {
				known = append(known, uri)
			}
		}
		if len(known) > 0 {
			ack["resourceSubscriptions"] = known
		}
	}
	for _, b := range []struct {
		kind   listKinds
		member string
	}{{listTools, "toolsListChanged"}, {listPrompts, "promptsListChanged"}, {listResources, "resourcesListChanged"}} {
		if honoured&b.kind != 0 {
			ack[b.member] = true
		}
	}
	var stops []func()
	stopAll := func() {
		for _, stop := range stops {
			stop()
		}
	}
	if honoured != 0 {
		stops = append(stops, s.changes.subscribe(honoured, ls.lists))
	}
	for _, e := range s.listenExtensions {
		raw, ok := f.extensions[e.member]
		if !ok {
			continue
		}
		h, stop, problem := e.open(ctx, raw, ls.notify)
		if problem != "" {
			stopAll()
			return nil, nil, nil, s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: params.notifications."+e.member+": "+problem, &guidance.Data{
				Hint:  "Fix params.notifications." + e.member + " as the message says, or leave it out.",
				Field: "params.notifications." + e.member,
				Try:   tryListen(),
			})
		}
		if stop != nil {
			stops = append(stops, stop)
		}
		if h != nil {
			ack[e.member] = h
		}
	}
	return ls, ls.tagged(notifyListenAck, map[string]any{"notifications": ack}), stopAll, nil
}

// How a listen stream ended.
type listenEnd int

const (
	listenClientEnded listenEnd = iota // the client closed or cancelled it, or writing failed
	listenShutdown                     // the server shut down and wrote the result
	listenFellBehind                   // the client read too slowly for the queue
)

// runListen writes the stream's notifications with emit until ctx ends (the client closed or
// cancelled it), emit fails, the client falls behind, or the server shuts down, when it writes
// the request's result last. keep, if not nil, sends a keep-alive whenever the stream was quiet
// for interval.
func (s *Server) runListen(ctx context.Context, ls *listenStream, emit func([]byte) bool, interval time.Duration, keep func() bool) listenEnd {
	var tick <-chan time.Time
	if keep != nil && interval > 0 {
		t := time.NewTicker(interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		end := func() listenEnd {
			res := s.modernResponse(methodListen, jsonrpc.NewResult(ls.id, map[string]any{
				"_meta": map[string]any{metaSubscriptionID: ls.id},
			}))
			emit(encode(res))
			return listenShutdown
		}
		select {
		case <-ctx.Done():
			// The server's shutdown ends the request's context too; it still owes the result.
			select {
			case <-s.listens.end:
				return end()
			default:
				return listenClientEnded
			}
		case <-s.listens.end:
			return end()
		case <-tick:
			if !keep() {
				return listenClientEnded
			}
		case <-ls.wake:
			kinds, queue, overflow := ls.take()
			for _, c := range listChangeMethods {
				if kinds&c.kind != 0 && !emit(encode(ls.tagged(c.method, nil))) {
					return listenClientEnded
				}
			}
			for _, n := range queue {
				if !emit(encode(n)) {
					return listenClientEnded
				}
			}
			if overflow {
				s.log.Warn("mcp: a subscriptions/listen stream fell behind and was ended", "id", string(ls.id))
				return listenFellBehind
			}
		}
	}
}

// serveListenHTTP answers subscriptions/listen over HTTP with an event stream that stays open
// until the client closes it or the server shuts down. ctx ends when the client goes.
func (s *Server) serveListenHTTP(ctx context.Context, w http.ResponseWriter, r *http.Request, msg *message) {
	f, fail := s.readListen(msg)
	if fail != nil {
		s.writeJSON(w, http.StatusBadRequest, fail)
		return
	}
	if _, sseOK := httpcheck.Accepts(r.Header.Values("Accept")); !sseOK {
		s.writeJSON(w, http.StatusNotAcceptable, s.fail(msg.ID, jsonrpc.CodeInvalidRequest, "subscriptions/listen answers with an event stream: the Accept header must allow text/event-stream", &guidance.Data{
			Hint: "Send the request with the header Accept: application/json, text/event-stream.",
		}))
		return
	}
	if !s.listens.acquire() {
		w.Header().Set("Retry-After", "5")
		s.writeJSON(w, http.StatusServiceUnavailable, s.fail(msg.ID, jsonrpc.CodeInternalError, "this server has "+strconv.Itoa(s.cfg.MaxListens)+" subscriptions/listen streams open, its limit", &guidance.Data{
			Hint: "Close a listen stream you no longer read (one stream can ask for every kind of notification), or try again later or at another gateway.",
		}))
		return
	}
	defer s.listens.release()
	ls, ack, stop, fail := s.openListen(ctx, msg, f)
	if fail != nil {
		s.writeJSON(w, http.StatusBadRequest, fail)
		return
	}
	defer stop()
	sw := sse.NewWriter(w)
	sw.Start()
	sw.Event("", encode(ack))
	emit := func(b []byte) bool {
		sw.Event("", b)
		return sw.Err() == nil
	}
	s.runListen(ctx, ls, emit, s.cfg.KeepAlive, func() bool {
		sw.KeepAlive()
		return sw.Err() == nil
	})
}

// serveListenLines answers subscriptions/listen over stdio: the acknowledgement and the
// notifications as lines, until the client cancels the request (notifications/cancelled, which
// ends ctx) or the server shuts down. It returns the response to write when the request fails
// before the stream opens, and nil otherwise.
func (s *Server) serveListenLines(ctx context.Context, w *lineWriter, msg *message) *jsonrpc.Response {
	f, fail := s.readListen(msg)
	if fail != nil {
		return fail
	}
	if !s.listens.acquire() {
		return s.fail(msg.ID, jsonrpc.CodeInternalError, "this server has "+strconv.Itoa(s.cfg.MaxListens)+" subscriptions/listen streams open, its limit", &guidance.Data{
			Hint: "Cancel a listen stream you no longer read (one stream can ask for every kind of notification).",
		})
	}
	defer s.listens.release()
	ls, ack, stop, fail := s.openListen(ctx, msg, f)
	if fail != nil {
		return fail
	}
	defer stop()
	if w.inputEnded != nil {
		// Nobody can cancel the stream once the input has ended.
		var cancel context.CancelFunc
		ctx, cancel = context.WithCancel(ctx)
		defer cancel()
		go func() {
			select {
			case <-w.inputEnded:
				cancel()
			case <-ctx.Done():
			}
		}()
	}
	w.notify(ack)
	how := s.runListen(ctx, ls, func(b []byte) bool {
		w.WriteLine(b)
		return w.Err() == nil
	}, 0, nil)
	if how == listenFellBehind {
		// stdio has no stream to close: the server ends a listen request it gives up on with
		// notifications/cancelled naming it (the only request it ever cancels so).
		w.notify(&jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: notifyCancelled, Params: map[string]any{
			"requestId": ls.id,
			"reason":    "the client read the subscription's notifications too slowly; listen again",
		}})
	}
	return nil
}

// tryListen returns a subscriptions/listen request to copy.
func tryListen() json.RawMessage {
	return json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{"` + metaProtocolVersion + `":"` +
		protocolVersion20260728 + `","` + metaClientCapabilities + `":{}},"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true}}}`)
}
