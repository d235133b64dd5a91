// Package hooteproto is the wire between holler, the MCP gateway, and hootenanny, its workers:
// HOOT/2 frames over ZeroMQ, the broker that routes typed requests to workers, the worker loop
// that serves them, and the errors both sides speak.
//
// # Frames
//
// Every message after the ZeroMQ routing identity is a [Frame], in one message part
// ([Frame.Encode]): protocol tag, command, request id, service, W3C traceparent and a protobuf
// body; or a batch of frames for the same peer ([BatchProtocol], [DecodeBatch]), which a
// transport sends when several leave at once. Nothing but protobuf crosses the wire.
//
// # Sockets
//
// The gateway binds a ROUTER; each worker connects a DEALER and announces READY with the
// services it serves. Every socket is owned by exactly one goroutine (see package zmqtransport);
// the rest of the program talks to it through a [Conn]. Package memconn is a Conn in memory with
// the same framing and the same faults, on which the broker and worker tests run.
package hooteproto

// Protocol is the tag that starts every frame of this version of the wire.
//
// HOOT/1 carried the same fields as six ZeroMQ message parts; HOOT/2 packs them into one,
// because every part costs the receiver several cgo calls and allocations (docs/decisions.md).
const Protocol = "HOOT/2"
