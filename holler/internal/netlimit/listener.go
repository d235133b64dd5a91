// Package netlimit keeps one HTTP client from holding the connections, file descriptors and
// goroutines that others need: a listener that caps connections in all and per client address,
// closing idle keep-alive connections first when the cap is near and refusing the rest with a
// 503 written on the raw connection; and a handler that bounds how long a write to a client may
// block and how slowly a client may send a request body.
package netlimit

import (
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Limits are a Listener's caps. Zero fields take defaults from the process's file descriptor
// limit (see DefaultLimits).
type Limits struct {
	// MaxConns caps the connections open at once, from every client together.
	MaxConns int
	// MaxConnsPerClient caps the connections open at once from one client address (an IPv4
	// address, or the /64 of an IPv6 one); zero means a sixteenth of MaxConns, at least 16.
	// Negative turns the per-client cap off, for a gateway behind a proxy whose connections
	// all come from one address.
	MaxConnsPerClient int
	// RetryAfter is what a refused client is told to wait, in whole seconds (at least 1).
	RetryAfter time.Duration
}

// Reserved file descriptors are kept for what is not a client connection: the content store's
// files, the worker endpoint, logs.
const reservedFDs = 256

// DefaultLimits sizes the caps from the soft limit of open files (which Go raises to the hard
// limit at start): three quarters of it for connections, less a reserve, and a sixteenth of
// those for one client. nofile is that limit; zero or less means unknown.
func DefaultLimits(nofile int) Limits {
	max := 4096
	if nofile > 0 {
		max = min(nofile*3/4, nofile-reservedFDs)
	}
	max = maxInt(max, 64)
	return Limits{MaxConns: max, MaxConnsPerClient: maxInt(max/16, 16), RetryAfter: 5 * time.Second}
}

func maxInt(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// Stats are a Listener's counts.
type Stats struct {
	// Open is the connections open now, Idle those of them waiting between requests, and Max
	// the bound on Open.
	Open, Idle, Max int
	// RefusedTotal counts the connections refused because every connection was taken and none
	// was idle; RefusedClient those refused because their client had its share.
	RefusedTotal, RefusedClient uint64
	// ClosedIdle counts idle keep-alive connections closed early to make room.
	ClosedIdle uint64
}

// A Listener accepts connections up to its Limits. Connections beyond them are answered
// "503 Service Unavailable" with Retry-After and closed before the HTTP server sees them;
// when there is an idle keep-alive connection to close instead (of the same client when the
// client is at its cap, of anyone when the total is), that one is closed and the new one taken.
// The http.Server that serves it must call ConnState from its own ConnState hook, so that the
// Listener knows which connections are idle.
type Listener struct {
	net.Listener
	limits Limits
	logf   func(msg string, args ...any)

	mu      sync.Mutex
	total   int
	clients map[netip.Prefix]*client
	// idle holds the idle connections, least recently idle first.
	idle idleList

	refusedTotal, refusedClient, closedIdle atomic.Uint64
	// refusing bounds the refusals being written at once.
	refusing chan struct{}
}

type client struct {
	open int
	idle idleList
}

// NewListener wraps l with lim (zero fields take DefaultLimits of nofile). logf, when not nil,
// is told of refusals and early closes (at most one line a second of each).
func NewListener(l net.Listener, lim Limits, nofile int, logf func(msg string, args ...any)) *Listener {
	def := DefaultLimits(nofile)
	if lim.MaxConns <= 0 {
		lim.MaxConns = def.MaxConns
	}
	if lim.MaxConnsPerClient == 0 {
		lim.MaxConnsPerClient = min(maxInt(lim.MaxConns/16, 16), lim.MaxConns)
	}
	if lim.RetryAfter < time.Second {
		lim.RetryAfter = def.RetryAfter
	}
	if logf == nil {
		logf = func(string, ...any) {}
	}
	return &Listener{Listener: l, limits: lim, logf: rateLimited(logf), clients: make(map[netip.Prefix]*client), refusing: make(chan struct{}, 64)}
}

// Limits returns the caps in force.
func (l *Listener) Limits() Limits { return l.limits }

// Stats returns the Listener's counts.
func (l *Listener) Stats() Stats {
	l.mu.Lock()
	open, idle := l.total, l.idle.n
	l.mu.Unlock()
	return Stats{Open: open, Idle: idle, Max: l.limits.MaxConns, RefusedTotal: l.refusedTotal.Load(), RefusedClient: l.refusedClient.Load(), ClosedIdle: l.closedIdle.Load()}
}

// Accept returns the next connection within the limits; it refuses the others itself.
func (l *Listener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		key := clientKey(c.RemoteAddr())
		tc, victims, why := l.admit(c, key)
		for _, v := range victims {
			v.Conn.Close()
		}
		if tc != nil {
			return tc, nil
		}
		l.refuse(c, why)
	}
}

// admit counts c in, or says why not. It returns the idle connections to close to make room.
func (l *Listener) admit(c net.Conn, key netip.Prefix) (_ *conn, victims []*conn, why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	cl := l.clients[key]
	if cl == nil {
		cl = &client{}
	}
	if per := l.limits.MaxConnsPerClient; per > 0 && cl.open >= per {
		// The client's own idle connections make room for its new one.
		v := cl.idle.front()
		if v == nil {
			l.refusedClient.Add(1)
			return nil, nil, "client"
		}
		l.forget(v)
		victims = append(victims, v)
	}
	// Close idle connections from a high-water mark on, so that a client that comes when the
	// total is near the cap finds room without waiting for an idle timeout.
	high := l.limits.MaxConns - max(l.limits.MaxConns/10, 1)
	for l.total >= high {
		v := l.idle.front()
		if v == nil {
			break
		}
		l.forget(v)
		victims = append(victims, v)
	}
	l.closedIdle.Add(uint64(len(victims)))
	if l.total >= l.limits.MaxConns {
		l.refusedTotal.Add(1)
		return nil, victims, "total"
	}
	if len(victims) > 0 {
		l.logf("netlimit: closed idle keep-alive connections to make room", "closed", len(victims), "open", l.total, "max", l.limits.MaxConns)
	}
	tc := &conn{Conn: c, l: l, key: key, cl: cl}
	l.clients[key] = cl
	cl.open++
	l.total++
	return tc, victims, ""
}

// forget takes v out of the counts; the caller closes it. l.mu is held.
func (l *Listener) forget(v *conn) {
	if v.gone {
		return
	}
	v.gone = true
	if v.idleAt != nil {
		l.idle.remove(v.idleAt)
		v.cl.idle.remove(v.idleClientAt)
		v.idleAt, v.idleClientAt = nil, nil
	}
	v.cl.open--
	l.total--
	if v.cl.open == 0 {
		delete(l.clients, v.key)
	}
}

// refusal is the answer to a connection over the limits. The connection closes after it.
func (l *Listener) refusal(why string) []byte {
	var msg string
	if why == "client" {
		msg = "this server has reached its limit of " + strconv.Itoa(l.limits.MaxConnsPerClient) +
			" open connections from your address; close connections you are not using, or reuse one, and try again.\n"
	} else {
		msg = "this server has reached its limit of " + strconv.Itoa(l.limits.MaxConns) +
			" open connections, and every one is busy; try again in a few seconds.\n"
	}
	retry := strconv.Itoa(int(l.limits.RetryAfter / time.Second))
	return []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain; charset=utf-8\r\nRetry-After: " + retry +
		"\r\nConnection: close\r\nContent-Length: " + strconv.Itoa(len(msg)) + "\r\n\r\n" + msg)
}

