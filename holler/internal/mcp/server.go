package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/entries"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/listen"
	"github.com/hootenanny/hoot/holler/internal/mcp/mcpheader"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/sse"
	"github.com/hootenanny/hoot/holler/internal/mcp/streamable"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolcall"
	"github.com/hootenanny/hoot/holler/internal/mcp/toollist"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
)

// ErrServerClosed is returned by [Server.ServeStdio] after [Server.Close].
var ErrServerClosed = errors.New("mcp: server closed")

// The methods this server knows (the rows of methodTable, methods.go).
const (
	methodInitialize  = "initialize"
	methodPing        = "ping"
	methodToolsList   = "tools/list"
	methodToolsCall   = "tools/call"
	notifyInitialized = "notifications/initialized"
	notifyCancelled   = "notifications/cancelled"
	notifyProgress    = toolcall.NotifyProgress
	methodSetLevel    = "logging/setLevel"
	notifyMessage     = "notifications/message"
	notifyToolsChange = listen.NotifyToolsChange
)

// A Server is an MCP server over a generated tool table. It serves Streamable HTTP as an
// http.Handler and stdio with ServeStdio; both share one core and the same tool policy.
type Server struct {
	// modernMetaJSON is the _meta of 2026-07-28 results, made once (serverInfoMeta).
	modernMetaOnce sync.Once
	modernMetaJSON []byte
	// hasher makes the schema hash (schema.go).
	hasher *toollist.Hasher
	cfg    *Config
	log    *slog.Logger
	// policy decides which calls may go to a worker (package consent).
	policy consent.Policy

	// tools holds every tool of the table by name, allowed or not, so that a tool above the
	// tier limit is refused by name rather than reported unknown.
	tools map[string]*hootv1hoot.Tool
	// allowed are the tools within MaxTier, in table order; allowedNames their names.
	allowed      []*hootv1hoot.Tool
	allowedNames []string
	// entries are the prompts and resources of the table within MaxTier (package entries).
	entries *entries.Entries
	// clientCalls are the requests to clients that wait for a response (toolcall asks them).
	clientCalls sessions.Calls
	// calls answers tools/call and calls a worker for prompts and resources (package toolcall).
	calls *toolcall.Server
	// live, when the Backend reports its live services, watches them; listed holds the tools
	// that tools/list shows now, as they are described.
	live   LiveBackend
	listMu sync.RWMutex
	listed []toollist.Description
	// livePrompts and liveResources name the prompts and resources listed at the last look
	// (changes.go); changes hands each change of the lists to both eras' listeners.
	livePrompts, liveResources string
	changes                    listen.Hub
	// listens are the open subscriptions/listen streams, and listenExtensions the members of
	// their filter that other features serve (listen.go).
	listens          listen.Set
	listenExtensions []listen.Extension
	// listening serves the streams (package listen).
	listening *listen.Server
	// paramHeaders are the arguments that clients repeat in Mcp-Param headers, by tool
	// (mcpparam.go).
	paramHeaders map[string][]mcpheader.Param
	// states signs and checks the requestState of the 2026-07-28 era's confirmation questions.
	states *reqstate.Signer
	// tasks serves the tasks of both eras (tasks.go), and tasksOn says whether this server
	// offers them.
	tasks   *tasks.Tasks
	tasksOn bool
	// taskRequired says whether an allowed tool runs only as a task, so that a call that does
	// not declare the tasks extension needs its tool's name read for that only then.
	taskRequired bool
	wg           sync.WaitGroup

	sessions *sessions.Store[*sessions.Session]
	// http is the Streamable HTTP transport (http.go).
	http *streamable.Transport
	// eventBudget bounds the bytes of events that all HTTP sessions keep together.
	eventBudget *sse.Budget

	closeOnce sync.Once
	closed    chan struct{}
	// base is the parent of every request context; Close cancels it.
	base       context.Context
	cancelBase context.CancelFunc
}

