package hooteproto

import (
	"context"
	"errors"
)

// A Conn sends and receives frames. Implementations are safe for concurrent use: Send and Recv
// may be called from any goroutine, while the socket underneath stays owned by one.
type Conn interface {
	// Send queues f for sending. On the router side f.Peer names the receiver.
	Send(ctx context.Context, f Frame) error
	// Recv returns the next well-formed frame. On the router side Peer names the sender.
	Recv(ctx context.Context) (Frame, error)
	// Close stops the connection; pending Send and Recv calls return ErrClosed.
	Close() error
}

// ErrClosed is returned by a Conn's methods after Close.
var ErrClosed = errors.New("hooteproto: connection closed")
