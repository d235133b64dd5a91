package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// The schema hash: a digest of every tool a caller may call, as tools/list describes it (name,
// title, description, input and output schemas, annotations) with the service that serves it.
// It changes when any of these changes, when a tool comes or goes (a worker arrives or leaves),
// and not otherwise, so a client that kept a tool list under a hash may use it for as long as
// the server gives the same hash: in server/discover, in tools/list _meta and in the greeting
// of a WebSocket. The hash is of what the caller may call, so two tokens of different tiers
// see different hashes.

// metaSchemaHash is the _meta key of tools/list that holds the schema hash.
const metaSchemaHash = "hootenanny/schemaHash"

// listMeta is the _meta of a tools/list answer.
type listMeta struct {
	SchemaHash string `json:"hootenanny/schemaHash"`
}

// A serviceDescription is one service (a worker's activation) as server/discover shows it:
// its name and the tools it serves, in tools/list's order.
type serviceDescription struct {
	Name  string   `json:"name"`
	Tools []string `json:"tools"`
}

// schemaHash returns the schema hash of the tools the caller of ctx may call now.
func (s *Server) schemaHash(ctx context.Context) string {
	return s.schemaHashOf(s.capListing(ctx, s.listedNow()))
}

// schemaHashOf returns the schema hash of listed: "sha256:" and the hex SHA-256 of each tool's
// service and description as JSON, in order, each followed by a zero byte (which JSON never
// holds, so no two listings run together into the same bytes).
func (s *Server) schemaHashOf(listed []toolDescription) string {
	h := sha256.New()
	h.Write([]byte("holler schema v1\x00"))
	for _, d := range listed {
		if t, ok := s.tools[d.Name]; ok {
			h.Write([]byte(t.Service))
		}
		h.Write([]byte{0})
		// Execution depends on the session asking, not on the tool: leave it out.
		d.Execution = nil
		b, err := json.Marshal(d)
		if err != nil {
			// A description is built by this package from the tool table and always encodes.
			panic("mcp: a tool description does not encode: " + err.Error())
		}
		h.Write(b)
		h.Write([]byte{0})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// servicesOf groups listed by service, in the order each service first appears.
func (s *Server) servicesOf(listed []toolDescription) []serviceDescription {
	out := []serviceDescription{}
	at := make(map[string]int)
	for _, d := range listed {
		t, ok := s.tools[d.Name]
		if !ok {
			continue
		}
		i, seen := at[t.Service]
		if !seen {
			i = len(out)
			at[t.Service] = i
			out = append(out, serviceDescription{Name: t.Service})
		}
		out[i].Tools = append(out[i].Tools, d.Name)
	}
	return out
}
