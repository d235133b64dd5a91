package mcp

import (
	"context"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
)

// The method table.
//
// Every method this server knows is one row of methodTable: how each era serves it (nil
// where the era does not have it), whether the server offers it in the 2026-07-28 era, and
// whether it makes its own checks. Both transports and both eras route through it: a
// transport decodes a message, decides its era once (eraOf), makes the era's envelope checks,
// and hands the message to handle, whose dispatch finds the row. The lists of methods that
// errors name, and the methods server/discover declares, are read from the same rows, so they
// cannot disagree with what is served.

// A methodRequest is one JSON-RPC request as a method's handler gets it: its session (the
// connection's over stdio, the client's over HTTP, one made for the request alone in the
// 2026-07-28 era), the message, and where its notifications go (nil when the transport cannot
// carry them).
type methodRequest struct {
	sess *sessions.Session
	msg  *message
	out  sessions.Notifier
}

// A methodHandler answers one request.
type methodHandler func(s *Server, ctx context.Context, rq methodRequest) *jsonrpc.Response

// A methodInfo is one row of the method table.
type methodInfo struct {
	name string
	// legacy and modern answer the method in each era; nil where the era does not have it.
	legacy, modern methodHandler
	// notify acts on the method as a notification from the client (legacy era).
	notify func(s *Server, sess *sessions.Session, msg *message)
	// byTransport marks a modern method that the transport serves itself, because its answer
	// is a stream of the transport's own (subscriptions/listen).
	byTransport bool
	// offered, if not nil, says whether this server offers the method in the 2026-07-28 era:
	// what server/discover declares (prompts, resources, completion and tasks need their tools).
	offered func(s *Server) bool
	// ownChecks marks a method whose handler checks the session's state and the params
	// itself; dispatch checks them for every other one.
	ownChecks bool
}

// methodTable lists the methods in the order that errors name them; methodByName indexes it.
var (
	methodTable  []methodInfo
	methodByName map[string]*methodInfo
	// methodList names the methods a legacy client may send, for the guidance of an unknown
	// method.
	methodList []string
)

func init() {
	methodTable = []methodInfo{
		{name: methodInitialize, ownChecks: true, legacy: func(s *Server, _ context.Context, rq methodRequest) *jsonrpc.Response {
			// A session that is initialized already is told so by initialize, whatever its params.
			if !rq.sess.IsInitialized() {
				if r := s.badParams(rq.msg, false); r != nil {
					return r
				}
			}
			return s.initialize(rq.sess, rq.msg)
		}},
		{name: methodPing, ownChecks: true, legacy: func(s *Server, _ context.Context, rq methodRequest) *jsonrpc.Response {
			if r := s.badParams(rq.msg, false); r != nil {
				return r
			}
			return jsonrpc.NewResult(rq.msg.ID, struct{}{})
		}},
		{name: era.MethodDiscover, modern: func(s *Server, ctx context.Context, rq methodRequest) *jsonrpc.Response {
			return s.discover(ctx, rq.msg.ID)
		}},
		{name: methodListen, byTransport: true},
		{name: methodToolsList, legacy: serveToolsList, modern: serveToolsList},
		{name: methodToolsCall, legacy: serveToolsCall, modern: serveToolsCall},
		{name: methodSetLevel, legacy: func(s *Server, _ context.Context, rq methodRequest) *jsonrpc.Response {
			return s.setLogLevel(rq.sess, rq.msg)
		}},
		{name: notifyInitialized, notify: func(_ *Server, sess *sessions.Session, _ *message) {
			sess.MarkReady()
		}},
		{name: notifyCancelled, notify: (*Server).cancelRequest},
		entryRow(methodPromptsList, (*Server).listPrompts, hasPrompts),
		{name: methodPromptsGet, legacy: (*Server).getPrompt, modern: (*Server).getPrompt, offered: hasPrompts},
		entryRow(methodResourcesList, (*Server).listResources, hasResources),
		{name: methodResourcesRead, legacy: (*Server).readResource, modern: (*Server).readResource, offered: hasResources},
		entryRow(methodResourceTemplates, (*Server).listResourceTemplates, hasResources),
		{name: methodSubscribe, legacy: serveEntry((*Server).subscribe)},
		{name: methodUnsubscribe, legacy: serveEntry((*Server).subscribe)},
		entryRow(methodComplete, (*Server).complete, hasCompletions),
		// The tasks of 2025-11-25 exist in a session whose client declared them; those of the
		// 2026-07-28 era's extension on a server that has the tools of jobs.
		{name: methodTasksGet, legacy: serveLegacyTask, modern: serveModernTask, offered: (*Server).tasksSupported, ownChecks: true},
		{name: methodTasksResult, legacy: serveLegacyTask, ownChecks: true},
		{name: methodTasksList, legacy: serveLegacyTask, ownChecks: true},
		{name: methodTasksCancel, legacy: serveLegacyTask, modern: serveModernTask, offered: (*Server).tasksSupported, ownChecks: true},
		{name: methodTasksUpdate, modern: serveModernTask, offered: (*Server).tasksSupported, ownChecks: true},
	}
	methodByName = make(map[string]*methodInfo, len(methodTable))
	for i := range methodTable {
		m := &methodTable[i]
		methodByName[m.name] = m
		// The legacy tasks methods exist only in sessions with tasks: they are not named to
		// every client.
		if (m.legacy != nil && !tasks.IsLegacyMethod(m.name)) || m.notify != nil {
			methodList = append(methodList, m.name)
		}
	}
}

