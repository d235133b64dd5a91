package hooteproto

import (
	"context"
	"errors"
)

// A Conn sends frames and hands the frames it receives to a Handler. Implementations are safe
// for concurrent use: Send may be called from any goroutine, and the socket underneath is used
// by one at a time.
type Conn interface {
	// Send hands f to the connection and returns without waiting for it to leave; it keeps
	// nothing of f.Body once it has returned, so the caller may reuse the body's buffer. It may
	// wait while the connection is busy sending (until ctx ends, where it waits for room),
	// but never for the goroutine that runs the Handler, so a Handler may call it. On the router side f.Peer names the
	// receiver. Send reports at once what is wrong with f itself (too large, no peer) and a
	// closed connection; a frame that the connection cannot pass on (its peer is gone, the
	// peer's queue is full) is reported to the Handler's SendFailed.
	Send(ctx context.Context, f Frame) error
	// Serve hands every well-formed frame the connection receives to h, one at a time and in
	// order, until ctx ends or the connection closes. HandleFrame runs on the goroutine that
	// receives, and SendFailed on whichever goroutine found the failure, possibly while the
	// socket is held: both must return quickly. Once Serve has returned, h is not called again. Frames that arrive while no
	// Serve runs wait in the socket. One Serve runs at a time.
	Serve(ctx context.Context, h Handler) error
	// Close stops the connection; a pending Send or Serve returns ErrClosed.
	Close() error
}

// A Handler takes what a Conn's Serve delivers.
type Handler interface {
	// HandleFrame takes a received frame. On the router side Peer names the sender.
	HandleFrame(f Frame)
	// SendFailed reports a frame that Send had accepted and that could not be sent (without
	// its body, which the connection need not keep). It may run while the connection's socket
	// is held, so it must not call Send nor wait for anything that may itself be sending.
	SendFailed(f Frame, err error)
}

// A PeerWatcher is a Handler that also wants to hear when the connection saw the link to one of
// its peers close. The router side of a transport learns that a link closed before it knows
// which peer it carried, so the Handler is told only that some peer may be gone: a frame sent to
// that peer now fails with ErrPeerGone, which names it. Like HandleFrame, PeerLost must return
// quickly.
type PeerWatcher interface {
	Handler
	PeerLost()
}

// ErrClosed is returned by a Conn's methods after Close.
var ErrClosed = errors.New("hooteproto: connection closed")

// ErrPeerGone is wrapped by the errors a Conn reports to SendFailed for a frame whose peer is
// not connected: the link to that peer has closed, so the peer is gone now (a peer that comes
// back connects anew and announces itself again).
var ErrPeerGone = errors.New("hooteproto: the peer is not connected")
