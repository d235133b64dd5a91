package gateway

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

// serveLimited serves a gateway with cfg's limits on 127.0.0.1 until the test ends.
func serveLimited(t *testing.T, cfg Config) (*Gateway, string) {
	t.Helper()
	cfg.WorkerEndpoint = "tcp://127.0.0.1:*"
	cfg.backend = inProcess{hootv1hoot.NewSystemService(echoHandler{})}
	g, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- g.ServeHTTP(ctx, l) }()
	t.Cleanup(func() {
		cancel()
		if err := <-served; err != nil {
			t.Error(err)
		}
		g.Close()
	})
	return g, l.Addr().String()
}

// TestAttackIdleFloodFromOneAddress reproduces the idle connection flood against the gateway:
// one address opens many times its share of keep-alive connections after /healthz and leaves
// them idle. It never holds more than its share, and a client from another address starts a
// session as usual.
func TestAttackIdleFloodFromOneAddress(t *testing.T) {
	t.Parallel()
	g, addr := serveLimited(t, Config{MaxConns: 100, MaxConnsPerClient: 20})
	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 6, 1)}}
	for range 300 {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		fmt.Fprint(c, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	if st := g.listener.Load().Stats(); st.Open > 21 || st.ClosedIdle < 279 {
		t.Fatalf("after the flood: %+v; want at most its share of 20 open (and the one closing)", st)
	}
	other := clientFrom(net.IPv4(127, 0, 6, 2))
	defer other.CloseIdleConnections()
	if _, err := soakInitialize(other, addr, "", "application/json"); err != nil {
		t.Fatalf("another address after the flood: %v", err)
	}
}

// TestAttackSlowBodyToMCP reproduces the body trickled at a byte now and then to /mcp: it is
// answered 408 with a sentence saying why, counted in the metrics, and the connection closes.
func TestAttackSlowBodyToMCP(t *testing.T) {
	t.Parallel()
	_, addr := serveLimited(t, Config{MinUploadRate: 1000, uploadWindow: 200 * time.Millisecond})
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprint(c, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: 5000\r\n\r\n{")
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(b), "minimum of 1000 bytes a second") || !resp.Close {
		t.Fatalf("a trickled body: %d %q", resp.StatusCode, b)
	}
	mresp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := io.ReadAll(mresp.Body)
	mresp.Body.Close()
	if !strings.Contains(string(m), "holler_http_slow_bodies_total 1") || !strings.Contains(string(m), "holler_sessions_max 4096") {
		t.Fatalf("metrics lack the slow body or the session bound:\n%s", m)
	}
}
