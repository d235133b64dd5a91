package netlimit

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// serve serves h behind a Listener with lim on 127.0.0.1, and stops it when the test ends.
func serve(t *testing.T, lim Limits, h http.Handler) (*Listener, string) {
	t.Helper()
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := NewListener(raw, lim, 0, func(msg string, args ...any) { t.Log(append([]any{msg}, args...)...) })
	srv := &http.Server{Handler: h, ConnState: l.ConnState, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(l) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return l, raw.Addr().String()
}

// dialFrom opens a connection to addr from the loopback address src (Linux routes all of
// 127/8 to lo).
func dialFrom(t *testing.T, src, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// get sends one keep-alive GET on c and reads its answer.
func get(t *testing.T, c net.Conn, br *bufio.Reader) *http.Response {
	t.Helper()
	if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

// waitFor polls cond until it holds, for a bounded number of tries.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for range 2000 {
		if cond() {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("never: %s", what)
}

var ok = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.WriteString(w, "ok") })

// TestAttackIdleConnectionFlood reproduces the idle keep-alive flood: one address opens far
// more connections than its share and leaves them idle after a request. Its own idle
// connections make room for its new ones, so it never holds more than its share, and a client
// from another address is served.
func TestAttackIdleConnectionFlood(t *testing.T) {
	t.Parallel()
	l, addr := serve(t, Limits{MaxConns: 100, MaxConnsPerClient: 10}, ok)
	for range 40 {
		c := dialFrom(t, "127.0.0.2", addr)
		if resp := get(t, c, bufio.NewReader(c)); resp.StatusCode != 200 {
			t.Fatalf("attacker's request: %d", resp.StatusCode)
		}
	}
	waitFor(t, "the attacker's connections are idle and within its share", func() bool {
		st := l.Stats()
		return st.Open == 10 && st.Idle == 10
	})
	if st := l.Stats(); st.ClosedIdle != 30 {
		t.Errorf("closed %d idle connections early, want 30", st.ClosedIdle)
	}
	c := dialFrom(t, "127.0.0.3", addr)
	if resp := get(t, c, bufio.NewReader(c)); resp.StatusCode != 200 {
		t.Fatalf("another client: %d", resp.StatusCode)
	}
}

// TestAttackBusyConnectionsPerClient: connections that send nothing are not idle and cannot
// be closed for room; past its share, the client's next connection is answered 503 with
// Retry-After and a sentence saying why, while another address is still served.
func TestAttackBusyConnectionsPerClient(t *testing.T) {
	t.Parallel()
	l, addr := serve(t, Limits{MaxConns: 100, MaxConnsPerClient: 5, RetryAfter: 7 * time.Second}, ok)
	for range 5 {
		dialFrom(t, "127.0.0.4", addr)
	}
	waitFor(t, "five connections counted", func() bool { return l.Stats().Open == 5 })
	c := dialFrom(t, "127.0.0.4", addr)
	resp := get(t, c, bufio.NewReader(c))
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "7" {
		t.Fatalf("the sixth connection of one address: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if st := l.Stats(); st.RefusedClient != 1 || st.Open != 5 {
		t.Errorf("stats after the refusal: %+v", st)
	}
	other := dialFrom(t, "127.0.0.5", addr)
	if resp := get(t, other, bufio.NewReader(other)); resp.StatusCode != 200 {
		t.Fatalf("another client: %d", resp.StatusCode)
	}
}

// TestAttackTotalConnections: when every connection is taken, a new one closes the least
// recently idle connection of any client and is served; when none is idle, it is refused.
func TestAttackTotalConnections(t *testing.T) {
	t.Parallel()
	l, addr := serve(t, Limits{MaxConns: 20, MaxConnsPerClient: 5}, ok)
	for i := range 4 {
		for range 5 {
			c := dialFrom(t, fmt.Sprintf("127.0.1.%d", i+1), addr)
			get(t, c, bufio.NewReader(c))
		}
	}
	// From 18 (the cap less a tenth) on, each new connection closed an idle one.
	waitFor(t, "every connection idle, near the cap", func() bool { st := l.Stats(); return st.Open == st.Idle && st.Open >= 17 && st.Open <= 18 })
	if st := l.Stats(); st.ClosedIdle == 0 {
		t.Fatalf("no idle connection was closed near the cap: %+v", st)
	}
	c := dialFrom(t, "127.0.1.9", addr)
	if resp := get(t, c, bufio.NewReader(c)); resp.StatusCode != 200 {
		t.Fatalf("a new client when all connections are idle: %d", resp.StatusCode)
	}
	// The server marks that connection idle after it has written the answer, which the client
	// may read first: wait for it, or the busy connections below could find one idle fewer.
	waitFor(t, "the new client's connection idle", func() bool { st := l.Stats(); return st.Open == st.Idle })
	// Now every connection is busy: they connect and say nothing.
	for i := range 4 {
		for range 5 {
			dialFrom(t, fmt.Sprintf("127.0.2.%d", i+1), addr)
		}
	}
	waitFor(t, "no idle connection left", func() bool { st := l.Stats(); return st.Idle == 0 && st.Open == 20 })
	c = dialFrom(t, "127.0.2.9", addr)
	resp := get(t, c, bufio.NewReader(c))
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a new connection when all are busy: %d", resp.StatusCode)
	}
	if l.Stats().RefusedTotal == 0 {
		t.Error("the refusal was not counted")
	}
}

// readAllHandler reads the whole body and answers its length, or 400 when reading fails, as
// the gateway's handlers do.
var readAllHandler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, "the request body could not be read", http.StatusBadRequest)
		return
	}
	fmt.Fprint(w, len(b))
})

