// Package upstream is the policy-tiered door to an upstream JSON-RPC API: a manifest that says,
// for every method of the upstream's inventory, its tier, whether it is served and how; a
// policy that decides before any byte goes upstream; a transport with a timeout and bounded
// retries for transient faults; and a codec between the typed protobuf messages the worker
// receives and the upstream's JSON. JSON exists here only at the edge to the upstream, which
// speaks it, as the gateway's edge speaks MCP.
package upstream

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
)

// A Tier says how much trust a method needs.
type Tier string

// The tiers, lowest first.
const (
	// TierRead reads public chain state; it changes nothing.
	TierRead Tier = "read"
	// TierLocalSensitive reads or uses what is private to the node (its accounts, its keys, its
	// filters, its pool).
	TierLocalSensitive Tier = "local-sensitive"
	// TierBroadcast sends something the node passes on to the world (a transaction): it
	// cannot be taken back.
	TierBroadcast Tier = "broadcast"
	// TierOperator drives the node itself (the engine API, debugging, block building).
	TierOperator Tier = "operator"
)

// An Implementation says how a served method is answered.
type Implementation string

// The implementations.
const (
	// ImplProxy passes the typed call on as it is.
	ImplProxy Implementation = "proxy"
	// ImplAdapter passes it on after a check or an adjustment the service adds for the method.
	ImplAdapter Implementation = "adapter"
	// ImplDeny refuses it, whatever enabled says.
	ImplDeny Implementation = "deny"
)

// A Row is one method's line of the manifest.
type Row struct {
	Method               string
	Tier                 Tier
	Enabled              bool
	Implementation       Implementation
	RequiresConfirmation bool
	// Retry lets the transport retry the method after a transient fault. A method of tier
	// broadcast is retried only when its row says so: a retried broadcast may be sent twice.
	Retry bool
	Notes string
}

// Served reports whether the method is served at all.
func (r Row) Served() bool { return r.Enabled && r.Implementation != ImplDeny }

// A Manifest is the rows of one upstream, by method.
type Manifest struct {
	rows  map[string]Row
	names []string
}

// manifestHeader is the manifest's first line, exactly.
var manifestHeader = []string{"method", "tier", "enabled", "implementation", "requires_confirmation", "retry", "notes"}

// ParseManifest reads a manifest: CSV with the header line
// method,tier,enabled,implementation,requires_confirmation,retry,notes and one row per method.
func ParseManifest(r io.Reader) (*Manifest, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("manifest: %w", err)
	}
	if strings.Join(header, ",") != strings.Join(manifestHeader, ",") {
		return nil, fmt.Errorf("manifest: the first line must be %q", strings.Join(manifestHeader, ","))
	}
	m := &Manifest{rows: map[string]Row{}}
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("manifest: %w", err)
		}
		line, _ := cr.FieldPos(0)
		if len(rec) != len(manifestHeader) {
			return nil, fmt.Errorf("manifest line %d: wrong number of fields: %d, want %d (%s)", line, len(rec), len(manifestHeader), strings.Join(manifestHeader, ","))
		}
		row, err := parseRow(rec)
		if err != nil {
			return nil, fmt.Errorf("manifest line %d: %w", line, err)
		}
		if _, dup := m.rows[row.Method]; dup {
			return nil, fmt.Errorf("manifest line %d: method %s has a row already", line, row.Method)
		}
		m.rows[row.Method] = row
		m.names = append(m.names, row.Method)
	}
	sort.Strings(m.names)
	return m, nil
}

func parseRow(rec []string) (Row, error) {
	row := Row{Method: rec[0], Tier: Tier(rec[1]), Implementation: Implementation(rec[3]), Notes: rec[6]}
	if row.Method == "" {
		return row, errors.New("the method is empty")
	}
	switch row.Tier {
	case TierRead, TierLocalSensitive, TierBroadcast, TierOperator:
	default:
		return row, fmt.Errorf("%s: tier %q: want read, local-sensitive, broadcast or operator", row.Method, rec[1])
	}
	switch row.Implementation {
	case ImplProxy, ImplAdapter, ImplDeny:
	default:
		return row, fmt.Errorf("%s: implementation %q: want proxy, adapter or deny", row.Method, rec[3])
	}
	var err error
	for _, f := range []struct {
		name string
		text string
		dst  *bool
	}{{"enabled", rec[2], &row.Enabled}, {"requires_confirmation", rec[4], &row.RequiresConfirmation}, {"retry", rec[5], &row.Retry}} {
		if *f.dst, err = strconv.ParseBool(f.text); err != nil || (f.text != "true" && f.text != "false") {
			return row, fmt.Errorf("%s: %s %q: want true or false", row.Method, f.name, f.text)
		}
	}
	if (row.Tier == TierBroadcast || row.Tier == TierOperator) && !row.RequiresConfirmation {
		return row, fmt.Errorf("%s: a %s method needs requires_confirmation true: a person confirms each call", row.Method, row.Tier)
	}
	return row, nil
}

// Row returns the method's row, and whether it has one.
func (m *Manifest) Row(method string) (Row, bool) {
	r, ok := m.rows[method]
	return r, ok
}

// Methods returns the methods that have rows, sorted.
func (m *Manifest) Methods() []string { return append([]string(nil), m.names...) }

// An Inventory is every method an upstream's API defines, as generated from its description.
type Inventory struct {
	Upstream string            `json:"upstream"`
	Source   string            `json:"source"`
	Methods  []InventoryMethod `json:"methods"`
}

// An InventoryMethod is one method of the inventory.
type InventoryMethod struct {
	Name    string   `json:"name"`
	Summary string   `json:"summary,omitempty"`
	Params  []string `json:"params"`
	Result  string   `json:"result,omitempty"`
	File    string   `json:"file"`
}

// ParseInventory reads an inventory written by the upstream generator.
func ParseInventory(b []byte) (*Inventory, error) {
	var inv Inventory
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&inv); err != nil {
		return nil, fmt.Errorf("inventory: %w", err)
	}
	return &inv, nil
}

// Coverage returns what keeps the manifest from covering the inventory exactly: methods of the
// inventory without a row, and rows that name no method of the inventory.
func Coverage(inv *Inventory, m *Manifest) (missing, unknown []string) {
	in := map[string]bool{}
	for _, im := range inv.Methods {
		in[im.Name] = true
		if _, ok := m.rows[im.Name]; !ok {
			missing = append(missing, im.Name)
		}
	}
	for _, name := range m.names {
		if !in[name] {
			unknown = append(unknown, name)
		}
	}
	return missing, unknown
}
