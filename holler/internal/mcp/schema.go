package mcp

import (
	"context"
)

// The schema hash (package toollist): a digest of every tool a caller may call, as tools/list describes it (name,
// title, description, input and output schemas, annotations) with the service that serves it.
// It changes when any of these changes, when a tool comes or goes (a worker arrives or leaves),
// and not otherwise, so a client that kept a tool list under a hash may use it for as long as
// the server gives the same hash: in server/discover, in tools/list _meta and in the greeting
// of a WebSocket. The hash is of what the caller may call, so two tokens of different tiers
// see different hashes.

// schemaHash returns the schema hash of the tools the caller of ctx may call now.
func (s *Server) schemaHash(ctx context.Context) string {
	return s.hasher.Hash(s.capListing(ctx, s.listedNow()))
}