// NewServer returns a Server for cfg. It copies cfg, fills in its zero fields, and refuses a
// Config that cannot work, such as one without a Backend or with a tool lacking its functions.
// Tools above cfg.MaxTier are neither listed nor called. The caller must Close the Server.
func NewServer(cfg *Config) (*Server, error) {
	c, err := cfg.WithDefaults(defaultTools)
	if err != nil {
		return nil, err
	}
	s := &Server{
		cfg:    c,
		log:    c.Logger,
		policy: consent.Policy{MaxTier: c.MaxTier, NoConfirm: c.NoConfirm},
		tools:  make(map[string]*hootv1hoot.Tool, len(c.Tools)),
		closed: make(chan struct{}),
	}
	s.entries = entries.New(entryHost{s})
	for i := range c.Tools {
		t := &c.Tools[i]
		if t.Surface != hootv1.Surface_SURFACE_UNSPECIFIED {
			if t.Tier <= c.MaxTier {
				s.entries.Add(t)
			}
			continue
		}
		s.tools[t.Name] = t
		if t.Tier <= c.MaxTier {
			s.allowed = append(s.allowed, t)
			s.allowedNames = append(s.allowedNames, t.Name)
			s.taskRequired = s.taskRequired || t.TaskRequired
		}
	}
	if s.states, err = reqstate.New(c.StateKey); err != nil {
		return nil, err
	}
	if c.Ledger != nil {
		s.states.SetLedger(c.Ledger)
	}
	s.tasks = tasks.New(taskHost{s}, s.states, c.CallTimeout, c.Logger)
	s.tasksOn = s.tasks.Supported() // the table and the tier are fixed from here on
	s.calls = toolcall.New(callHost{s}, toolcall.Options{Config: c, Tools: s.tools, Allowed: s.allowed, Policy: s.policy,
		States: s.states, Tasks: s.tasks, ClientCalls: &s.clientCalls})
	s.base, s.cancelBase = context.WithCancel(context.Background())
	s.sessions = sessions.New[*sessions.Session](c.SessionIdleTimeout, c.MaxSessions, c.Logger)
	s.eventBudget = sse.NewBudget(c.EventBufferTotal, s.eventsDropped)
	s.http = streamable.New(httpHost{s}, streamable.Options{MaxBodyBytes: c.MaxBodyBytes, KeepAlive: c.KeepAlive,
		AllowedHosts: c.AllowedHosts, AllowedOrigins: c.AllowedOrigins, MinimalErrors: c.MinimalErrors, Log: c.Logger})
	s.listed = toollist.Describe(s.policy, s.allowed)
	s.hasher = toollist.NewHasher(func(name string) (string, bool) {
		t, ok := s.tools[name]
		if !ok {
			return "", false
		}
		return t.Service, true
	})
	s.paramHeaders = mcpheader.ParamsOf(s.allowed)
	s.changes.Subscribe(listen.Tools, s.tellSessions)
	s.listens.Init(c.MaxListens)
	s.listening = listen.NewServer(listenHost{s}, &s.listens, &s.changes, c.KeepAlive, c.MinimalErrors, c.Logger)
	// The tasks extension's status notifications ride on subscriptions/listen (tasks_listen.go).
	s.listenExtensions = append(s.listenExtensions, listen.Extension{Member: tasks.ListenMember, Open: s.openTaskListen})
	if lb, ok := c.Backend.(LiveBackend); ok {
		s.live = lb
		changed := lb.Changed()
		s.refreshLists()
		s.wg.Go(func() { s.watchServices(changed) })
	}
	return s, nil
}

// Close ends every session, cancels the calls in flight and stops the session janitor. Later
// HTTP requests are answered with 503 and ServeStdio returns ErrServerClosed. Close is safe to
// call more than once.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		close(s.closed)
		s.listens.EndAll()
		s.cancelBase()
		s.sessions.Close()
		s.wg.Wait()
	})
	return nil
}

// isClosed reports whether Close was called.
func (s *Server) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

// A message is one decoded JSON-RPC 2.0 message (a jsonrpc.Message) as the server's methods
// get it.
type message struct {
	jsonrpc.Message
}

// decodeMessage reads one JSON-RPC message (jsonrpc.Decode).
func decodeMessage(data []byte) (*message, *jsonrpc.DecodeError) {
	m, bad := jsonrpc.Decode(data)
	if bad != nil {
		return nil, bad
	}
	return &message{Message: m}, nil
}

// handle is the core: it answers one decoded message of sess and returns the response, or nil
// for a notification or a client's response. Notifications of a running request go to out,
// which may be nil when the transport cannot carry them. own, if not nil, cancels ctx, which
// is then the request's own context (see Session.Begin).
func (s *Server) handle(ctx context.Context, sess *sessions.Session, msg *message, out sessions.Notifier, own context.CancelCauseFunc) *jsonrpc.Response {
	if msg.Method == "" && s.clientCalls.Deliver(sess.ID(), &msg.Message) {
		return nil
	}
	if msg.Method == "" {
		// A response to a request of ours; this server sends none yet, so there is nothing to
		// match it with.
		s.log.Debug("mcp: ignoring a response from the client", "id", string(msg.ID))
		return nil
	}
	if msg.IsNotification() {
		s.handleNotification(sess, msg)
		return nil
	}
	ctx, done, err := sess.Begin(ctx, jsonrpc.IDKey(msg.ID), own)
	if err != nil {
		if errors.Is(err, sessions.ErrEnded) {
			return s.fail(msg.ID, jsonrpc.CodeInvalidRequest, "invalid request: the session has ended", &guidance.Data{
				Hint: "Start a new session with initialize.",
				Try:  guidance.TryInitialize(era.Latest),
			})
		}
		return s.fail(msg.ID, jsonrpc.CodeInvalidRequest, "invalid request: id "+string(msg.ID)+" is already in use by a request in flight", &guidance.Data{
			Hint: "Give every request of a session its own id.",
		})
	}
	defer done()
	ctx = withMetaTrace(ctx, msg.Params)
	resp := s.dispatch(ctx, sess, msg, out)
	if errors.Is(context.Cause(ctx), sessions.ErrCancelledByClient) {
		resp.Abandoned = true
	}
	return resp
}

