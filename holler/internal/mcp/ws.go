package mcp

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/lines"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
)

// JSON-RPC 2.0 over WebSocket.
//
// A socket is a stdio connection carried in frames: every text frame holds one JSON-RPC
// message, in either direction. It speaks the era its client opens with, as stdio does:
// initialize makes it a legacy session bound to the socket (notifications of list changes, log
// messages, and requests of the server such as sampling and elicitation reach the client on
// the socket); before that, a request whose params._meta names a protocol version is served
// as 2026-07-28 on its own. The caller is the grant of the token the upgrade request carried,
// as for /mcp, and the router's guard has checked Host and Origin before the upgrade.
//
// On opening, the server sends one notification, hootenanny/welcome, with the schema hash
// (as server/discover and tools/list _meta give it) and the way to begin.

const (
	// wsWriteTimeout bounds one frame's write: a client that reads nothing for this long is
	// cut off rather than holding the server's writers.
	wsWriteTimeout = time.Minute
	// methodWelcome is the notification a socket opens with.
	methodWelcome = "hootenanny/welcome"
	// wsSubprotocol is the subprotocol a socket agrees to when the client offers it.
	wsSubprotocol = "mcp"
)

// ServeWebSocket upgrades r to a WebSocket and serves MCP on it until the client closes it,
// it stays idle (no message and no request in flight) for the session idle timeout, or the
// server closes. Messages are bounded by MaxBodyBytes: a larger one closes the socket with
// status 1009 (message too big).
func (s *Server) ServeWebSocket(w http.ResponseWriter, r *http.Request) {
	if s.isClosed() {
		http.Error(w, "the server is shutting down\nTry again in a moment, or connect to another instance.", http.StatusServiceUnavailable)
		return
	}
	if !isWebSocketUpgrade(r) {
		w.Header().Set("Upgrade", "websocket")
		http.Error(w, "this endpoint speaks JSON-RPC 2.0 over WebSocket: open a WebSocket to it (GET with Upgrade: websocket)\n"+
			"To send MCP messages by plain HTTP, POST them to /mcp.", http.StatusUpgradeRequired)
		return
	}
	conn, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols: []string{wsSubprotocol},
		// The router's guard has checked Origin against this server's own, the loopback
		// origins and the allowed ones, a wider list than the library's same-host rule.
		InsecureSkipVerify: true,
	})
	if err != nil {
		// Accept has answered the client with what was wrong with its handshake.
		s.log.Debug("mcp: websocket handshake refused", "err", err)
		return
	}
	conn.SetReadLimit(s.cfg.MaxBodyBytes)
	err = s.serveSocket(r.Context(), conn)
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		conn.Close(websocket.StatusNormalClosure, "")
	case errors.Is(err, ErrServerClosed):
		conn.Close(websocket.StatusGoingAway, "the server is shutting down")
	case errors.Is(err, errSocketIdle):
		conn.Close(websocket.StatusNormalClosure, "idle for "+s.cfg.SessionIdleTimeout.String()+": reconnect to go on")
	default:
		conn.CloseNow()
	}
}

// errSocketIdle ends a socket that stayed idle for the session idle timeout.
var errSocketIdle = errors.New("the socket was idle too long")

// isWebSocketUpgrade reports whether r asks to open a WebSocket.
func isWebSocketUpgrade(r *http.Request) bool {
	return r.Method == http.MethodGet && headerHasToken(r.Header.Values("Connection"), "upgrade") &&
		headerHasToken(r.Header.Values("Upgrade"), "websocket")
}

// headerHasToken reports whether a comma-separated header holds token, in any case.
func headerHasToken(values []string, token string) bool {
	for _, v := range values {
		for _, t := range bytes.Split([]byte(v), []byte(",")) {
			if bytes.EqualFold(bytes.TrimSpace(t), []byte(token)) {
				return true
			}
		}
	}
	return false
}

// A wsFrame is one message read from a socket, or the error that ended reading.
type wsFrame struct {
	typ  websocket.MessageType
	data []byte
	err  error
}