// TestAttackSlowlorisBody reproduces a body trickled a byte at a time: it is cut off once a
// window passes with less than the minimum rate, and answered 408 with a sentence saying why.
func TestAttackSlowlorisBody(t *testing.T) {
	t.Parallel()
	var slow sync.WaitGroup
	slow.Add(1)
	h := Handler(readAllHandler, HandlerOptions{MinUploadRate: 1000, UploadWindow: 200 * time.Millisecond, UploadGrace: 100 * time.Millisecond,
		OnSlowBody: func(*http.Request) { slow.Done() }})
	_, addr := serve(t, Limits{MaxConns: 10, MaxConnsPerClient: 10}, h)
	c := dialFrom(t, "127.0.0.1", addr)
	if _, err := io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\nx"); err != nil {
		t.Fatal(err)
	}
	// A byte now and then, until the server has had enough; the answer is read beside it.
	stop := make(chan struct{})
	go func() {
		t := time.NewTicker(50 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
				if _, err := c.Write([]byte("x")); err != nil {
					return
				}
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	close(stop)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), "slower than this server's minimum of 1000 bytes a second") || !resp.Close {
		t.Fatalf("a trickled body: %d %q (close %v)", resp.StatusCode, body, resp.Close)
	}
	slow.Wait() // the hook heard of it
}

// TestBodyAtRateIsRead: a body that keeps to the rate, and a handler that pauses between its
// reads longer than a window (as one writing somewhere slow does), are not cut off.
func TestBodyAtRateIsRead(t *testing.T) {
	t.Parallel()
	pausing := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		buf := make([]byte, 1000)
		total := 0
		for {
			n, err := r.Body.Read(buf)
			total += n
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				http.Error(w, err.Error(), 400)
				return
			}
			time.Sleep(150 * time.Millisecond) // the sink is slow, not the client
		}
		fmt.Fprint(w, total)
	})
	h := Handler(pausing, HandlerOptions{MinUploadRate: 1000, UploadWindow: 100 * time.Millisecond, UploadGrace: 100 * time.Millisecond})
	_, addr := serve(t, Limits{MaxConns: 10, MaxConnsPerClient: 10}, h)
	body := bytes.Repeat([]byte("y"), 4000)
	resp, err := http.Post("http://"+addr+"/", "application/octet-stream", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "4000" {
		t.Fatalf("a body read by a slow handler: %d %s", resp.StatusCode, b)
	}
	// The connection serves the next request: no deadline was left behind.
	resp, err = http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the next request: %d", resp.StatusCode)
	}
}