// dispatch answers a request through the method table, in the era of its session.
func (s *Server) dispatch(ctx context.Context, sess *sessions.Session, msg *message, out sessions.Notifier) *jsonrpc.Response {
	m := methodByName[msg.Method]
	var h methodHandler
	if m != nil {
		h = m.legacy
		if sess.Modern {
			h = m.modern
		}
	}
	if h == nil {
		if sess.Modern {
			return s.modernMethodNotFound(msg)
		}
		return s.methodNotFound(msg)
	}
	if !m.ownChecks {
		if !sess.IsInitialized() {
			return s.notInitialized(msg.ID)
		}
		if r := s.badParams(msg, sess.Modern); r != nil {
			return r
		}
	}
	return h(s, ctx, methodRequest{sess: sess, msg: msg, out: out})
}

// handleNotification acts on a notification from the client. Notifications are never
// answered, not even with an error.
func (s *Server) handleNotification(sess *sessions.Session, msg *message) {
	if m := methodByName[msg.Method]; m != nil && m.notify != nil {
		m.notify(s, sess, msg)
		return
	}
	s.log.Debug("mcp: ignoring a notification", "method", msg.Method)
}

// modernMethods returns the methods the modern era answers on this server, in table order:
// the ones whose capability server/discover declares, so that both always agree.
func (s *Server) modernMethods() []string {
	var out []string
	for i := range methodTable {
		if m := &methodTable[i]; s.offersModern(m) {
			out = append(out, m.name)
		}
	}
	return out
}

// modernMethod reports whether the modern era answers method on this server.
func (s *Server) modernMethod(method string) bool {
	m := methodByName[method]
	return m != nil && s.offersModern(m)
}

// offersModern reports whether this server answers m in the modern era.
func (s *Server) offersModern(m *methodInfo) bool {
	return (m.modern != nil || m.byTransport) && (m.offered == nil || m.offered(s))
}

// hasPrompts, hasResources and hasCompletions say whether the table has what the methods of
// prompts, resources and completion serve.
func hasPrompts(s *Server) bool   { return s.entryCapabilities(serverCapabilities{}).Prompts != nil }
func hasResources(s *Server) bool { return s.entryCapabilities(serverCapabilities{}).Resources != nil }
func hasCompletions(s *Server) bool {
	return s.entryCapabilities(serverCapabilities{}).Completions != nil
}

// entryRow is the row of a method of prompts, resources or completion that both eras have.
func entryRow(name string, f func(*Server, context.Context, *message) *jsonrpc.Response, offered func(*Server) bool) methodInfo {
	return methodInfo{name: name, legacy: serveEntry(f), modern: serveEntry(f), offered: offered}
}

// serveEntry adapts a handler of the message alone.
func serveEntry(f func(*Server, context.Context, *message) *jsonrpc.Response) methodHandler {
	return func(s *Server, ctx context.Context, rq methodRequest) *jsonrpc.Response { return f(s, ctx, rq.msg) }
}

// serveToolsList answers tools/list, with each tool's task support in a session with tasks.
func serveToolsList(s *Server, ctx context.Context, rq methodRequest) *jsonrpc.Response {
	if rq.sess.TaskList() != nil {
		return s.withTaskSupport(s.listTools(ctx, rq.msg))
	}
	return s.listTools(ctx, rq.msg)
}

// serveToolsCall answers tools/call, observed when the server has an observer or a tracer.
func serveToolsCall(s *Server, ctx context.Context, rq methodRequest) *jsonrpc.Response {
	if rq.sess.TaskList() != nil {
		if r := s.checkLegacyTaskCall(rq.sess, rq.msg); r != nil {
			return r
		}
	}
	if s.cfg.Observer == nil && s.cfg.Tracer == nil {
		return s.calls.CallTool(ctx, rq.sess, &rq.msg.Message, rq.out)
	}
	return s.observeCall(ctx, rq.sess, rq.msg, rq.out)
}

// serveLegacyTask answers the tasks methods of 2025-11-25, which exist only in a session
// whose client declared tasks.
func serveLegacyTask(s *Server, ctx context.Context, rq methodRequest) *jsonrpc.Response {
	if rq.sess.TaskList() == nil {
		return s.methodNotFound(rq.msg)
	}
	if r := s.badParams(rq.msg, false); r != nil {
		return r
	}
	return s.serveLegacyTask(ctx, rq.sess, rq.msg, rq.out)
}

// serveModernTask answers the tasks extension's methods of the 2026-07-28 era.
func serveModernTask(s *Server, ctx context.Context, rq methodRequest) *jsonrpc.Response {
	if r := s.badParams(rq.msg, true); r != nil {
		return r
	}
	return s.serveTask(ctx, rq.msg)
}
