// Package toollist is tools/list as the server shows it: each tool described from the tool
// table (Describe), the answer's page and its cursors, and the schema hash of what a caller may
// call with the services that serve it (Hasher). Which tools are listed, to whom, and when the
// list changes is the server's.
package toollist

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/consent"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
)

// Result is tools/list's answer: one page of tools, and the cursor of the next page
// if there is one.
type Result struct {
	Tools      []Description `json:"tools"`
	NextCursor string        `json:"nextCursor,omitempty"`
	// Meta carries the schema hash of the whole listing (Hasher).
	Meta *Meta `json:"_meta,omitempty"`
}

// A Description is one tool as tools/list shows it.
type Description struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  Annotations     `json:"annotations"`
	// Execution says, to a 2025-11-25 session with tasks, whether a job runs as a task
	// (the server sets it for such a session).
	Execution *Execution `json:"execution,omitempty"`
}

// Annotations are a tool's hints, every one of them explicit: a missing hint means a
// default that clients read differently (destructiveHint and openWorldHint default to true).
type Annotations struct {
	Title           string `json:"title"`
	ReadOnlyHint    bool   `json:"readOnlyHint"`
	DestructiveHint bool   `json:"destructiveHint"`
	IdempotentHint  bool   `json:"idempotentHint"`
	OpenWorldHint   bool   `json:"openWorldHint"`
}

// Execution is a tool's execution of 2025-11-25: whether it may run as a task.
type Execution struct {
	TaskSupport string `json:"taskSupport"`
}

// ConfirmNote ends the description of a tool whose calls a person confirms, so that a model
// knows that the call waits for someone and may be refused.
const ConfirmNote = "Each call is put to a person first (the client asks its user to confirm it); " +
	"a call they decline fails without running."

// Describe describes tools for tools/list.
func Describe(p consent.Policy, tools []*hootv1hoot.Tool) []Description {
	out := make([]Description, 0, len(tools))
	for _, t := range tools {
		desc := t.Description
		if p.Asks(t) {
			desc = strings.TrimSpace(desc + "\n\n" + ConfirmNote)
		}
		d := Description{
			Name:        t.Name,
			Title:       t.Title,
			Description: desc,
			InputSchema: rawjson.Compact(json.RawMessage(t.InputSchema)),
			Annotations: Annotations{
				Title:           t.Title,
				ReadOnlyHint:    t.Annotations.ReadOnly,
				DestructiveHint: t.Annotations.Destructive,
				IdempotentHint:  t.Annotations.Idempotent,
				OpenWorldHint:   t.Annotations.OpenWorld,
			},
		}
		if strings.TrimSpace(t.OutputSchema) != "" {
			d.OutputSchema = rawjson.Compact(json.RawMessage(t.OutputSchema))
		}
		out = append(out, d)
	}
	return out
}

// The schema hash: a digest of every tool a caller may call, as tools/list describes it (name,
// title, description, input and output schemas, annotations) with the service that serves it.
// It changes when any of these changes, when a tool comes or goes (a worker arrives or leaves),
// and not otherwise, so a client that kept a tool list under a hash may use it for as long as
// the server gives the same hash: in server/discover, in tools/list _meta and in the greeting
// of a WebSocket. The hash is of what the caller may call, so two tokens of different tiers
// see different hashes.

// MetaSchemaHash is the _meta key of tools/list that holds the schema hash.
const MetaSchemaHash = "hootenanny/schemaHash"

// Meta is the _meta of a tools/list answer.
type Meta struct {
	SchemaHash string `json:"hootenanny/schemaHash"`
}

// A Service is one service (a worker's activation) as server/discover shows it:
// its name and the tools it serves, in tools/list's order.
type Service struct {
	Name  string   `json:"name"`
	Tools []string `json:"tools"`
}

// A Hasher makes schema hashes. It keeps each tool's digest, by name: a tool's description is
// made once, from the table the server was given, and encoding the descriptions, whose schemas
// are large, on every tools/list would cost milliseconds.
type Hasher struct {
	digests sync.Map
	// service returns the service of the tool named name.
	service func(name string) (string, bool)
}

// NewHasher returns a Hasher whose tools are served by the services service names.
func NewHasher(service func(name string) (string, bool)) *Hasher {
	return &Hasher{service: service}
}

// Hash returns the schema hash of listed: "sha256:" and the hex SHA-256 of each tool's
// digest, in order.
func (h *Hasher) Hash(listed []Description) string {
	sum := sha256.New()
	sum.Write([]byte("holler schema v1\x00"))
	for i := range listed {
		d := h.digest(&listed[i])
		sum.Write(d[:])
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil))
}

// digest returns the SHA-256 of a tool's service and description as JSON, each followed by
// a zero byte (which JSON never holds, so no two tools run together into the same bytes). A
// tool's description is made once, from the table the server was given, so its digest is kept:
// encoding the descriptions, whose schemas are large, on every tools/list would cost
// milliseconds.
func (h *Hasher) digest(d *Description) [sha256.Size]byte {
	if v, ok := h.digests.Load(d.Name); ok {
		return v.([sha256.Size]byte)
	}
	w := sha256.New()
	if service, ok := h.service(d.Name); ok {
		w.Write([]byte(service))
	}
	w.Write([]byte{0})
	// Execution depends on the session asking, not on the tool: leave it out.
	desc := *d
	desc.Execution = nil
	b, err := json.Marshal(desc)
	if err != nil {
		// A description is built by this package from the tool table and always encodes.
		panic("toollist: a tool description does not encode: " + err.Error())
	}
	w.Write(b)
	w.Write([]byte{0})
	var sum [sha256.Size]byte
	w.Sum(sum[:0])
	h.digests.Store(d.Name, sum)
	return sum
}

// Services groups listed by service, in the order each service first appears.
func (h *Hasher) Services(listed []Description) []Service {
	out := []Service{}
	at := make(map[string]int)
	for _, d := range listed {
		service, ok := h.service(d.Name)
		if !ok {
			continue
		}
		i, seen := at[service]
		if !seen {
			i = len(out)
			at[service] = i
			out = append(out, Service{Name: service})
		}
		out[i].Tools = append(out[i].Tools, d.Name)
	}
	return out
}

// CursorKey returns the fingerprint key of a listing: derived from the tools listed and the
// page size, not drawn at random, so that every gateway listing the same tools takes the
// others' cursors (a 2026-07-28 client's next request may reach another gateway). It keeps a
// cursor to its listing; it is no secret, since a cursor holds only an offset.
func CursorKey(pageSize int, listed []Description) []byte {
	h := sha256.New()
	fmt.Fprintf(h, "holler tools/list cursor key\x00%d\x00", pageSize)
	for _, t := range listed {
		h.Write([]byte(t.Name))
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

// cursorMACSize is how many bytes of HMAC-SHA256 a cursor carries.
const cursorMACSize = 12

// MakeCursor returns the cursor of the page that starts at offset.
func MakeCursor(key []byte, offset int) string {
	b := binary.BigEndian.AppendUint32(nil, uint32(offset))
	b = append(b, cursorMAC(key, b)...)
	return base64.RawURLEncoding.EncodeToString(b)
}

// ReadCursor returns the offset of a cursor made by MakeCursor.
func ReadCursor(key []byte, c string) (int, bool) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) != 4+cursorMACSize || !hmac.Equal(b[4:], cursorMAC(key, b[:4])) {
		return 0, false
	}
	return int(binary.BigEndian.Uint32(b[:4])), true
}

func cursorMAC(key, b []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte("tools/list cursor\x00"))
	m.Write(b)
	return m.Sum(nil)[:cursorMACSize]
}
