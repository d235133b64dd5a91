package hooteproto

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
)

// A Command is what a frame asks of its receiver.
type Command byte

const (
	// CommandReady: a worker announces the services it serves (body: hoot.v1.Ready).
	CommandReady Command = 1
	// CommandRequest: the gateway asks a worker to run a tool (body: hoot.v1.Request).
	CommandRequest Command = 2
	// CommandProgress: a worker reports how far a request has come (body: hoot.v1.Progress).
	CommandProgress Command = 3
	// CommandReply: a worker answers a request (body: hoot.v1.Result).
	CommandReply Command = 4
	// CommandCancel: the gateway no longer wants the answer to a request (no body).
	CommandCancel Command = 5
	// CommandHeartbeat: either side says it is alive (no body).
	CommandHeartbeat Command = 6
	// CommandDisconnect: either side says it is leaving, or does not know the other (no body).
	CommandDisconnect Command = 7
	// CommandAsk: a worker's running request asks the MCP client something, such as to sample
	// a model or to ask the user (body: hoot.v1.ClientCall).
	CommandAsk Command = 8
	// CommandAnswer: the gateway brings the client's answer to an ASK (body: hoot.v1.ClientAnswer).
	CommandAnswer Command = 9

	minCommand = CommandReady
	maxCommand = CommandAnswer
)

// String returns the command's name as the protocol writes it, such as "REQUEST".
func (c Command) String() string {
	switch c {
	case CommandReady:
		return "READY"
	case CommandRequest:
		return "REQUEST"
	case CommandProgress:
		return "PROGRESS"
	case CommandReply:
		return "REPLY"
	case CommandCancel:
		return "CANCEL"
	case CommandHeartbeat:
		return "HEARTBEAT"
	case CommandDisconnect:
		return "DISCONNECT"
	case CommandAsk:
		return "ASK"
	case CommandAnswer:
		return "ANSWER"
	}
	return fmt.Sprintf("COMMAND_%d", byte(c))
}

// needsID reports whether frames of this command belong to one request.
func (c Command) needsID() bool {
	return c == CommandRequest || c == CommandProgress || c == CommandReply || c == CommandCancel ||
		c == CommandAsk || c == CommandAnswer
}

// A RequestID names one request for the whole of its life on the wire.
type RequestID [16]byte

// NewRequestID returns a random RequestID.
func NewRequestID() RequestID {
	var id RequestID
	_, _ = rand.Read(id[:]) // crypto/rand.Read never fails on supported platforms.
	return id
}

// String returns the id as 32 hex digits.
func (id RequestID) String() string { return hex.EncodeToString(id[:]) }

// IsZero reports whether id is the zero id, which frames without a request carry.
func (id RequestID) IsZero() bool { return id == RequestID{} }

// A Frame is one HOOT/2 message.
type Frame struct {
	// Peer is the ZeroMQ routing identity of the other side. Only the router side (the gateway)
	// sets and reads it; a worker's frames leave it empty.
	Peer string
	// Command says what the frame asks.
	Command Command
	// ID names the request a REQUEST, PROGRESS, REPLY or CANCEL frame belongs to.
	ID RequestID
	// Service names the service a READY announces or a REQUEST is for; empty otherwise.
	Service string
	// Traceparent is the W3C trace context of the request, or empty.
	Traceparent string
	// Body is the protobuf-encoded message of the command, or empty.
	Body []byte
}

// Limits of the fields of a frame that are not the body.
const (
	// MaxServiceLen is the longest service name a frame may carry.
	MaxServiceLen = 64
	// DefaultMaxBody is the default limit on a frame's body: 16 MiB.
	DefaultMaxBody = 16 << 20
	// MaxHeaderLen is the most a frame takes besides its body.
	MaxHeaderLen   = len(Protocol) + 1 + 1 + len(RequestID{}) + 1 + MaxServiceLen + 1 + traceparentLen
	traceparentLen = 55
)