// refuse answers c with the refusal and closes it. Answers are written by a few goroutines at
// most; beyond them a refused connection is closed without one.
func (l *Listener) refuse(c net.Conn, why string) {
	if why == "client" {
		l.logf("netlimit: refused a connection: its client has its share", "client", c.RemoteAddr().String(), "max_per_client", l.limits.MaxConnsPerClient)
	} else {
		l.logf("netlimit: refused a connection: every connection is taken and busy", "client", c.RemoteAddr().String(), "max", l.limits.MaxConns)
	}
	select {
	case l.refusing <- struct{}{}:
	default:
		c.Close()
		return
	}
	go func() {
		defer func() { <-l.refusing }()
		defer c.Close()
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		if _, err := c.Write(l.refusal(why)); err != nil {
			return
		}
		// Closing with the request unread would reset the connection, and the client could
		// lose the answer: end the writing side, then read until the client closes.
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		var buf [4096]byte
		for range 16 {
			if _, err := c.Read(buf[:]); err != nil {
				return
			}
		}
	}()
}

// ConnState is to be called from the http.Server's ConnState hook: it tracks which
// connections are idle between requests.
func (l *Listener) ConnState(c net.Conn, st http.ConnState) {
	tc, ok := c.(*conn)
	if !ok || tc.l != l {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if tc.gone {
		return
	}
	switch st {
	case http.StateIdle:
		if tc.idleAt == nil {
			tc.idleAt = l.idle.push(tc)
			tc.idleClientAt = tc.cl.idle.push(tc)
		}
	default:
		if tc.idleAt != nil {
			l.idle.remove(tc.idleAt)
			tc.cl.idle.remove(tc.idleClientAt)
			tc.idleAt, tc.idleClientAt = nil, nil
		}
	}
}

// clientKey is the address a connection is counted under: its IPv4 address, or the /64 of
// its IPv6 address (one host usually has a whole /64).
func clientKey(a net.Addr) netip.Prefix {
	var ip netip.Addr
	if ta, ok := a.(*net.TCPAddr); ok {
		ip, _ = netip.AddrFromSlice(ta.IP)
	} else if ap, err := netip.ParseAddrPort(a.String()); err == nil {
		ip = ap.Addr()
	}
	ip = ip.Unmap()
	bits := 32
	if ip.Is6() {
		bits = 64
	}
	p, _ := ip.Prefix(bits)
	return p
}

// A conn is an accepted connection, counted until it closes.
type conn struct {
	net.Conn
	l   *Listener
	key netip.Prefix
	cl  *client
	// Guarded by l.mu.
	gone                 bool
	idleAt, idleClientAt *idleNode
	closeOnce            sync.Once
}

// ReadFrom lets the HTTP server send files by sendfile through the wrapper.
func (c *conn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(writerOnly{c.Conn}, r)
}

// CloseWrite ends the writing side, as the HTTP server does before it closes a connection
// whose request it did not read.
func (c *conn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

func (c *conn) Close() error {
	c.closeOnce.Do(func() {
		c.l.mu.Lock()
		c.l.forget(c)
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// An idleList is a list of idle connections, oldest first.
type idleList struct {
	head, tail *idleNode
	n          int
}

type idleNode struct {
	c          *conn
	prev, next *idleNode
}

func (q *idleList) push(c *conn) *idleNode {
	nd := &idleNode{c: c, prev: q.tail}
	if q.tail != nil {
		q.tail.next = nd
	} else {
		q.head = nd
	}
	q.tail = nd
	q.n++
	return nd
}

func (q *idleList) remove(nd *idleNode) {
	if nd.prev != nil {
		nd.prev.next = nd.next
	} else {
		q.head = nd.next
	}
	if nd.next != nil {
		nd.next.prev = nd.prev
	} else {
		q.tail = nd.prev
	}
	nd.prev, nd.next = nil, nil
	q.n--
}

func (q *idleList) front() *conn {
	if q.head == nil {
		return nil
	}
	return q.head.c
}

// rateLimited passes at most one message a second for each message text to logf.
func rateLimited(logf func(msg string, args ...any)) func(msg string, args ...any) {
	var mu sync.Mutex
	last := map[string]time.Time{}
	return func(msg string, args ...any) {
		now := time.Now()
		mu.Lock()
		ok := now.Sub(last[msg]) >= time.Second
		if ok {
			last[msg] = now
		}
		mu.Unlock()
		if ok {
			logf(msg, args...)
		}
	}
}