// TestAttackClientStopsReading: a client that stops reading its response is cut off after the
// write timeout, however long the response; a stream whose writes get through lives on past
// the timeout.
func TestAttackClientStopsReading(t *testing.T) {
	t.Parallel()
	failed := make(chan error, 1)
	h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/stream" {
			for i := range 4 {
				fmt.Fprintf(w, "event %d\n", i)
				if err := http.NewResponseController(w).Flush(); err != nil {
					return
				}
				time.Sleep(150 * time.Millisecond) // quiet for longer than the write timeout
			}
			return
		}
		chunk := bytes.Repeat([]byte("z"), 64<<10)
		for {
			if _, err := w.Write(chunk); err != nil {
				failed <- err
				return
			}
		}
	}), HandlerOptions{WriteTimeout: 100 * time.Millisecond})
	_, addr := serve(t, Limits{MaxConns: 10, MaxConnsPerClient: 10}, h)
	c := dialFrom(t, "127.0.0.1", addr)
	if _, err := io.WriteString(c, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	if err := <-failed; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the write to a client that reads nothing failed with %v, want a timeout", err)
	}

	resp, err := http.Get("http://" + addr + "/stream")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.Count(string(b), "event") != 4 {
		t.Fatalf("a slow stream was cut: %q", b)
	}
}

// TestReadFromKeepsBytes: a large body copied through the guarded writer (sendfile's path)
// arrives whole.
func TestReadFromKeepsBytes(t *testing.T) {
	t.Parallel()
	data := bytes.Repeat([]byte("0123456789abcdef"), 300<<10/16*10) // 3 MB, more than one part
	h := Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		_, _ = io.CopyN(w, bytes.NewReader(data), int64(len(data)))
	}), HandlerOptions{WriteTimeout: time.Minute})
	_, addr := serve(t, Limits{MaxConns: 10, MaxConnsPerClient: 10}, h)
	resp, err := http.Get("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(b, data) {
		t.Fatalf("got %d bytes, want %d the same", len(b), len(data))
	}
}

func TestDefaultLimits(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ nofile, max, per int }{
		{20000, 15000, 937},
		{1024, 768, 48},
		{100, 64, 16}, // never below a floor that serves anyone
		{0, 4096, 256},
	} {
		got := DefaultLimits(c.nofile)
		if got.MaxConns != c.max || got.MaxConnsPerClient != c.per {
			t.Errorf("DefaultLimits(%d) = %d, %d; want %d, %d", c.nofile, got.MaxConns, got.MaxConnsPerClient, c.max, c.per)
		}
	}
}

// TestNoStaleWriteDeadline: a keep-alive connection quiet for longer than the write timeout
// still serves its next request, one asking for 100 Continue included: a deadline left by the
// last write of a request does not outlive it.
func TestNoStaleWriteDeadline(t *testing.T) {
	t.Parallel()
	h := Handler(readAllHandler, HandlerOptions{WriteTimeout: 50 * time.Millisecond, MinUploadRate: 1})
	_, addr := serve(t, Limits{MaxConns: 10, MaxConnsPerClient: 10}, h)
	c := dialFrom(t, "127.0.0.1", addr)
	br := bufio.NewReader(c)
	if resp := get(t, c, br); resp.StatusCode != 200 {
		t.Fatalf("first request: %d", resp.StatusCode)
	}
	time.Sleep(150 * time.Millisecond) // the connection is quiet past the last write's deadline
	if _, err := io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 5\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("waiting for 100 Continue: %v", err)
	}
	if resp.StatusCode != http.StatusContinue {
		t.Fatalf("got %d, want 100 Continue", resp.StatusCode)
	}
	if _, err := io.WriteString(c, "hello"); err != nil {
		t.Fatal(err)
	}
	resp, err = http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || string(b) != "5" {
		t.Fatalf("second request: %d %q", resp.StatusCode, b)
	}
}
