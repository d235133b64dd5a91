package listen

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/httpcheck"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/sse"
	"github.com/hootenanny/hoot/holler/internal/mcp/stdio"
	"github.com/hootenanny/hoot/holler/internal/mcp/streamable"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
)

// Method is subscriptions/listen's method.
const Method = "subscriptions/listen"

const notifyCancelled = "notifications/cancelled"

// A Host is what a Server needs of the MCP server that it serves the streams of.
type Host interface {
	// Lists returns the kinds of lists the server has, whose changes a stream may hear of.
	Lists() Kinds
	// HasResource reports whether the server has the resource uri.
	HasResource(uri string) bool
	// Extensions returns the features that stream more kinds, each with its member of the
	// filter.
	Extensions() []Extension
	// Complete returns the result that ends a stream, as the 2026-07-28 era writes it.
	Complete(resp *jsonrpc.Response) *jsonrpc.Response
}

// A Server serves subscriptions/listen: it reads the filter, subscribes the stream to the
// server's changes (hub) and its extensions, and writes the stream, bounded by set, until the
// client goes or the server shuts down.
type Server struct {
	host          Host
	set           *Set
	hub           *Hub
	keepAlive     time.Duration
	minimalErrors bool
	log           *slog.Logger
}

// NewServer returns the Server of host's streams, counted by set (which Init bounded) and fed
// by hub. Over HTTP a quiet stream gets a keep-alive every keepAlive; minimalErrors leaves the
// guidance out of errors.
func NewServer(host Host, set *Set, hub *Hub, keepAlive time.Duration, minimalErrors bool, log *slog.Logger) *Server {
	return &Server{host: host, set: set, hub: hub, keepAlive: keepAlive, minimalErrors: minimalErrors, log: log}
}

// fail returns an error response with guidance g, or without data when guidance is off.
func (s *Server) fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response {
	if s.minimalErrors || g == nil {
		return jsonrpc.NewError(id, code, msg, nil)
	}
	return jsonrpc.NewError(id, code, msg, g)
}

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
// id in _meta. The list changes come from the one fan-out of the server's changes (a Hub), the same one
// that tells the older era's sessions. Nothing outlives the stream, so any gateway can serve one.
//
// A feature that streams more kinds (such as the tasks extension's taskIds) is an Extension
// that the Host lists: it reads its member of the filter, says what it honours, and queues its
// notifications on the stream, which tags them.

// readListen reads the filter of a subscriptions/listen request.
func (s *Server) readListen(msg *jsonrpc.Message) (Filter, *jsonrpc.Response) {
	exts := s.host.Extensions()
	members := make([]string, len(exts))
	for i, e := range exts {
		members[i] = e.Member
	}
	f, bad := ReadFilter(msg.Params, members)
	if bad != nil {
		return f, s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: "+bad.Text, &guidance.Data{
			Hint:     "Send params.notifications with the kinds to hear: toolsListChanged, promptsListChanged and resourcesListChanged (true or false) and resourceSubscriptions (a list of resource URIs), as in try.",
			Field:    bad.Field,
			Expected: bad.Expected,
			Try:      tryListen(),
		})
	}
	return f, nil
}

// openListen subscribes a new stream for the listen request msg to what f asks and this server
// honours. It returns the stream, its acknowledgement, and the function that unsubscribes it.
func (s *Server) openListen(ctx context.Context, msg *jsonrpc.Message, f Filter) (*Stream, *jsonrpc.Notification, func(), *jsonrpc.Response) {
	ls := NewStream(msg.ID)
	lists := s.host.Lists()
	honoured := f.Kinds & lists
	ack := map[string]any{}
	if lists&Resources != 0 {
		// Resources here are write-once (stored objects, artifacts' contents, fixtures): a
		// subscription to one that exists is honoured, and never fires.
		var known []string
		for _, uri := range f.Resources {
			if s.host.HasResource(uri) {
				known = append(known, uri)
			}
		}
		if len(known) > 0 {
			ack["resourceSubscriptions"] = known
		}
	}
	for _, b := range []struct {
		kind   Kinds
		member string
	}{{Tools, "toolsListChanged"}, {Prompts, "promptsListChanged"}, {Resources, "resourcesListChanged"}} {
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
		stops = append(stops, s.hub.Subscribe(honoured, ls.Lists))
	}
	for _, e := range s.host.Extensions() {
		raw, ok := f.Extensions[e.Member]
		if !ok {
			continue
		}
		h, stop, problem := e.Open(ctx, raw, ls.Notify)
		if problem != "" {
			stopAll()
			return nil, nil, nil, s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: params.notifications."+e.Member+": "+problem, &guidance.Data{
				Hint:  "Fix params.notifications." + e.Member + " as the message says, or leave it out.",
				Field: "params.notifications." + e.Member,
				Try:   tryListen(),
			})
		}
		if stop != nil {
			stops = append(stops, stop)
		}
		if h != nil {
			ack[e.Member] = h
		}
	}
	return ls, ls.Tagged(NotifyAck, map[string]any{"notifications": ack}), stopAll, nil
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
func (s *Server) runListen(ctx context.Context, ls *Stream, emit func([]byte) bool, interval time.Duration, keep func() bool) listenEnd {
	var tick <-chan time.Time
	if keep != nil && interval > 0 {
		t := time.NewTicker(interval)
		defer t.Stop()
		tick = t.C
	}
	for {
		end := func() listenEnd {
			res := s.host.Complete(jsonrpc.NewResult(ls.ID(), map[string]any{
				"_meta": map[string]any{MetaSubscriptionID: ls.ID()},
			}))
			emit(toolresult.Marshal(res))
			return listenShutdown
		}
		select {
		case <-ctx.Done():
			// The server's shutdown ends the request's context too; it still owes the result.
			select {
			case <-s.set.Ended():
				return end()
			default:
				return listenClientEnded
			}
		case <-s.set.Ended():
			return end()
		case <-tick:
			if !keep() {
				return listenClientEnded
			}
		case <-ls.Wake():
			kinds, queue, overflow := ls.Take()
			for _, c := range ChangeMethods {
				if kinds&c.Kind != 0 && !emit(toolresult.Marshal(ls.Tagged(c.Method, nil))) {
					return listenClientEnded
				}
			}
			for _, n := range queue {
				if !emit(toolresult.Marshal(n)) {
					return listenClientEnded
				}
			}
			if overflow {
				s.log.Warn("mcp: a subscriptions/listen stream fell behind and was ended", "id", string(ls.ID()))
				return listenFellBehind
			}
		}
	}
}

