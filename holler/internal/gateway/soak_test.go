package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/access"
)

// raiseOpenFileLimit raises the soft limit of open files to the hard limit and returns it.
func raiseOpenFileLimit(t *testing.T) int {
	t.Helper()
	var r syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
		t.Fatal(err)
	}
	if r.Cur < r.Max {
		r.Cur = r.Max
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &r); err != nil {
			t.Fatal(err)
		}
	}
	return int(min(r.Cur, 1<<20))
}

// soak sizes: thousands of idle connections and of sessions, within what the test process's
// own descriptors allow (each loopback connection costs two here, the client's and the
// gateway's).
const (
	soakIdleConns   = 3000
	soakSessions    = 2000
	soakAddresses   = 10
	soakMaxConns    = 1200
	soakPerClient   = 200
	soakMaxSessions = 400
	soakBufferTotal = 8 << 20
	// soakHeapBound is what the gateway and this test's clients may hold on the heap at the
	// end. Without the bounds the sessions' events alone would hold some 2000 × 120 KB
	// (240 MB); with them 8 MiB at most, plus what the connections and sessions cost.
	soakHeapBound = 96 << 20
)

// TestSoakConnectionsAndSessions floods a real gateway on loopback with thousands of idle
// keep-alive connections from several addresses and thousands of sessions that each read a
// large result over an event stream, then checks that a client with a token is still served
// and that the process's heap stays within a stated bound.
func TestSoakConnectionsAndSessions(t *testing.T) {
	if testing.Short() {
		t.Skip("the soak test opens thousands of connections")
	}
	nofile := raiseOpenFileLimit(t)
	// The clients' ends of every connection stay open until the end, the gateway's ends up to
	// its cap, and the sessions' clients and the gateway's own files need some more.
	if need := soakIdleConns + soakMaxConns + 512; nofile < need {
		t.Fatalf("the soak needs %d open files and the hard limit is %d: raise it (ulimit -Hn)", need, nofile)
	}
	p := filepath.Join(t.TempDir(), "tokens")
	// Five tokens share the flood: each may hold a quarter of the sessions, so together they
	// reach the bound on all of them.
	var floodTokens []string
	for i := range 5 {
		tok, err := access.AddToken(p, fmt.Sprintf("flood%d", i), hootv1.Tier_TIER_STANDARD)
		if err != nil {
			t.Fatal(err)
		}
		floodTokens = append(floodTokens, tok)
	}
	adminToken, err := access.AddToken(p, "admin", hootv1.Tier_TIER_STANDARD)
	if err != nil {
		t.Fatal(err)
	}
	tokens, err := access.LoadTokens(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	guard, err := access.NewGuard(access.Config{Tokens: tokens})
	if err != nil {
		t.Fatal(err)
	}
	g, err := Start(Config{
		WorkerEndpoint:     "tcp://127.0.0.1:*",
		Access:             guard,
		MaxConns:           soakMaxConns,
		MaxConnsPerClient:  soakPerClient,
		MaxSessions:        soakMaxSessions,
		SessionBuffer:      256 << 10,
		SessionBufferTotal: soakBufferTotal,
		backend:            inProcess{hootv1hoot.NewSystemService(echoHandler{})},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- g.ServeHTTP(ctx, l) }()
	defer func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
	}()

	// Thousands of idle keep-alive connections after /healthz, from several addresses.
	start := time.Now()
	var (
		mu       sync.Mutex
		conns    []net.Conn
		answered atomic.Int64
	)
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	parallel(t, soakIdleConns, 32, func(i int) error {
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 3, byte(1+i%soakAddresses))}}
		c, err := d.Dial("tcp", addr)
		if err != nil {
			return err
		}
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		if _, err := io.WriteString(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"); err != nil {
			return nil // closed for room already
		}
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			return nil // closed for room already
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		answered.Add(1)
		return nil
	})
	st := g.listener.Load().Stats()
	t.Logf("after %d idle connections (%d answered, %v): %+v", soakIdleConns, answered.Load(), time.Since(start).Round(time.Millisecond), st)
	if st.Open > soakMaxConns || st.ClosedIdle == 0 {
		t.Fatalf("connections: %+v; want at most %d open and idle ones closed for room", st, soakMaxConns)
	}

	// Thousands of sessions, each reading a large result over an event stream.
	client := clientFrom(net.IPv4(127, 0, 4, 1))
	defer client.CloseIdleConnections()
	message := strings.Repeat("s", 60000)
	start = time.Now()
	parallel(t, soakSessions, 16, func(i int) error {
		token := floodTokens[i%len(floodTokens)]
		sid, err := soakInitialize(client, addr, token, "text/event-stream")
		if err != nil {
			return err
		}
		_, body, err := soakPost(client, addr, token, sid, "text/event-stream", fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"echo","arguments":{"message":%q}}}`, i, message))
		if err != nil {
			return err
		}
		if !strings.Contains(body, message) {
			return fmt.Errorf("session %d: the echo did not come back: %.200s", i, body)
		}
		return nil
	})
	ss := g.mcp.SessionStats()
	t.Logf("after %d sessions (%v): %d live, %d ended for room, %d bytes buffered, events dropped %v", soakSessions, time.Since(start).Round(time.Millisecond), ss.Live, ss.Evicted, ss.BufferedBytes, ss.DroppedEvents)
	if ss.Live > soakMaxSessions || ss.BufferedBytes > soakBufferTotal || ss.Evicted < soakSessions-soakMaxSessions {
		t.Fatalf("sessions: %+v", ss)
	}

	// A client with another token, from another address, is served: the gateway answers and
	// the call succeeds.
	admin := clientFrom(net.IPv4(127, 0, 5, 1))
	defer admin.CloseIdleConnections()
	sid, err := soakInitialize(admin, addr, adminToken, "application/json, text/event-stream")
	if err != nil {
		t.Fatal(err)
	}
	status, body, err := soakPost(admin, addr, adminToken, sid, "application/json", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"still here"}}}`)
	if err != nil || status != 200 || !strings.Contains(body, "still here") || strings.Contains(body, `"isError":true`) {
		t.Fatalf("the authorised call: %d %v %.300s", status, err, body)
	}

	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("heap in use %d MiB (bound %d MiB), sys %d MiB, goroutines %d", ms.HeapInuse>>20, soakHeapBound>>20, ms.Sys>>20, runtime.NumGoroutine())
	if ms.HeapInuse > soakHeapBound {
		t.Fatalf("heap in use %d MiB, over the bound of %d MiB", ms.HeapInuse>>20, soakHeapBound>>20)
	}
}

