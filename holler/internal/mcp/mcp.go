// Package mcp is holler's MCP server: JSON-RPC 2.0, the MCP lifecycle and methods, and the two
// transports that carry them, Streamable HTTP ([Server.ServeHTTP]) and stdio
// ([Server.ServeStdio]).
//
// This package is the only place where JSON exists. A tools/call's arguments are decoded
// strictly into the tool's generated request message, checked with hooteproto.Validate, wrapped
// into a hoot.v1.Payload and handed to a [Backend]; the typed hoot.v1.Result that comes back is
// turned into an MCP CallToolResult. The server knows nothing of the domain beyond the generated
// tool table it is given in [Config].
//
// # Structure
//
// One core handles one decoded JSON-RPC message for one session and returns the response, if
// any. The transports around it only frame messages, find the session, and carry notifications:
// those that the core emits while a request runs (progress, log messages) go with the
// request's response, the others (notifications/tools/list_changed, log messages of the
// gateway) on the session's own stream, which is GET's event stream over HTTP and the output
// over stdio. Over HTTP every event has an id and a session buffers its recent events, so a
// client that lost a stream resumes it with Last-Event-ID. A mistake is answered with guidance
// in the error's data: what went wrong, what was expected, and a request to copy (data.try).
//
// # Example
//
//	srv, err := mcp.NewServer(&mcp.Config{Backend: backend})
//	if err != nil {
//		return err
//	}
//	defer srv.Close()
//	http.Handle("/mcp", srv)
package mcp

// The protocol versions this server speaks, newest first. 2026-07-28 is the modern era: it has
// no initialize and no sessions, and every request carries its version in params._meta
// (modern.go). The others are the legacy era, negotiated by initialize.
const (
	protocolVersion20260728 = "2026-07-28"
	protocolVersion20251125 = "2025-11-25"
	protocolVersion20250618 = "2025-06-18"
	protocolVersion20250326 = "2025-03-26"

	latestProtocolVersion = protocolVersion20251125
)

// supportedProtocolVersions lists the versions initialize accepts, newest first.
var supportedProtocolVersions = []string{
	protocolVersion20251125,
	protocolVersion20250618,
	protocolVersion20250326,
}

// modernProtocolVersions lists the versions served per request, without initialize.
var modernProtocolVersions = []string{protocolVersion20260728}

// allProtocolVersions lists every version this server speaks, modern and legacy, newest first:
// what server/discover and an unsupported version's error name.
var allProtocolVersions = append(append([]string{}, modernProtocolVersions...), supportedProtocolVersions...)

// isSupportedVersion reports whether v is one of supportedProtocolVersions.
func isSupportedVersion(v string) bool {
	for _, s := range supportedProtocolVersions {
		if s == v {
			return true
		}
	}
	return false
}

// argumentErrorsAsResults reports whether a session of protocol version v gets bad tool
// arguments as a tool result with isError (so the model sees them) rather than as -32602.
// Protocol versions are dates, so they compare as strings.
func argumentErrorsAsResults(v string) bool { return v >= protocolVersion20251125 }
