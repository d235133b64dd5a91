package zmqtransport_test

import (
	"strings"
	"testing"
	"time"

	"github.com/hootenanny/hoot/hooteproto"
	"github.com/hootenanny/hoot/hooteproto/curvekey"
	"github.com/hootenanny/hoot/hooteproto/zmqtransport"
	zmq "github.com/pebbe/zmq4"
)

func pair(t *testing.T) curvekey.Pair {
	t.Helper()
	p, err := curvekey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestCurveKeysMatchLibzmq(t *testing.T) {
	t.Parallel()
	p := pair(t)
	public, err := zmq.AuthCurvePublic(p.Secret)
	if err != nil || public != p.Public {
		t.Fatalf("libzmq derives %q (%v) from the secret key, curvekey made %q", public, err, p.Public)
	}
	raw, _ := curvekey.Decode(p.Public)
	if zmq.Z85encode(string(raw[:])) != p.Public {
		t.Fatal("curvekey's Z85 differs from libzmq's")
	}
}

func TestCurveKnownWorker(t *testing.T) {
	t.Parallel()
	server, worker := pair(t), pair(t)
	g := listen(t, "tcp://127.0.0.1:*", &zmqtransport.Options{Curve: &zmqtransport.Curve{SecretKey: server.Secret, Allow: []string{worker.Public}}})
	serve(t, g.sock.Endpoint(), "known", &zmqtransport.Options{Curve: &zmqtransport.Curve{SecretKey: worker.Secret, ServerKey: server.Public}})
	eventually(t, "the known worker registers", func() bool { return live(g.broker) })
	res, err := call(g.broker, "over curve")
	if err != nil || res.GetEcho().GetMessage() != "over curve" || res.GetEcho().GetWorker() != "known" {
		t.Fatalf("res=%v err=%v", res, err)
	}
	if n := g.sock.HandshakeFailures(); n != 0 {
		t.Fatalf("%d failed handshakes", n)
	}
}

// TestCurveRefused starts workers that must not get in, each beside a gateway with CURVE, and
// checks that the broker never reads a frame from them: no READY, so calls fail as unavailable.
func TestCurveRefused(t *testing.T) {
	t.Parallel()
	server, allowed := pair(t), pair(t)
	for _, tc := range []struct {
		name  string
		curve func() *zmqtransport.Curve
		log   string // what the gateway logs
	}{
		{"unknown key", func() *zmqtransport.Curve {
			return &zmqtransport.Curve{SecretKey: pair(t).Secret, ServerKey: server.Public}
		}, "unknown CURVE key"},
		{"no key", func() *zmqtransport.Curve { return nil }, "without CURVE keys"},
		{"wrong server key", func() *zmqtransport.Curve {
			return &zmqtransport.Curve{SecretKey: allowed.Secret, ServerKey: pair(t).Public}
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var gl, wl logs
			g := listen(t, "tcp://127.0.0.1:*", &zmqtransport.Options{
				Curve:  &zmqtransport.Curve{SecretKey: server.Secret, Allow: []string{allowed.Public}},
				Logger: gl.logger(),
			})
			w := serve(t, g.sock.Endpoint(), "intruder", &zmqtransport.Options{Curve: tc.curve(), Logger: wl.logger()})
			eventually(t, "the gateway sees a failed handshake", func() bool { return g.sock.HandshakeFailures() > 0 })
			eventually(t, "the worker sees a failed handshake", func() bool { return w.HandshakeFailures() > 0 })
			if tc.log != "" {
				eventually(t, "the gateway logs "+tc.log, func() bool { return gl.has(tc.log) })
			}
			if tc.name == "unknown key" {
				eventually(t, "the worker logs that its key was refused", func() bool { return wl.has("refused this worker's CURVE key") })
			}
			// Some heartbeats later, still nothing got through.
			time.Sleep(5 * hb)
			_, err := call(g.broker, "let me in")
			if hooteproto.CodeOf(err) != hooteproto.CodeUnavailable {
				t.Fatalf("call: %v, want unavailable", err)
			}
			if n := g.conn.ready.Load(); n != 0 || live(g.broker) {
				t.Fatalf("the broker saw %d READY frames from a refused worker", n)
			}
		})
	}
}

// TestCurveLaterAllowed: a worker refused once connects again by itself, so it comes in once a
// gateway on the same endpoint allows its key.
func TestCurveLaterAllowed(t *testing.T) {
	t.Parallel()
	server, worker, other := pair(t), pair(t), pair(t)
	first := listen(t, "tcp://127.0.0.1:*", &zmqtransport.Options{Curve: &zmqtransport.Curve{SecretKey: server.Secret, Allow: []string{other.Public}}})
	endpoint := first.sock.Endpoint()
	w := serve(t, endpoint, "patient", &zmqtransport.Options{Curve: &zmqtransport.Curve{SecretKey: worker.Secret, ServerKey: server.Public}})
	eventually(t, "the worker is refused", func() bool { return w.HandshakeFailures() > 0 })
	first.stop()

	var second *gateway
	opts := &zmqtransport.Options{Curve: &zmqtransport.Curve{SecretKey: server.Secret, Allow: []string{other.Public, worker.Public}}}
	eventually(t, "the endpoint is free again", func() bool {
		sock, err := zmqtransport.Listen(endpoint, opts)
		if err != nil {
			return false
		}
		sock.Close()
		second = listen(t, endpoint, opts)
		return true
	})
	eventually(t, "the worker registers with the gateway that allows it", func() bool { return live(second.broker) })
	if res, err := call(second.broker, "in at last"); err != nil || res.GetEcho().GetWorker() != "patient" {
		t.Fatalf("res=%v err=%v", res, err)
	}
}

func TestCurveOptions(t *testing.T) {
	t.Parallel()
	p := pair(t)
	for name, tc := range map[string]struct {
		listen bool
		curve  zmqtransport.Curve
		want   string
	}{
		"listen without allowed keys": {true, zmqtransport.Curve{SecretKey: p.Secret}, "at least one allowed client key"},
		"listen with a bad secret":    {true, zmqtransport.Curve{SecretKey: "short", Allow: []string{p.Public}}, "secret key"},
		"listen with a bad allowed":   {true, zmqtransport.Curve{SecretKey: p.Secret, Allow: []string{strings.Repeat("~", 40)}}, "allowed CURVE key"},
		"dial without server key":     {false, zmqtransport.Curve{SecretKey: p.Secret}, "server's public key"},
		"dial with a bad server key":  {false, zmqtransport.Curve{SecretKey: p.Secret, ServerKey: "x"}, "server key"},
	} {
		var err error
		var s *zmqtransport.Socket
		if tc.listen {
			s, err = zmqtransport.Listen("tcp://127.0.0.1:*", &zmqtransport.Options{Curve: &tc.curve})
		} else {
			s, err = zmqtransport.Dial("tcp://127.0.0.1:1", &zmqtransport.Options{Curve: &tc.curve})
		}
		if err == nil {
			s.Close()
			t.Errorf("%s: no error", name)
		} else if !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want it to mention %q", name, err, tc.want)
		}
	}
}

func TestLoopback(t *testing.T) {
	t.Parallel()
	for endpoint, want := range map[string]bool{
		"tcp://127.0.0.1:5580":   true,
		"tcp://127.0.0.1:*":      true,
		"tcp://127.1.2.3:5580":   true,
		"tcp://localhost:5580":   true,
		"tcp://[::1]:5580":       true,
		"ipc:///tmp/hoot.sock":   true,
		"inproc://hoot":          true,
		"tcp://*:5580":           false,
		"tcp://0.0.0.0:5580":     false,
		"tcp://[::]:5580":        false,
		"tcp://10.0.0.5:5580":    false,
		"tcp://eth0:5580":        false,
		"tcp://gateway.lan:5580": false,
		"tcp://127.0.0.1":        false,
		"udp://127.0.0.1:5580":   false,
	} {
		if got := zmqtransport.Loopback(endpoint); got != want {
			t.Errorf("Loopback(%q) = %v, want %v", endpoint, got, want)
		}
	}
}