// serveSocket serves MCP on conn until the client closes it, it is idle too long, ctx ends or
// the server closes; ctx carries the caller's grant.
func (s *Server) serveSocket(ctx context.Context, conn *websocket.Conn) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(s.base, func() { cancel(ErrServerClosed) })
	defer stop()

	// Every socket is a session of its own, with an id nobody else holds, so that the answers
	// to the server's requests (sampling, elicitation) reach only the socket they were sent on.
	sess := sessions.NewSession(sessions.NewID())
	sess.SetOwner(principalOf(ctx), callerOf(ctx))
	w := &lineWriter{Writer: lines.NewWriter(frameWriter{conn: conn}, func(err error) { cancel(err) }), inputEnded: make(chan struct{})}
	sess.Out = w
	defer s.sessions.Attach(sess)()

	w.Notify(&jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: methodWelcome, Params: s.welcome(ctx)})

	frames := make(chan wsFrame)
	go func() {
		defer close(frames)
		for {
			// Reading stops when the socket closes, which ServeWebSocket always does: a read
			// whose context ends would close the socket at once, without the close frame that
			// tells the client why.
			typ, data, err := conn.Read(context.Background())
			select {
			case frames <- wsFrame{typ: typ, data: data, err: err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()

	maxInFlight := s.cfg.WebSocketMaxInFlight
	if maxInFlight <= 0 {
		maxInFlight = DefaultWebSocketMaxInFlight
	}
	sock := &socketState{slots: make(chan struct{}, maxInFlight)}
	idle := time.NewTimer(s.cfg.SessionIdleTimeout)
	defer idle.Stop()
	var wg sync.WaitGroup
	finish := func(err error) error {
		sess.End()
		cancel(err)
		wg.Wait()
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return finish(context.Cause(ctx))
		case <-idle.C:
			if sock.inFlight.Load() > 0 {
				// A request in flight (a long call, a listen stream) keeps the socket open.
				idle.Reset(s.cfg.SessionIdleTimeout)
				continue
			}
			return finish(errSocketIdle)
		case f, ok := <-frames:
			if !ok {
				return finish(context.Cause(ctx))
			}
			if f.err != nil {
				if cs := websocket.CloseStatus(f.err); cs == websocket.StatusNormalClosure || cs == websocket.StatusGoingAway {
					// The client closed: what it asked for can no longer be answered.
					close(w.inputEnded)
					return finish(nil)
				}
				return finish(f.err)
			}
			idle.Reset(s.cfg.SessionIdleTimeout)
			s.serveFrame(ctx, sess, w, &wg, sock, f)
		}
	}
}

// socketState bounds the requests of one socket in flight.
type socketState struct {
	slots    chan struct{}
	inFlight atomic.Int64
}

// serveFrame handles one frame read from a socket.
func (s *Server) serveFrame(ctx context.Context, sess *sessions.Session, w *lineWriter, wg *sync.WaitGroup, sock *socketState, f wsFrame) {
	if f.typ != websocket.MessageText {
		w.send(s.wsParseError(jsonrpc.NullID, jsonrpc.CodeParseError, "parse error: a binary frame; this server reads JSON-RPC messages from text frames", false))
		return
	}
	msg, bad := decodeMessage(f.data)
	if bad != nil {
		if bad.NotRPC || bad.Code == jsonrpc.CodeParseError {
			w.send(s.wsParseError(bad.ID, bad.Code, bad.Message, era.LooksModern(f.data)))
			return
		}
		w.send(s.envelopeFailure(bad, era.LooksModern(f.data)))
		return
	}
	if !msg.IsRequest() || msg.Method == methodInitialize {
		// In order, as over stdio: a request right after initialize must find the session
		// initialized, and a cancellation must reach the request it names. Neither is
		// counted against the socket's requests in flight, so a cancellation always gets in.
		if s.serveLineModern(ctx, sess, w, wg, msg) {
			return
		}
		if resp := s.handle(ctx, sess, msg, w, nil); resp != nil {
			w.send(resp)
		}
		return
	}
	select {
	case sock.slots <- struct{}{}:
	default:
		limit := strconv.Itoa(cap(sock.slots))
		w.send(s.fail(msg.ID, jsonrpc.CodeInvalidRequest, "too many requests in flight: this socket has "+limit+", the most it takes at once", &guidance.Data{
			Hint: "Wait for an answer before sending more, or open another socket; at most " + limit + " requests of one socket are handled at once.",
		}))
		return
	}
	sock.inFlight.Add(1)
	release := func() {
		sock.inFlight.Add(-1)
		<-sock.slots
	}
	// A modern request runs on its own goroutine, which the WaitGroup of this one message
	// tells the end of; a legacy one on a goroutine of ours.
	var one sync.WaitGroup
	if s.serveLineModern(ctx, sess, w, &one, msg) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			one.Wait()
			release()
		}()
		return
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer release()
		resp := s.handle(ctx, sess, msg, w, nil)
		// MCP asks that a cancelled request gets no response.
		if resp != nil && !resp.Abandoned {
			w.send(resp)
		}
	}()
}

// wsParseError answers a frame that is not JSON-RPC: what this socket speaks and a request to
// copy, of the era the frame shows (initialize, or server/discover for 2026-07-28).
func (s *Server) wsParseError(id []byte, code int64, msg string, modern bool) *jsonrpc.Response {
	g := &guidance.Data{
		Hint: "This server speaks JSON-RPC 2.0 over WebSocket: send each message as one text frame holding one JSON-RPC 2.0 object, such as the request in try.",
		Try:  guidance.TryInitialize(era.Latest),
	}
	if modern {
		g.Try = era.TryDiscover()
	}
	return s.fail(id, code, msg, g)
}

// welcomeParams is the notification a socket opens with.
type welcomeParams struct {
	SupportedVersions []string `json:"supportedVersions"`
	SchemaHash        string   `json:"schemaHash"`
	Hint              string   `json:"hint"`
}

// welcome returns the greeting of a socket whose caller ctx carries.
func (s *Server) welcome(ctx context.Context) welcomeParams {
	return welcomeParams{
		SupportedVersions: era.AllVersions,
		SchemaHash:        s.schemaHash(ctx),
		Hint: "Send initialize to open a session on this socket, or requests with params._meta." + era.MetaProtocolVersion +
			" (2026-07-28); server/discover lists the services and their tools. The schema hash changes when any tool does: a client that kept a tool list under the same hash may use it.",
	}
}

// A frameWriter sends each line a lines.Writer writes as one text frame, without its newline.
type frameWriter struct{ conn *websocket.Conn }

func (fw frameWriter) Write(b []byte) (int, error) {
	// The frame's bound is its own, not the socket's context: the library closes a socket,
	// without a close frame, when the context of a write ends, even after the write; the
	// socket's end is told by ServeWebSocket's close instead.
	ctx, cancel := context.WithTimeout(context.Background(), wsWriteTimeout)
	defer cancel()
	if err := fw.conn.Write(ctx, websocket.MessageText, bytes.TrimSuffix(b, []byte("\n"))); err != nil {
		return 0, err
	}
	return len(b), nil
}