// Trace context in _meta.
//
// MCP reserves three keys of a request's params._meta for W3C trace context: traceparent,
// tracestate and baggage. A valid traceparent there makes the request part of the client's
// trace, in either era and over either transport: the call to the worker goes out as a child
// span of it (hooteproto carries a traceparent in every frame), so the worker's logs name the
// client's trace id. It takes the place of a Traceparent HTTP header, being the more specific
// of the two. tracestate and baggage are accepted and go no further: the frame has room for the
// traceparent only. A malformed traceparent is ignored, as W3C Trace Context asks, and never
// fails the request.

// withMetaTrace returns ctx joined to the trace that params._meta names, if it names one.
func withMetaTrace(ctx context.Context, params json.RawMessage) context.Context {
	// Most requests carry no trace context: looking for the key first spares them the decoding.
	if !bytes.Contains(params, []byte(`"traceparent"`)) {
		return ctx
	}
	var p struct {
		Meta struct {
			Traceparent json.RawMessage `json:"traceparent"`
		} `json:"_meta"`
	}
	var tp string
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p.Meta.Traceparent, &tp) != nil || !hooteproto.ValidTraceparent(tp) {
		return ctx
	}
	return hooteproto.WithTraceparent(ctx, tp)
}

// cancelRequest acts on notifications/cancelled: it cancels the session's request in flight
// that the notification names.
func (s *Server) cancelRequest(sess *sessions.Session, msg *message) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	if json.Unmarshal(msg.Params, &p) != nil || p.RequestID == nil {
		s.log.Debug("mcp: notifications/cancelled without a requestId")
		return
	}
	if sess.Cancel(jsonrpc.IDKey(rawjson.Compact(p.RequestID))) {
		s.log.Debug("mcp: request cancelled by the client", "id", string(p.RequestID), "reason", p.Reason)
	}
}

// initializeParams are the members of initialize's params that this server reads.
type initializeParams struct {
	ProtocolVersion json.RawMessage     `json:"protocolVersion"`
	Capabilities    json.RawMessage     `json:"capabilities"`
	ClientInfo      sessions.ClientInfo `json:"clientInfo"`
}

// initializeResult is initialize's answer.
type initializeResult struct {
	ProtocolVersion string             `json:"protocolVersion"`
	Capabilities    serverCapabilities `json:"capabilities"`
	ServerInfo      implementation     `json:"serverInfo"`
	Instructions    string             `json:"instructions,omitempty"`
}

// serverCapabilities are the features this server offers.
type serverCapabilities struct {
	Logging *struct{}        `json:"logging,omitempty"`
	Tools   *toolsCapability `json:"tools,omitempty"`
	// Prompts, Resources and Completions are set by entryCapabilities.
	Prompts     *listChangedCapability `json:"prompts,omitempty"`
	Resources   *resourcesCapability   `json:"resources,omitempty"`
	Completions *struct{}              `json:"completions,omitempty"`
	// Extensions are the 2026-07-28 era's extensions this server supports (tasks.go).
	Extensions map[string]struct{} `json:"extensions,omitempty"`
	// Tasks is 2025-11-25's tasks capability, for a session whose client declared tasks
	// (tasks_legacy.go).
	Tasks *tasks.LegacyCapability `json:"tasks,omitempty"`
}

// toolsCapability says that the server has tools, and whether it announces changes of their
// list (it does when the Backend reports its live services).
type toolsCapability struct {
	ListChanged bool `json:"listChanged"`
}

// implementation names the server.
type implementation struct {
	Name    string `json:"name"`
	Title   string `json:"title,omitempty"`
	Version string `json:"version"`
}

