// Package paramshape checks the params of a JSON-RPC request against the shape its method's
// schema gives them, before the method runs: a member of the wrong type, a required member that
// is missing or a value outside an enumeration is a fault that names the member (Field), says
// what it must be (Expected) and shows what came (Got). Only what the schema requires is
// checked: members it does not name are allowed, _meta is allowed everywhere, and null in an
// optional member reads as its absence. The table of methods is the gateway's.
package paramshape

import (
	"encoding/json"
	"slices"
	"strconv"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
)

// A Shape is what a JSON value must be.
type Shape struct {
	// Kinds are the JSON types allowed, as rawjson.Kind names them; empty allows any.
	Kinds []string
	// Enum are the strings allowed; empty allows any.
	Enum []string
	// Members are the members of an object that are checked.
	Members []Member
	// Each is the shape of every member's value of an object, or every item of an array.
	Each *Shape
	// Expected says what the value must be, in words.
	Expected string
}

// A Member is one checked member of an object.
type Member struct {
	Name     string
	Required bool
	Shape    *Shape
}

var (
	// AString is any string.
	AString = &Shape{Kinds: []string{"string"}, Expected: "a string"}
	// Meta is _meta, which every method's params may carry.
	Meta = &Shape{Kinds: []string{"object"}, Expected: "an object", Members: []Member{
		{Name: "progressToken", Shape: &Shape{Kinds: []string{"string", "number"}, Expected: "a string or a number"}},
	}}
	// StringsObject is an object whose members are strings.
	StringsObject = &Shape{Kinds: []string{"object"}, Each: AString, Expected: "an object of strings"}
)

// Str is a string, described as expected.
func Str(expected string) *Shape { return &Shape{Kinds: []string{"string"}, Expected: expected} }

// Object is an object, described as expected, whose members are checked.
func Object(expected string, members ...Member) *Shape {
	return &Shape{Kinds: []string{"object"}, Members: members, Expected: expected}
}

// A Method is the shape of one method's params, and an example of them to copy.
type Method struct {
	// Required is set when the method needs params at all.
	Required bool
	Members  []Member
	// Example are params to copy, without _meta.
	Example string
}

// A Table is the shapes of the methods whose params are checked, made by NewTable.
type Table struct {
	methods map[string]Method
	// all are _meta and each method's members.
	all map[string][]Member
	// names are the names of members, in order, as rawjson.ScanMembers takes them, for every
	// list of members the shapes hold, by its first member.
	names map[*Member][]string
}

// NewTable returns the Table of methods, by name. The shapes must not change afterwards.
func NewTable(methods map[string]Method) *Table {
	t := &Table{methods: methods, all: make(map[string][]Member, len(methods)), names: map[*Member][]string{}}
	var walk func(ms []Member)
	walk = func(ms []Member) {
		if len(ms) == 0 {
			return
		}
		names := make([]string, len(ms))
		for i, m := range ms {
			names[i] = m.Name
			walk(m.Shape.Members)
		}
		t.names[&ms[0]] = names
	}
	for name, m := range methods {
		all := append([]Member{{Name: "_meta", Shape: Meta}}, m.Members...)
		t.all[name] = all
		walk(all)
	}
	return t
}

// Example returns the example params of method, or "" for a method the table does not have.
func (t *Table) Example(method string) string { return t.methods[method].Example }

// Methods returns the table's methods, by name.
func (t *Table) Methods() map[string]Method { return t.methods }

// A Fault is where params break their method's shape.
type Fault struct {
	Field    string // the member, as a path such as params.ref.type
	Expected string
	Got      string // the value that came, shortened; "" when it is missing
}

// Check checks params against the shape of method. It returns nil for a method the table has
// no shape of, and for params that fit.
func (t *Table) Check(method string, params json.RawMessage) *Fault {
	ms, ok := t.methods[method]
	if !ok {
		return nil
	}
	if len(params) == 0 || rawjson.Kind(params) == "null" {
		if ms.Required {
			return &Fault{Field: "params", Expected: "an object"}
		}
		return nil
	}
	if rawjson.Kind(params) != "object" {
		return &Fault{Field: "params", Expected: "an object", Got: wording.Short(string(params))}
	}
	return t.checkMembers(params, t.all[method], "params")
}

// checkMembers checks the members of the JSON object obj.
func (t *Table) checkMembers(obj json.RawMessage, members []Member, path string) *Fault {
	var buf [8]json.RawMessage
	values := buf[:0]
	if len(members) <= len(buf) {
		values = buf[:len(members)]
	} else {
		values = make([]json.RawMessage, len(members))
	}
	names := t.names[&members[0]]
	if !rawjson.ScanMembers(obj, names, func(i int, v []byte) { values[i] = v }) {
		// Member names that need unescaping: decode, keeping names exactly as written.
		var all map[string]json.RawMessage
		if json.Unmarshal(obj, &all) != nil {
			return &Fault{Field: path, Expected: "an object", Got: wording.Short(string(obj))}
		}
		for i, m := range members {
			values[i] = all[m.Name]
		}
	}
	for i, m := range members {
		v := values[i]
		if v == nil || rawjson.Kind(v) == "null" {
			if m.Required {
				return &Fault{Field: path + "." + m.Name, Expected: m.Shape.Expected}
			}
			continue
		}
		if f := t.checkValue(v, m.Shape, path, "."+m.Name); f != nil {
			return f
		}
	}
	return nil
}

// checkValue checks one value against sh; the value's path is path and then step, joined only
// when needed, since most values fit.
func (t *Table) checkValue(v json.RawMessage, sh *Shape, path, step string) *Fault {
	kind := rawjson.Kind(v)
	fault := func() *Fault {
		return &Fault{Field: path + step, Expected: sh.Expected, Got: wording.Short(string(v))}
	}
	if len(sh.Kinds) > 0 && !slices.Contains(sh.Kinds, kind) {
		return fault()
	}
	if len(sh.Enum) > 0 {
		s, err := rawjson.Unquote(v)
		if err != nil || !slices.Contains(sh.Enum, s) {
			return fault()
		}
	}
	if kind == "object" && len(sh.Members) > 0 {
		if f := t.checkMembers(v, sh.Members, path+step); f != nil {
			return f
		}
	}
	if sh.Each != nil {
		switch kind {
		case "object":
			var all map[string]json.RawMessage
			if json.Unmarshal(v, &all) != nil {
				return fault()
			}
			for name, e := range all {
				if f := t.checkValue(e, sh.Each, path+step, "."+name); f != nil {
					return f
				}
			}
		case "array":
			var all []json.RawMessage
			if json.Unmarshal(v, &all) != nil {
				return fault()
			}
			for i, e := range all {
				if f := t.checkValue(e, sh.Each, path+step, "["+strconv.Itoa(i)+"]"); f != nil {
					return f
				}
			}
		}
	}
	return nil
}
