package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"

	zmq "github.com/pebbe/zmq4"
)

// The mcp-go+zeromq server is mcp-go with the cheapest ZeroMQ hop this binding allows behind
// its echo tool: each call borrows a DEALER socket of its own from a pool, sends the message to
// an echo process and blocks in ZeroMQ's receive for the answer. Nothing is shared between
// calls in flight, so nothing has to be handed between goroutines: no owner, no queue, no
// matching of answers to callers, no frame format, no heartbeats, no cancellation. It is not
// a design (a worker could never reach such a gateway, and a dead echo process hangs a call
// for ever); it measures, in the same run, what one loopback ZeroMQ round trip costs on top of
// a single-process server, which holler pays on every call.

// hopEchoFlag runs the peer as the echo process of the hop: it binds a ROUTER to the loopback
// endpoint given, prints "ready ENDPOINT" and sends every message back until its standard
// input closes.
const hopEchoFlag = "zeromq-echo"

func runHopEcho(endpoint string) error {
	zctx, err := zmq.NewContext()
	if err != nil {
		return err
	}
	sock, bound, err := bindEcho(zctx, endpoint)
	if err != nil {
		return err
	}
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
	fmt.Printf("ready %s\n", bound)
	return echo(sock)
}

// bindEcho binds the echo process's ROUTER socket and returns the endpoint it is bound to.
func bindEcho(zctx *zmq.Context, endpoint string) (*zmq.Socket, string, error) {
	sock, err := zctx.NewSocket(zmq.ROUTER)
	if err != nil {
		return nil, "", err
	}
	if err := errors.Join(sock.SetLinger(0), sock.Bind(endpoint)); err != nil {
		sock.Close()
		return nil, "", err
	}
	bound, err := sock.GetLastEndpoint()
	if err != nil {
		sock.Close()
		return nil, "", err
	}
	return sock, bound, nil
}

// echo sends every message back to its sender until the socket fails (its context ends), and
// closes it.
func echo(sock *zmq.Socket) error {
	defer sock.Close()
	for {
		msg, err := sock.RecvMessageBytes(0)
		if err != nil {
			return err
		}
		if _, err := sock.SendMessage(msg); err != nil {
			return err
		}
	}
}

// A hop sends messages to the echo process through pooled DEALER sockets.
type hop struct {
	endpoint string
	zctx     *zmq.Context
	cmd      *exec.Cmd // nil when the echo runs elsewhere
	stdin    io.Closer

	mu   sync.Mutex
	idle []*zmq.Socket
}

// startHop starts the echo process, a copy of this program, and waits until it listens.
func startHop() (*hop, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, "--"+hopEchoFlag, "tcp://127.0.0.1:*")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	endpoint, ok := strings.CutPrefix(strings.TrimSpace(line), "ready ")
	if err != nil || !ok {
		stdin.Close()
		_ = cmd.Wait()
		return nil, fmt.Errorf("the echo process did not start: %q %v", line, err)
	}
	zctx, err := zmq.NewContext()
	if err != nil {
		stdin.Close()
		_ = cmd.Wait()
		return nil, err
	}
	return &hop{endpoint: endpoint, zctx: zctx, cmd: cmd, stdin: stdin}, nil
}

// roundTrip sends msg to the echo process and returns its answer.
func (h *hop) roundTrip(msg string) (string, error) {
	h.mu.Lock()
	var sock *zmq.Socket
	if n := len(h.idle); n > 0 {
		sock, h.idle = h.idle[n-1], h.idle[:n-1]
	}
	h.mu.Unlock()
	if sock == nil {
		var err error
		if sock, err = h.zctx.NewSocket(zmq.DEALER); err != nil {
			return "", err
		}
		if err := errors.Join(sock.SetLinger(0), sock.Connect(h.endpoint)); err != nil {
			sock.Close()
			return "", err
		}
	}
	if _, err := sock.Send(msg, 0); err != nil {
		sock.Close()
		return "", err
	}
	answer, err := sock.Recv(0)
	if err != nil {
		sock.Close()
		return "", err
	}
	h.mu.Lock()
	h.idle = append(h.idle, sock)
	h.mu.Unlock()
	return answer, nil
}

// stop closes the idle sockets and ends the echo process. Calls must have ended.
func (h *hop) stop() {
	h.mu.Lock()
	for _, sock := range h.idle {
		sock.Close()
	}
	h.idle = nil
	h.mu.Unlock()
	if h.cmd != nil {
		h.stdin.Close()
		_ = h.cmd.Wait()
	}
}
