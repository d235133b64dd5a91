package zmqtransport

import (
	"fmt"
	"os"
	"syscall"
	"unsafe"

	zmq "github.com/pebbe/zmq4"
)

// An fdWatch turns the readiness of a ZeroMQ socket's ZMQ_FD into signals on a channel, using
// Go's network poller, so that the socket's owner can wait in a select rather than in ZeroMQ.
// It never touches the socket itself: it watches a duplicate of the descriptor, and only the
// owner asks the socket what the signal meant (ZMQ_EVENTS).
type fdWatch struct {
	f       *os.File
	ready   chan struct{} // unbuffered: a signal is handed to the owner, never queued
	closing chan struct{}
	done    chan struct{}
}

func newFDWatch(zs *zmq.Socket) (*fdWatch, error) {
	fd, err := zs.GetFd()
	if err != nil {
		return nil, fmt.Errorf("ZMQ_FD: %w", err)
	}
	dup, err := syscall.Dup(fd)
	if err != nil {
		return nil, fmt.Errorf("dup ZMQ_FD: %w", err)
	}
	syscall.CloseOnExec(dup)
	// The descriptor must be non-blocking for os.NewFile to hand it to the network poller.
	if err := syscall.SetNonblock(dup, true); err != nil {
		syscall.Close(dup)
		return nil, fmt.Errorf("ZMQ_FD non-blocking: %w", err)
	}
	f := os.NewFile(uintptr(dup), "zmq-fd")
	rc, err := f.SyscallConn()
	if err != nil {
		f.Close()
		return nil, err
	}
	w := &fdWatch{f: f, ready: make(chan struct{}), closing: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			// Read calls the function, and while it returns false waits for the descriptor to
			// become readable, then calls it again. The function must look at the descriptor
			// itself: Read forgets any readiness seen before it was called.
			if err := rc.Read(pollReadable); err != nil {
				return // the watch was stopped
			}
			// The owner takes the signal and asks the socket what it holds, which reads the
			// descriptor empty; until it has taken it there is nothing new to look at.
			select {
			case w.ready <- struct{}{}:
			case <-w.closing:
				return
			}
		}
	}()
	return w, nil
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
	close(w.closing)
	w.f.Close()
	<-w.done
}
