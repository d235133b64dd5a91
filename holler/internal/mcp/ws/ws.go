// Package ws serves MCP as JSON-RPC 2.0 over WebSocket.
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
package ws

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/hootenanny/hoot/holler/internal/access"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/sessions"
	"github.com/hootenanny/hoot/holler/internal/mcp/stdio"
)

// A Host is the server a socket's messages go to: a stdio.Host that also greets a new socket.
type Host interface {
	stdio.Host
	// Welcome returns the params of the notification a socket of the caller of ctx opens with.
	Welcome(ctx context.Context) any
}

// Options bound a socket.
type Options struct {
	// MaxBodyBytes bounds one message: a larger one closes the socket with 1009.
	MaxBodyBytes int64
	// IdleTimeout closes a socket without a message or a request in flight for this long.
	IdleTimeout time.Duration
	// MaxInFlight bounds the requests of one socket handled at once.
	MaxInFlight int
	// Closed is the error with which the server's Close ends a socket.
	Closed error
	// Log receives what a socket's handshake got wrong.
	Log *slog.Logger
}

const (
	// writeTimeout bounds one frame's write: a client that reads nothing for this long is
	// cut off rather than holding the server's writers.
	writeTimeout = time.Minute
	// MethodWelcome is the notification a socket opens with.
	MethodWelcome = "hootenanny/welcome"
	// subprotocol is the subprotocol a socket agrees to when the client offers it.
	subprotocol = "mcp"
)

// Serve upgrades r to a WebSocket and serves MCP on it until the client closes it,
// it stays idle (no message and no request in flight) for the session idle timeout, or the
// server closes. Messages are bounded by MaxBodyBytes: a larger one closes the socket with
// status 1009 (message too big).
func Serve(w http.ResponseWriter, r *http.Request, h Host, o Options) {
	if h.Closed() {
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
		Subprotocols: []string{subprotocol},
		// The router's guard has checked Origin against this server's own, the loopback
		// origins and the allowed ones, a wider list than the library's same-host rule.
		InsecureSkipVerify: true,
	})
	if err != nil {
		// Accept has answered the client with what was wrong with its handshake.
		o.Log.Debug("mcp: websocket handshake refused", "err", err)
		return
	}
	conn.SetReadLimit(o.MaxBodyBytes)
	err = serveSocket(r.Context(), h, o, conn)
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		conn.Close(websocket.StatusNormalClosure, "")
	case errors.Is(err, o.Closed):
		conn.Close(websocket.StatusGoingAway, "the server is shutting down")
	case errors.Is(err, errSocketIdle):
		conn.Close(websocket.StatusNormalClosure, "idle for "+o.IdleTimeout.String()+": reconnect to go on")
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
func serveSocket(ctx context.Context, h Host, o Options, conn *websocket.Conn) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stop := context.AfterFunc(h.Base(), func() { cancel(o.Closed) })
	defer stop()

	// Every socket is a session of its own, with an id nobody else holds, so that the answers
	// to the server's requests (sampling, elicitation) reach only the socket they were sent on.
	sess := sessions.NewSession(sessions.NewID())
	g, _ := access.GrantOf(ctx)
	sess.SetOwner(g.Principal(), g.Caller())
	w := stdio.NewWriter(frameWriter{conn: conn}, func(err error) { cancel(err) })
	sess.Out = w
	defer h.Attach(sess)()

	w.Notify(&jsonrpc.Notification{JSONRPC: jsonrpc.Version, Method: MethodWelcome, Params: h.Welcome(ctx)})

	frames := make(chan wsFrame)
	go func() {
		defer close(frames)
		for {
			// Reading stops when the socket closes, which Serve always does: a read
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

	sock := NewSocket(h, sess, w, o.MaxInFlight)
	idle := time.NewTimer(o.IdleTimeout)
	defer idle.Stop()
	finish := func(err error) error {
		sess.End()
		cancel(err)
		sock.Wait()
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return finish(context.Cause(ctx))
		case <-idle.C:
			if sock.inFlight.Load() > 0 {
				// A request in flight (a long call, a listen stream) keeps the socket open.
				idle.Reset(o.IdleTimeout)
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
					w.EndInput()
					return finish(nil)
				}
				return finish(f.err)
			}
			idle.Reset(o.IdleTimeout)
			sock.Frame(ctx, f.typ, f.data)
		}
	}
}

