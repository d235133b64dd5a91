package zmqtransport

import (
	"errors"
	"fmt"
	"os"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	zmq "github.com/pebbe/zmq4"
)

// zmqFD returns a duplicate of the socket's ZMQ_FD, made non-blocking so that Go's network
// poller takes it, as an *os.File. Only readiness is ever asked of it, never data.
func zmqFD(zs *zmq.Socket) (*os.File, syscall.RawConn, error) {
	fd, err := zs.GetFd()
	if err != nil {
		return nil, nil, fmt.Errorf("ZMQ_FD: %w", err)
	}
	dup, err := syscall.Dup(fd)
	if err != nil {
		return nil, nil, fmt.Errorf("dup ZMQ_FD: %w", err)
	}
	syscall.CloseOnExec(dup)
	// The descriptor must be non-blocking for os.NewFile to hand it to the network poller.
	if err := syscall.SetNonblock(dup, true); err != nil {
		syscall.Close(dup)
		return nil, nil, fmt.Errorf("ZMQ_FD non-blocking: %w", err)
	}
	f := os.NewFile(uintptr(dup), "zmq-fd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, rc, nil
}

// A poller lets the owner goroutine wait in Go's network poller until its ZeroMQ socket may
// have a message, its read deadline passes or another goroutine wakes it. Waking is a read
// deadline in the past: the owner is woken without a goroutine of its own in between.
type poller struct {
	f  *os.File
	rc syscall.RawConn
	// waiting is set while the owner waits or is about to; wake clears it, so that only one
	// waker moves the deadline for each wait.
	waiting atomic.Bool
	// deadline is the read deadline the owner set last; only the owner touches it.
	deadline time.Time
}

// expired is a read deadline that has passed: setting it wakes the owner.
var expired = time.Unix(1, 0)

func newPoller(zs *zmq.Socket) (*poller, error) {
	f, rc, err := zmqFD(zs)
	if err != nil {
		return nil, err
	}
	return &poller{f: f, rc: rc}, nil
}

// wake makes the owner's current or next wait return. Any goroutine may call it, after it has
// made the owner's work visible (queued a frame, closed a channel, set a flag).
func (p *poller) wake() {
	if p.waiting.CompareAndSwap(true, false) {
		_ = p.f.SetReadDeadline(expired)
	}
}

// wait waits until ready reports true, until (if not zero) or a wake. ready is called first and
// then after every readiness signal of the descriptor, on the owner goroutine: it must empty
// the socket (ZMQ_FD signals edges: a message that came with an earlier signal would otherwise
// wait for the next) and report whether the owner has more to do, such as a queued frame.
func (p *poller) wait(until time.Time, ready func() bool) error {
	if !until.Equal(p.deadline) {
		if err := p.f.SetReadDeadline(until); err != nil {
			return err
		}
		p.deadline = until
	}
	// Announce the wait before ready looks for work, so that work queued after that look
	// finds waiting set and wakes the owner.
	p.waiting.Store(true)
	err := p.rc.Read(func(uintptr) bool { return ready() })
	p.waiting.Store(false)
	if err != nil {
		// A wake or the deadline: set it anew before the next wait.
		p.deadline = expired
		if errors.Is(err, os.ErrDeadlineExceeded) {
			return nil
		}
	}
	return err
}

func (p *poller) close() { p.f.Close() }

// An fdWatch watches the ZMQ_FD of a socket that is not the owner's main one (the monitor's,
// the ZAP handler's) from a goroutine of its own: when the descriptor becomes readable it sets
// signal and wakes the owner, then waits until the owner has served the socket (resume). It
// never touches the socket itself.
type fdWatch struct {
	f       *os.File
	signal  atomic.Bool
	resume  chan struct{} // buffered: the owner never blocks on it
	closing chan struct{}
	done    chan struct{}
}

func newFDWatch(zs *zmq.Socket, wake func()) (*fdWatch, error) {
	f, rc, err := zmqFD(zs)
	if err != nil {
		return nil, err
	}
	w := &fdWatch{f: f, resume: make(chan struct{}, 1), closing: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			// Read calls the function, and while it returns false waits for the descriptor to
			// become readable, then calls it again. The function must look at the descriptor
			// itself: Read forgets any readiness seen before it was called.
			if err := rc.Read(pollReadable); err != nil {
				return // the watch was stopped
			}
			w.signal.Store(true)
			wake()
			// The owner asks the socket what it holds, which reads the descriptor empty; until
			// it has, there is nothing new to look at.
			select {
			case <-w.resume:
			case <-w.closing:
				return
			}
		}
	}()
	return w, nil
}

// signalled reports whether the watch signalled since the last call, and clears the signal; the
// owner then serves the socket and calls rearm. A nil watch never signals.
func (w *fdWatch) signalled() bool { return w != nil && w.signal.Swap(false) }

// pending reports whether the watch has signalled, without clearing it.
func (w *fdWatch) pending() bool { return w != nil && w.signal.Load() }

// rearm lets the watch look at the descriptor again, once the owner has served its socket.
func (w *fdWatch) rearm() {
	select {
	case w.resume <- struct{}{}:
	default:
	}
}

// pollReadable reports whether fd is readable now, without waiting.
func pollReadable(fd uintptr) bool {
	pfd := struct {
		fd      int32
		events  int16
		revents int16
	}{fd: int32(fd), events: pollIn}
	var zero syscall.Timespec
	n, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&zero)), 0, 0, 0)
	// On an error, say readable: the owner asks the socket itself, which is always right.
	return errno != 0 || n > 0 && pfd.revents&pollIn != 0
}

// pollIn is POLLIN of poll(2).
const pollIn = 0x1

// stop ends the watch and closes the duplicate descriptor.
func (w *fdWatch) stop() {
	if w == nil {
		return
	}
	close(w.closing)
	w.f.Close()
	<-w.done
}
