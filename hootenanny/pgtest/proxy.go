package pgtest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// A Proxy forwards TCP connections to a server until it is cut: then it closes every
// connection and stops listening, so that the server looks gone (connections refused, open ones
// ended) until it is restored on the same address. It stands for a database server that goes
// away, without stopping a server that other tests share.
type Proxy struct {
	upstream string
	addr     string

	mu    sync.Mutex
	ln    net.Listener
	conns []net.Conn
	wg    sync.WaitGroup
}

// NewProxy starts a proxy to the server of the URL dsn, stopped when the test ends, and returns
// it with dsn rewritten to connect through it.
func NewProxy(t testing.TB, dsn string) (*Proxy, string) {
	t.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := &Proxy{upstream: u.Host}
	if err := p.listen("127.0.0.1:0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Cut(); p.wg.Wait() })
	u.Host = p.addr
	return p, u.String()
}

func (p *Proxy) listen(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	p.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", p.upstream)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, up)
			p.mu.Unlock()
			p.wg.Go(func() { io.Copy(up, c); up.Close() })
			p.wg.Go(func() { io.Copy(c, up); c.Close() })
		}
	})
	return nil
}

// Cut closes the listener and every connection.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
		p.ln = nil
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// Restore listens again on the address of before.
func (p *Proxy) Restore(t testing.TB) {
	t.Helper()
	if err := p.listen(p.addr); err != nil {
		t.Fatalf("listen again on %s: %v", p.addr, err)
	}
}
