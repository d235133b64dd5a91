package mcp

import (
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/listen"
)

// subscriptions/listen (2026-07-28) is served by package listen's Server; this file is what
// it is lent of the server.

// The method of subscriptions/listen.
const methodListen = listen.Method

// EndSubscriptions ends every subscriptions/listen stream with its result, as the protocol asks
// of a server that shuts down; streams opened later end at once. An HTTP server calls it when
// it begins to shut down (http.Server.RegisterOnShutdown), since the streams would otherwise
// hold the shutdown until its deadline. Close calls it too.
func (s *Server) EndSubscriptions() { s.listens.EndAll() }

// listenHost is the server as package listen sees it.
type listenHost struct{ s *Server }

// Lists returns the kinds of lists this server has: its tools always, its prompts and resources
// when the table has them.
func (h listenHost) Lists() listen.Kinds {
	caps := h.s.modernCapabilities()
	k := listen.Tools
	if caps.Prompts != nil {
		k |= listen.Prompts
	}
	if caps.Resources != nil {
		k |= listen.Resources
	}
	return k
}

func (h listenHost) HasResource(uri string) bool    { return h.s.entries.HasResource(uri) }
func (h listenHost) Extensions() []listen.Extension { return h.s.listenExtensions }
func (h listenHost) Complete(r *jsonrpc.Response) *jsonrpc.Response {
	return h.s.modernResponse(methodListen, r)
}