// initialize negotiates the protocol version and starts the session's lifecycle.
func (s *Server) initialize(sess *sessions.Session, msg *message) *jsonrpc.Response {
	var p initializeParams
	if msg.Params == nil || rawjson.Kind(msg.Params) != "object" || json.Unmarshal(msg.Params, &p) != nil || rawjson.Kind(p.ProtocolVersion) != "string" {
		return s.fail(msg.ID, jsonrpc.CodeInvalidParams, "invalid params: initialize needs params with protocolVersion (a string), capabilities and clientInfo", &guidance.Data{
			Hint:      "Copy the request in try and put your client's name and version in clientInfo.",
			Supported: era.LegacyVersions,
			Try:       guidance.TryInitialize(era.Latest),
		})
	}
	var asked string
	_ = json.Unmarshal(p.ProtocolVersion, &asked)
	version := era.Latest
	if era.IsLegacy(asked) {
		version = asked
	}
	caps, legacyTasks := sessions.ReadCapabilities(p.Capabilities, version), s.legacyTasksFor(version, p.Capabilities)
	if !sess.Initialize(version, caps, legacyTasks) {
		return s.fail(msg.ID, jsonrpc.CodeInvalidRequest, "invalid request: the session is already initialized", &guidance.Data{
			Hint: "Send initialize once per session; go on with tools/list or tools/call.",
			Try:  guidance.TryToolsList(),
		})
	}
	s.log.Info("mcp: session initialized", "session", sess.ID(), "client", p.ClientInfo.Name,
		"clientVersion", p.ClientInfo.Version, "asked", asked, "protocolVersion", version, "elicitForm", caps.ElicitForm)
	return jsonrpc.NewResult(msg.ID, initializeResult{
		ProtocolVersion: version,
		Capabilities: s.entryCapabilities(serverCapabilities{Logging: &struct{}{}, Tools: &toolsCapability{ListChanged: s.live != nil},
			Tasks: tasks.LegacyCapabilityOf(legacyTasks)}),
		ServerInfo:   implementation{Name: s.cfg.Name, Title: s.cfg.Title, Version: s.cfg.Version},
		Instructions: s.cfg.Instructions,
	})
}

// notInitialized answers a request that came before initialize.
func (s *Server) notInitialized(id json.RawMessage) *jsonrpc.Response {
	return s.fail(id, jsonrpc.CodeInvalidRequest, "invalid request: the session is not initialized; send initialize first", &guidance.Data{
		Hint: "Start with the initialize request in try, then send notifications/initialized, then your request.",
		Try:  guidance.TryInitialize(era.Latest),
	})
}

// methodNotFound answers an unknown method with the methods this server answers. A tool's
// name used as a method is pointed to tools/call.
func (s *Server) methodNotFound(msg *message) *jsonrpc.Response {
	if t, ok := s.allowedTool(msg.Method); ok {
		return s.fail(msg.ID, jsonrpc.CodeMethodNotFound, "method not found: "+msg.Method+" is a tool; call it with tools/call", &guidance.Data{
			Hint:    "Tools are called with the method tools/call, the tool's name in params.name and its arguments in params.arguments, as in try.",
			Methods: methodList,
			Try:     guidance.TryToolsCall(t),
		})
	}
	return s.fail(msg.ID, jsonrpc.CodeMethodNotFound, "method not found: "+wording.Quote(msg.Method)+wording.DidYouMean(wording.Close(msg.Method, methodList)), &guidance.Data{
		Hint:       "This server answers the methods listed in methods; its tools are listed by tools/list and called with tools/call.",
		DidYouMean: wording.Close(msg.Method, methodList),
		Methods:    methodList,
		Try:        guidance.TryToolsList(),
	})
}

// allowedTool returns the tool named name if the server's tier allows it.
func (s *Server) allowedTool(name string) (*hootv1hoot.Tool, bool) {
	t, ok := s.tools[name]
	if !ok || t.Tier > s.cfg.MaxTier {
		return nil, false
	}
	return t, true
}

// fail returns an error response with guidance g, or without data when guidance is off.
func (s *Server) fail(id json.RawMessage, code int64, msg string, g *guidance.Data) *jsonrpc.Response {
	if s.cfg.MinimalErrors || g == nil {
		return jsonrpc.NewError(id, code, msg, nil)
	}
	return jsonrpc.NewError(id, code, msg, g)
}

// envelopeFailure answers a message that is not valid JSON-RPC. modern says the message shows
// a client of 2026-07-28 (its _meta names a protocol version, or its header does), whose
// example to copy is server/discover rather than initialize.
func (s *Server) envelopeFailure(e *jsonrpc.DecodeError, modern bool) *jsonrpc.Response {
	g := &guidance.Data{Hint: e.Hint}
	if g.Hint == "" {
		g.Hint = "Send one JSON-RPC 2.0 request per message, such as the request in try."
	}
	if e.NotRPC {
		g.Try = guidance.TryInitialize(era.Latest)
		if modern {
			g.Try = era.TryDiscover()
		}
	}
	return s.fail(e.ID, e.Code, e.Message, g)
}