// parallel runs f(0..n-1) on workers goroutines and fails the test on the first error.
func parallel(t *testing.T, n, workers int, f func(i int) error) {
	t.Helper()
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				if err := f(i); err != nil {
					errs <- err
					next.Store(int64(n)) // stop the others
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		t.Fatal(err)
	}
}

// clientFrom is an HTTP client whose connections come from the loopback address ip.
func clientFrom(ip net.IP) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: ip}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 32}}
}

// soakInitialize starts a session of protocol 2025-11-25 and returns its id.
func soakInitialize(c *http.Client, addr, token, accept string) (string, error) {
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(
		`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak","version":"0"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return "", err
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != 200 || sid == "" {
		return "", fmt.Errorf("initialize: %d %s", resp.StatusCode, b)
	}
	if status, body, err := soakPost(c, addr, token, sid, accept, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil || status != http.StatusAccepted {
		return "", fmt.Errorf("notifications/initialized: %d %v %s", status, err, body)
	}
	return sid, nil
}

// soakPost posts one message in session sid and returns the answer's status and body.
func soakPost(c *http.Client, addr, token, sid, accept, msg string) (int, string, error) {
	if !json.Valid([]byte(msg)) {
		return 0, "", fmt.Errorf("not JSON: %s", msg)
	}
	req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(msg))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	req.Header.Set("Mcp-Session-Id", sid)
	req.Header.Set("Mcp-Protocol-Version", "2025-11-25")
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}
