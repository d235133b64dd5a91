package hooteproto

import (
	"context"
	"errors"
)

// A Conn sends frames and hands the frames it receives to a Handler. Implementations are safe
// for concurrent use: Send may be called from any goroutine, while the socket underneath stays
// owned by one.
type Conn interface {
	// Send queues f for sending and returns without waiting for it to leave; it waits only
	// while the queue is full, until ctx ends. On the router side f.Peer names the receiver.
	// Send reports at once what is wrong with f itself (too large, no peer) and a closed
	// connection; a frame that fails later (its peer is gone, the peer's queue is full) is
	// reported to the Handler's SendFailed.
	Send(ctx context.Context, f Frame) error
	// Serve hands every well-formed frame the connection receives to h, one at a time and in
	// order, until ctx ends or the connection closes. h runs on the goroutine that owns the
	// socket: it must return quickly and must not call Send, which may wait for that very
	// goroutine. Once Serve has returned, h is not called again. Frames that arrive while no
	// Serve runs wait in the socket. One Serve runs at a time.
	Serve(ctx context.Context, h Handler) error
	// Close stops the connection; a pending Send or Serve returns ErrClosed.
	Close() error
}

// A Handler takes what a Conn's Serve delivers.
type Handler interface {
	// HandleFrame takes a received frame. On the router side Peer names the sender.
	HandleFrame(f Frame)
	// SendFailed reports a frame that Send had queued and that could not be sent (without its
	// body, which the connection need not keep).
	SendFailed(f Frame, err error)
}

// ErrClosed is returned by a Conn's methods after Close.
var ErrClosed = errors.New("hooteproto: connection closed")