// ErrFrame is wrapped by every error that DecodeFrame returns.
var ErrFrame = errors.New("hooteproto: bad frame")

// ErrFrameTooLarge is wrapped by the error of DecodeFrame for a body over the limit.
var ErrFrameTooLarge = fmt.Errorf("%w: too large", ErrFrame)

// Parts returns the frame's ZeroMQ message parts (without the routing identity): one part, the
// frame's Encoding.
func (f *Frame) Parts() [][]byte { return [][]byte{f.Encode()} }

// Encode returns the frame as the wire carries it, in one ZeroMQ message part:
//
//	the protocol tag, 6 bytes ("HOOT/2")
//	the command, 1 byte
//	the request id: its length (16, or 0 for commands without one), 1 byte, and the id
//	the service: its length, 1 byte, and the name
//	the traceparent: its length (55 or 0), 1 byte, and the traceparent
//	the body: the rest
func (f *Frame) Encode() []byte {
	return f.AppendEncode(make([]byte, 0, f.EncodedLen()))
}

// EncodedLen returns the length of the frame's encoding.
func (f *Frame) EncodedLen() int {
	n := len(Protocol) + 4 + len(f.Service) + len(f.Traceparent) + len(f.Body)
	if f.Command.needsID() {
		n += len(f.ID)
	}
	return n
}

// AppendEncode appends the frame's encoding (see Encode) to b and returns the extended slice, so
// that a sender may encode into a buffer it keeps.
func (f *Frame) AppendEncode(b []byte) []byte {
	var id []byte
	if f.Command.needsID() {
		id = f.ID[:]
	}
	b = append(b, Protocol...)
	b = append(b, byte(f.Command), byte(len(id)))
	b = append(b, id...)
	b = append(b, byte(len(f.Service)))
	b = append(b, f.Service...)
	b = append(b, byte(len(f.Traceparent)))
	b = append(b, f.Traceparent...)
	return append(b, f.Body...)
}

// DecodeFrame checks the message parts of one frame (without the routing identity) and returns
// the frame. Every field is bounded: one part, the protocol tag, a known command, a 16-byte id
// exactly when the command needs one, a service name of [a-z0-9_] up to MaxServiceLen, a
// well-formed traceparent or none, and a body of at most maxBody bytes (DefaultMaxBody when
// maxBody <= 0; over it the error wraps ErrFrameTooLarge). The frame's body shares memory with
// parts.
func DecodeFrame(parts [][]byte, maxBody int) (Frame, error) {
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	var f Frame
	if len(parts) != 1 {
		if len(parts) == 6 && string(parts[0]) == "HOOT/1" {
			return f, fmt.Errorf("%w: a HOOT/1 frame of 6 parts: the peer runs an older version of the wire, which this one does not speak; upgrade it", ErrFrame)
		}
		return f, fmt.Errorf("%w: %d parts, want 1", ErrFrame, len(parts))
	}
	b := parts[0]
	if len(b) < len(Protocol) || string(b[:len(Protocol)]) != Protocol {
		if IsBatch(b) {
			return f, fmt.Errorf("%w: a batch of frames (%s) where one frame was expected", ErrFrame, BatchProtocol)
		}
		return f, fmt.Errorf("%w: protocol tag %q, want %q", ErrFrame, truncate(b, len(Protocol)), Protocol)
	}
	return decodeFields(b[len(Protocol):], maxBody)
}

