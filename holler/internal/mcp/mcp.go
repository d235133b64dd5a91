// Package mcp is holler's MCP server: JSON-RPC 2.0, the MCP lifecycle and methods, served over
// Streamable HTTP ([Server.ServeHTTP]), stdio ([Server.ServeStdio]) and WebSocket
// ([Server.ServeWebSocket]).
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
// any. The transports around it (packages streamable, stdio and ws, each reaching the core
// through its Host, which http.go and conn.go implement) only frame messages, find the
// session, and carry notifications:
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
