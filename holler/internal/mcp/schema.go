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
// digest, in order.
func (s *Server) schemaHashOf(listed []toolDescription) string {
	h := sha256.New()
	h.Write([]byte("holler schema v1\x00"))
	for i := range listed {
		d := s.toolDigest(&listed[i])
		h.Write(d[:])
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// toolDigest returns the SHA-256 of a tool's service and description as JSON, each followed by
// a zero byte (which JSON never holds, so no two tools run together into the same bytes). A
// tool's description is made once, from the table NewServer was given, so its digest is kept:
// encoding the descriptions, whose schemas are large, on every tools/list would cost
// milliseconds.
func (s *Server) toolDigest(d *toolDescription) [sha256.Size]byte {
	if v, ok := s.toolDigests.Load(d.Name); ok {
		return v.([sha256.Size]byte)
	}
	h := sha256.New()
	if t, ok := s.tools[d.Name]; ok {
		h.Write([]byte(t.Service))
	}
	h.Write([]byte{0})
	// Execution depends on the session asking, not on the tool: leave it out.
	desc := *d
	desc.Execution = nil
	b, err := json.Marshal(desc)
	if err != nil {
		// A description is built by this package from the tool table and always encodes.
		panic("mcp: a tool description does not encode: " + err.Error())
	}
	h.Write(b)
	h.Write([]byte{0})
	var sum [sha256.Size]byte
	h.Sum(sum[:0])
	s.toolDigests.Store(d.Name, sum)
	return sum
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