// decodeFields decodes and checks a frame's fields after its protocol tag.
func decodeFields(b []byte, maxBody int) (Frame, error) {
	var f Frame
	if len(b) == 0 || Command(b[0]) < minCommand || Command(b[0]) > maxCommand {
		return f, fmt.Errorf("%w: unknown command %x", ErrFrame, truncate(b, 1))
	}
	f.Command = Command(b[0])
	b = b[1:]
	// field takes one length-prefixed field off b.
	field := func(what string) ([]byte, error) {
		if len(b) == 0 || len(b) < 1+int(b[0]) {
			return nil, fmt.Errorf("%w: the frame ends inside its %s", ErrFrame, what)
		}
		v := b[1 : 1+int(b[0])]
		b = b[1+int(b[0]):]
		return v, nil
	}
	id, err := field("request id")
	if err != nil {
		return f, err
	}
	switch {
	case f.Command.needsID() && len(id) != len(f.ID):
		return f, fmt.Errorf("%w: %s needs a %d-byte request id, got %d bytes", ErrFrame, f.Command, len(f.ID), len(id))
	case !f.Command.needsID() && len(id) != 0:
		return f, fmt.Errorf("%w: %s carries no request id, got %d bytes", ErrFrame, f.Command, len(id))
	}
	copy(f.ID[:], id)
	service, err := field("service")
	if err != nil {
		return f, err
	}
	traceparent, err := field("traceparent")
	if err != nil {
		return f, err
	}
	// Check applies the rules of every field; the lengths are bounded by their length bytes.
	f.Service, f.Traceparent, f.Body = string(service), string(traceparent), b
	return f, f.Check(maxBody)
}

// Check reports what is wrong with a frame's fields, by the rules DecodeFrame applies to a
// frame received: a known command, a request id other than zero when the command needs one
// (a command without one sends none), a service name of [a-z0-9_] up to MaxServiceLen, a
// well-formed traceparent or none, and a body of at most maxBody bytes (DefaultMaxBody when
// maxBody <= 0; over it the error wraps ErrFrameTooLarge). Every error wraps ErrFrame. A
// frame that passes is one the other side's DecodeFrame takes.
func (f *Frame) Check(maxBody int) error {
	if maxBody <= 0 {
		maxBody = DefaultMaxBody
	}
	if f.Command < minCommand || f.Command > maxCommand {
		return fmt.Errorf("%w: unknown command %d", ErrFrame, f.Command)
	}
	if f.Command.needsID() && f.ID.IsZero() {
		return fmt.Errorf("%w: %s with the zero request id", ErrFrame, f.Command)
	}
	if err := checkService(f.Service); err != nil {
		return err
	}
	if f.Traceparent != "" && !ValidTraceparent(f.Traceparent) {
		return fmt.Errorf("%w: malformed traceparent %q", ErrFrame, truncate(f.Traceparent, traceparentLen))
	}
	if len(f.Body) > maxBody {
		return fmt.Errorf("%w: body of %d bytes is over the limit of %d", ErrFrameTooLarge, len(f.Body), maxBody)
	}
	return nil
}

func checkService(b string) error {
	if len(b) > MaxServiceLen {
		return fmt.Errorf("%w: service name of %d bytes is over the limit of %d", ErrFrame, len(b), MaxServiceLen)
	}
	for i := range len(b) {
		if c := b[i]; !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_') {
			return fmt.Errorf("%w: service name %q has a character outside [a-z0-9_]", ErrFrame, b)
		}
	}
	return nil
}

// ValidTraceparent reports whether b is a well-formed W3C traceparent header value, of the trace
// context version 00 form: 2 hex version, 32 hex trace id, 16 hex parent id, 2 hex flags,
// separated by dashes.
func ValidTraceparent(b string) bool {
	if len(b) != traceparentLen || b[2] != '-' || b[35] != '-' || b[52] != '-' {
		return false
	}
	allZero := func(s string) bool {
		for i := range len(s) {
			if s[i] != '0' {
				return false
			}
		}
		return true
	}
	for i := range len(b) {
		if i == 2 || i == 35 || i == 52 {
			continue
		}
		if c := b[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return !(b[0] == 'f' && b[1] == 'f') && !allZero(b[3:35]) && !allZero(b[36:52])
}

func truncate[T ~string | ~[]byte](b T, n int) T {
	if len(b) > n {
		return b[:n]
	}
	return b
}