// A Socket is the state of one socket's session: its requests in flight, bounded.
type Socket struct {
	h        Host
	sess     *sessions.Session
	w        *stdio.Writer
	slots    chan struct{}
	inFlight atomic.Int64
	wg       sync.WaitGroup
}

// NewSocket returns the state of a socket whose session is sess, written to by w, with at
// most maxInFlight requests (at least one) handled at once.
func NewSocket(h Host, sess *sessions.Session, w *stdio.Writer, maxInFlight int) *Socket {
	maxInFlight = max(maxInFlight, 1)
	return &Socket{h: h, sess: sess, w: w, slots: make(chan struct{}, maxInFlight)}
}

// Wait waits for what the socket's frames started.
func (sock *Socket) Wait() { sock.wg.Wait() }

// Frame handles one frame of the socket, of type typ.
func (sock *Socket) Frame(ctx context.Context, typ websocket.MessageType, data []byte) {
	h, sess, w, wg := sock.h, sock.sess, sock.w, &sock.wg
	if typ != websocket.MessageText {
		w.Send(parseError(h, jsonrpc.NullID, jsonrpc.CodeParseError, "parse error: a binary frame; this server reads JSON-RPC messages from text frames", false))
		return
	}
	msg, bad := jsonrpc.Decode(data)
	if bad != nil {
		if bad.NotRPC || bad.Code == jsonrpc.CodeParseError {
			w.Send(parseError(h, bad.ID, bad.Code, bad.Message, era.LooksModern(data)))
			return
		}
		w.Send(h.Malformed(bad, era.LooksModern(data)))
		return
	}
	if !msg.IsRequest() || msg.Method == "initialize" {
		// In order, as over stdio: a request right after initialize must find the session
		// initialized, and a cancellation must reach the request it names. Neither is
		// counted against the socket's requests in flight, so a cancellation always gets in.
		if stdio.ServeModern(ctx, h, sess, w, wg, msg) {
			return
		}
		if resp := h.Handle(ctx, sess, msg, w); resp != nil {
			w.Send(resp)
		}
		return
	}
	select {
	case sock.slots <- struct{}{}:
	default:
		limit := strconv.Itoa(cap(sock.slots))
		w.Send(h.Fail(msg.ID, jsonrpc.CodeInvalidRequest, "too many requests in flight: this socket has "+limit+", the most it takes at once", &guidance.Data{
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
	if stdio.ServeModern(ctx, h, sess, w, &one, msg) {
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
		resp := h.Handle(ctx, sess, msg, w)
		// MCP asks that a cancelled request gets no response.
		if resp != nil && !resp.Abandoned {
			w.Send(resp)
		}
	}()
}

// A frameWriter sends each line a lines.Writer writes as one text frame, without its newline.
type frameWriter struct{ conn *websocket.Conn }

func (fw frameWriter) Write(b []byte) (int, error) {
	// The frame's bound is its own, not the socket's context: the library closes a socket,
	// without a close frame, when the context of a write ends, even after the write; the
	// socket's end is told by Serve's close instead.
	ctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
	defer cancel()
	if err := fw.conn.Write(ctx, websocket.MessageText, bytes.TrimSuffix(b, []byte("\n"))); err != nil {
		return 0, err
	}
	return len(b), nil
}

// parseError answers a frame that is not JSON-RPC: what this socket speaks and a request to
// copy, of the era the frame shows (initialize, or server/discover for 2026-07-28).
func parseError(h Host, id []byte, code int64, msg string, modern bool) *jsonrpc.Response {
	g := &guidance.Data{
		Hint: "This server speaks JSON-RPC 2.0 over WebSocket: send each message as one text frame holding one JSON-RPC 2.0 object, such as the request in try.",
		Try:  guidance.TryInitialize(era.Latest),
	}
	if modern {
		g.Try = era.TryDiscover()
	}
	return h.Fail(id, code, msg, g)
}
