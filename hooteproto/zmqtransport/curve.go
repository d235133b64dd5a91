package zmqtransport

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/hootenanny/hoot/hooteproto/curvekey"
	zmq "github.com/pebbe/zmq4"
)

// Curve turns on CurveZMQ (ZeroMQ RFC 26) for a Socket: the connection is encrypted, the
// dialling side proves it holds the secret key of its public key, and the listening side lets
// in only the public keys it was given. Keys are Z85 text, 40 characters each (see package
// hooteproto/curvekey for making them and reading them from files).
type Curve struct {
	// SecretKey is this side's secret key; its public key is derived from it.
	SecretKey string
	// ServerKey is the public key of the listening side. Dial needs it; Listen ignores it.
	ServerKey string
	// Allow holds the public keys of the clients that Listen lets in; every other key is
	// refused during the handshake, before a single frame is read. Dial ignores it.
	Allow []string
}

// zapDomain is the ZAP domain of the listening sockets (ZeroMQ RFC 27).
const zapDomain = "hoot"

// zapEndpoint is where libzmq asks for authentication; every context has its own.
const zapEndpoint = "inproc://zeromq.zap.01"

// logEvery bounds how often one peer's failed handshakes are logged: a refused client may
// retry several times a second.
const logEvery = time.Minute

// setCurve sets a socket's CURVE options; on the listening side it also returns the ZAP
// handler that must be bound in the socket's context before the socket is.
func setCurve(sock *zmq.Socket, c *Curve, router bool, log *slog.Logger) (*zapHandler, error) {
	public, err := curvekey.PublicOf(c.SecretKey)
	if err != nil {
		return nil, fmt.Errorf("zmqtransport: CURVE secret key: %w", err)
	}
	if !router {
		if c.ServerKey == "" {
			return nil, errors.New("zmqtransport: CURVE needs the server's public key to dial")
		}
		if _, err := curvekey.Decode(c.ServerKey); err != nil {
			return nil, fmt.Errorf("zmqtransport: CURVE server key: %w", err)
		}
		err := errors.Join(sock.SetCurveServerkey(c.ServerKey), sock.SetCurvePublickey(public), sock.SetCurveSecretkey(c.SecretKey))
		if err != nil {
			return nil, fmt.Errorf("zmqtransport: CURVE options: %w", err)
		}
		return nil, nil
	}
	if len(c.Allow) == 0 {
		return nil, errors.New("zmqtransport: CURVE on a listening socket needs at least one allowed client key")
	}
	h := &zapHandler{allowed: make(map[[32]byte]bool, len(c.Allow)), log: log, logged: newLRU[time.Time](256)}
	for _, k := range c.Allow {
		raw, err := curvekey.Decode(k)
		if err != nil {
			return nil, fmt.Errorf("zmqtransport: allowed CURVE key %q: %w", k, err)
		}
		h.allowed[raw] = true
	}
	err = errors.Join(sock.SetCurveServer(1), sock.SetCurveSecretkey(c.SecretKey), sock.SetZapDomain(zapDomain))
	if err != nil {
		return nil, fmt.Errorf("zmqtransport: CURVE options: %w", err)
	}
	return h, nil
}

// A zapHandler answers libzmq's ZAP requests (ZeroMQ RFC 27) for the sockets of one context,
// on a REP socket bound to zapEndpoint in that context. pebbe/zmq4's AuthStart serves only the
// default context, and every Socket here has a context of its own, hence this handler. Only the
// Socket's owner goroutine calls it.
type zapHandler struct {
	allowed map[[32]byte]bool
	log     *slog.Logger
	logged  *lru[time.Time] // when a refused key was last logged
}

// ZAP status codes.
const (
	zapOK          = "200"
	zapDenied      = "400"
	zapServerError = "500"
)

// serve answers one waiting request, if any. A REP socket must answer every request it takes,
// so even a malformed one gets a reply (500), which makes libzmq refuse that handshake.
func (h *zapHandler) serve(rep *zmq.Socket, endpoint string) {
	req, err := rep.RecvMessageBytes(zmq.DONTWAIT)
	if err != nil {
		return
	}
	// Request: version, request id, domain, address, routing id, mechanism, credentials...
	// Reply: version, request id (echoed), status code, status text, user id, metadata.
	var id []byte
	if len(req) > 1 {
		id = req[1]
	}
	status, text := h.decide(req, endpoint)
	if _, err := rep.SendMessageDontwait("1.0", id, status, text, "", ""); err != nil {
		h.log.Warn("could not answer a ZAP request", "endpoint", endpoint, "err", err)
	}
}

func (h *zapHandler) decide(req [][]byte, endpoint string) (status, text string) {
	if len(req) < 6 || string(req[0]) != "1.0" {
		h.log.Warn("malformed ZAP request", "endpoint", endpoint, "frames", len(req))
		return zapServerError, "malformed ZAP request"
	}
	address, mechanism := string(req[3]), string(req[5])
	if mechanism != "CURVE" || len(req) != 7 || len(req[6]) != 32 {
		h.log.Warn("refused a peer that did not offer a CURVE key", "endpoint", endpoint, "address", address, "mechanism", mechanism)
		return zapDenied, "CURVE key required"
	}
	key := [32]byte(req[6])
	if h.allowed[key] {
		return zapOK, "OK"
	}
	z85 := curvekey.Encode(key)
	if last, ok := h.logged.get(z85); !ok || time.Since(last) > logEvery {
		h.logged.put(z85, time.Now())
		h.log.Warn("refused a peer with an unknown CURVE key; to let it in, put its public key file in the gateway's allowed keys and restart the gateway",
			"endpoint", endpoint, "address", address, "key", z85)
	}
	return zapDenied, "unknown key"
}
