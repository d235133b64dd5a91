package zmqtransport

import (
	"fmt"
	"time"

	"github.com/hootenanny/hoot/hooteproto"
	zmq "github.com/pebbe/zmq4"
)

// The events a Socket watches on its own ZeroMQ socket: handshakes, and closed links.
const watchedEvents = zmq.EVENT_HANDSHAKE_FAILED_NO_DETAIL | zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL |
	zmq.EVENT_HANDSHAKE_FAILED_AUTH | zmq.EVENT_HANDSHAKE_SUCCEEDED | zmq.EVENT_DISCONNECTED

// Values of EVENT_HANDSHAKE_FAILED_PROTOCOL from zmq.h.
const (
	protocolErrorCryptographic     = 0x11000001
	protocolErrorMechanismMismatch = 0x11000002
)

// After a refused handshake libzmq stops reconnecting; the dialling side connects again by
// itself after a pause that grows from redialMin to redialMax, so that a worker comes in once
// the gateway allows its key.
const (
	redialMin = time.Second
	redialMax = 30 * time.Second
)

// watch reads the events waiting on the monitor socket: it counts failed handshakes and says
// why they failed, at most once a minute for each reason, and tells a Handler that watches its
// peers when a link closed. Only the owner goroutine calls it.
func (s *Socket) watch(mon *zmq.Socket) {
	for {
		event, _, value, err := mon.RecvEvent(zmq.DONTWAIT)
		if err != nil {
			return
		}
		switch event {
		case zmq.EVENT_HANDSHAKE_SUCCEEDED:
			s.redialWait = 0
			continue
		case zmq.EVENT_DISCONNECTED:
			// A link closed. On the router side it carried some peer, whose frames now fail
			// with ErrPeerGone; the Handler finds out which one by sending.
			if pw, ok := s.h.(hooteproto.PeerWatcher); ok && s.router {
				pw.PeerLost()
			}
			continue
		}
		s.handshakeFailures.Add(1)
		msg, redial := s.explain(event, value)
		if redial && !s.router {
			s.redialWait = min(max(2*s.redialWait, redialMin), redialMax)
			s.redialAt = time.Now().Add(s.redialWait)
		}
		if msg == "" {
			continue
		}
		reason := fmt.Sprint(event, value)
		if last, ok := s.logged.get(reason); ok && time.Since(last) < logEvery {
			continue
		}
		s.logged.put(reason, time.Now())
		args := []any{"endpoint", s.endpoint, "event", event.String()}
		if event == zmq.EVENT_HANDSHAKE_FAILED_AUTH {
			args = append(args, "status", value)
		} else {
			args = append(args, "code", fmt.Sprintf("%#x", value))
		}
		if redial && !s.router {
			args = append(args, "retry_in", s.redialWait)
		}
		s.log.Warn(msg, args...)
	}
}

// explain returns what a failed handshake means for this side (or "" when it is not worth a
// log line) and whether libzmq has given up on the connection.
func (s *Socket) explain(event zmq.Event, value int) (msg string, redial bool) {
	keyed := s.curve != nil
	switch {
	case event == zmq.EVENT_HANDSHAKE_FAILED_AUTH && s.router:
		return "", false // the ZAP handler has said why
	case event == zmq.EVENT_HANDSHAKE_FAILED_AUTH:
		return "the gateway refused this worker's CURVE key: its public key file must be among the gateway's allowed keys", true
	case event == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL && value == protocolErrorMechanismMismatch && s.router && keyed:
		return "refused a peer that connected without CURVE keys", false
	case event == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL && value == protocolErrorMechanismMismatch && s.router:
		return "refused a peer that connected with CURVE keys: this endpoint is keyless", false
	case event == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL && value == protocolErrorMechanismMismatch && keyed:
		return "the gateway does not use CURVE keys but this worker does: use keys on both sides or on neither", true
	case event == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL && value == protocolErrorMechanismMismatch:
		return "the gateway requires CURVE keys and this worker has none: make a key pair with keygen and give it, with the gateway's public key", true
	case event == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL && value == protocolErrorCryptographic && !s.router:
		return "the CURVE handshake with the gateway failed: check that the server key is the gateway's public key", true
	case event == zmq.EVENT_HANDSHAKE_FAILED_PROTOCOL:
		return "a ZeroMQ handshake failed", !s.router
	}
	// EVENT_HANDSHAKE_FAILED_NO_DETAIL: the connection broke during the handshake; libzmq
	// reconnects by itself. A peer that finds the keys do not match hangs up like this too.
	if s.router && keyed {
		return "a peer broke off the handshake, as one without CURVE keys or with the wrong server key does (or a network fault)", false
	}
	return "", false
}
