package zmqtransport

import (
	"errors"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"
)

// A waker lets the owner goroutine sleep in poll(2) on its sockets' descriptors and lets any
// other goroutine wake it, through a pipe of its own.
//
// The owner sleeps in a blocking system call rather than in Go's network poller: a frame that
// arrives then wakes the owner's thread directly, as a blocking receive in ZeroMQ would. Through
// the network poller it passed the scheduler's netpoll thread first, which cost about 15 µs a
// wake-up on a two-core machine. The price is one thread per Socket blocked while the socket
// is idle; the runtime hands that thread's processor to other goroutines meanwhile.
type waker struct {
	r, w int // the pipe: a byte in it wakes the owner
	// waiting is set while the owner sleeps or is about to; wake clears it, so that one byte
	// is written for each sleep at most.
	waiting atomic.Bool

	mu     sync.Mutex // a write and close do not cross: the descriptor may be reused after
	closed bool
}

func newWaker() (*waker, error) {
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_NONBLOCK|syscall.O_CLOEXEC); err != nil {
		return nil, err
	}
	return &waker{r: p[0], w: p[1]}, nil
}

// wake makes the owner's current or next sleep return. Any goroutine may call it, after it has
// made the owner's work visible (queued a frame, closed a channel).
func (k *waker) wake() {
	if k.waiting.CompareAndSwap(true, false) {
		b := [1]byte{1}
		k.mu.Lock()
		if !k.closed {
			// A full pipe (EAGAIN) holds a wake-up already.
			_, _ = syscall.Write(k.w, b[:])
		}
		k.mu.Unlock()
	}
}

// drain empties the pipe once a sleep has returned because of it.
func (k *waker) drain() {
	var b [64]byte
	for {
		if n, err := syscall.Read(k.r, b[:]); n < len(b) || err != nil {
			return
		}
	}
}

func (k *waker) close() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.closed = true
	syscall.Close(k.r)
	syscall.Close(k.w)
}

// A pollFD is struct pollfd of poll(2).
type pollFD struct {
	fd      int32
	events  int16
	revents int16
}

// pollIn is POLLIN of poll(2).
const pollIn = 0x1

// ready reports whether poll found the descriptor readable (or failing, which the owner learns
// by asking its socket).
func (p *pollFD) ready() bool { return p.revents != 0 }

// sleep waits until one of fds is readable or until passes (zero: no limit). A signal that
// interrupts the wait (the runtime preempts with signals) only ends it early.
func sleep(fds []pollFD, until time.Time) error {
	for i := range fds {
		fds[i].events, fds[i].revents = pollIn, 0
	}
	var ts *syscall.Timespec
	if !until.IsZero() {
		t := syscall.NsecToTimespec(max(int64(time.Until(until)), 0))
		ts = &t
	}
	_, _, errno := syscall.Syscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&fds[0])), uintptr(len(fds)),
		uintptr(unsafe.Pointer(ts)), 0, 0, 0)
	if errno != 0 && !errors.Is(errno, syscall.EINTR) {
		return errno
	}
	return nil
}