// ServeHTTP answers subscriptions/listen over HTTP with an event stream that stays open
// until the client closes it or the server shuts down. ctx ends when the client goes.
func (s *Server) ServeHTTP(ctx context.Context, w http.ResponseWriter, r *http.Request, msg *jsonrpc.Message) {
	f, fail := s.readListen(msg)
	if fail != nil {
		streamable.WriteJSON(w, http.StatusBadRequest, fail)
		return
	}
	if _, sseOK := httpcheck.Accepts(r.Header.Values("Accept")); !sseOK {
		streamable.WriteJSON(w, http.StatusNotAcceptable, s.fail(msg.ID, jsonrpc.CodeInvalidRequest, "subscriptions/listen answers with an event stream: the Accept header must allow text/event-stream", &guidance.Data{
			Hint: "Send the request with the header Accept: application/json, text/event-stream.",
		}))
		return
	}
	if !s.set.Acquire() {
		w.Header().Set("Retry-After", "5")
		streamable.WriteJSON(w, http.StatusServiceUnavailable, s.fail(msg.ID, jsonrpc.CodeInternalError, "this server has "+strconv.Itoa(s.set.max)+" subscriptions/listen streams open, its limit", &guidance.Data{
			Hint: "Close a listen stream you no longer read (one stream can ask for every kind of notification), or try again later or at another gateway.",
		}))
		return
	}
	defer s.set.Release()
	ls, ack, stop, fail := s.openListen(ctx, msg, f)
	if fail != nil {
		streamable.WriteJSON(w, http.StatusBadRequest, fail)
		return
	}
	defer stop()
	sw := sse.NewWriter(w)
	sw.Start()
	sw.Event("", toolresult.Marshal(ack))
	emit := func(b []byte) bool {
		sw.Event("", b)
		return sw.Err() == nil
	}
	s.runListen(ctx, ls, emit, s.keepAlive, func() bool {
		sw.KeepAlive()
		return sw.Err() == nil
	})
}

// ServeLines answers subscriptions/listen over stdio: the acknowledgement and the
// notifications as lines, until the client cancels the request (notifications/cancelled, which
// ends ctx) or the server shuts down. It returns the response to write when the request fails
// before the stream opens, and nil otherwise.
func (s *Server) ServeLines(ctx context.Context, w *stdio.Writer, msg *jsonrpc.Message) *jsonrpc.Response {
	f, fail := s.readListen(msg)
	if fail != nil {
		return fail
	}
	if !s.set.Acquire() {
		return s.fail(msg.ID, jsonrpc.CodeInternalError, "this server has "+strconv.Itoa(s.set.max)+" subscriptions/listen streams open, its limit", &guidance.Data{
			Hint: "Cancel a listen stream you no longer read (one stream can ask for every kind of notification).",
		})
	}
	defer s.set.Release()
	ls, ack, stop, fail := s.openListen(ctx, msg, f)
	if fail != nil {
		return fail
	}
	defer stop()
	// Nobody can cancel the stream once the input has ended.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-w.InputEnded():
			cancel()
		case <-ctx.Done():
		}
	}()
	w.Notify(ack)
	how := s.runListen(ctx, ls, func(b []byte) bool {
		w.WriteLine(b)
		return w.Err() == nil
	}, 0, nil)
	if how == listenFellBehind {
		// stdio has no stream to close: the server ends a listen request it gives up on with
		// notifications/cancelled naming it (the only request it ever cancels so).
		w.Notify(&jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: notifyCancelled, Params: map[string]any{
			"requestId": ls.ID(),
			"reason":    "the client read the subscription's notifications too slowly; listen again",
		}})
	}
	return nil
}

// tryListen returns a subscriptions/listen request to copy.
func tryListen() json.RawMessage {
	return json.RawMessage(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"_meta":{"` + era.MetaProtocolVersion + `":"` +
		era.V20260728 + `","` + era.MetaClientCapabilities + `":{}},"notifications":{"toolsListChanged":true,"promptsListChanged":true,"resourcesListChanged":true}}}`)
}
