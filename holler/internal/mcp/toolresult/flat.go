package toolresult

import (
	"encoding/base64"
	"strconv"
	"sync"
	"unicode/utf8"

	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
)

// A flat result is a message whose fields are all scalars other than floating point, or lists
// of them: echo's answer, and many of the tools' short answers. Its JSON is simple enough to
// write here directly, without protojson's encoder (a reflective walk that sorts the fields
// and allocates on the way), as exactly the text that resultJSON writes once compacted: the
// fields in declaration order under their proto names, a field without presence always (its
// default too), one with presence (a oneof's member, an optional) only when set, 64-bit
// integers as quoted decimals, enums by the name of their value (or the number, for a value
// the enum does not name), bytes in standard base64, strings escaped as protojson escapes
// them. Anything else, and a string that is not valid UTF-8 (an error of protojson's), is
// left to protojson. TestFlatMatchesProtojson and FuzzFlatJSON hold the two to the same text.

// A flatPlan is how a flat message is written: its fields in protojson's order.
type flatPlan struct {
	fields []flatField
}

// A flatField is one field of a flatPlan.
type flatField struct {
	fd protoreflect.FieldDescriptor
	// name is the field's member name, quoted, with the colon after it.
	name string
	// optional: the field has presence, and is written only when set.
	optional bool
}

// flatPlans holds the plan of every message type seen, by its full name; a type that is not
// flat has a nil plan.
var flatPlans sync.Map // protoreflect.FullName -> *flatPlan

// planOf returns the plan of messages of md, or nil when they are not flat.
func planOf(md protoreflect.MessageDescriptor) *flatPlan {
	if p, ok := flatPlans.Load(md.FullName()); ok {
		return p.(*flatPlan)
	}
	p := makePlan(md)
	flatPlans.Store(md.FullName(), p)
	return p
}

// makePlan makes the plan of md, or returns nil when md is not flat.
func makePlan(md protoreflect.MessageDescriptor) *flatPlan {
	// The well-known types have JSON forms of their own; extensions are written after the
	// fields in an order of their own.
	if md.ParentFile().Package() == "google.protobuf" || md.ExtensionRanges().Len() > 0 {
		return nil
	}
	fds := md.Fields()
	p := &flatPlan{fields: make([]flatField, 0, fds.Len())}
	for i := range fds.Len() {
		fd := fds.Get(i)
		if fd.IsMap() || !flatKind(fd) {
			return nil
		}
		p.fields = append(p.fields, flatField{fd: fd, name: strconv.Quote(fd.TextName()) + ":", optional: fd.HasPresence() || fd.ContainingOneof() != nil})
	}
	return p
}

// flatKind reports whether fd's values are of a kind a flat message may hold.
func flatKind(fd protoreflect.FieldDescriptor) bool {
	switch fd.Kind() {
	case protoreflect.BoolKind, protoreflect.StringKind, protoreflect.BytesKind,
		protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return true
	case protoreflect.EnumKind:
		// google.protobuf.NullValue is written as null.
		return fd.Enum().FullName() != "google.protobuf.NullValue"
	}
	return false
}

// appendFlat appends the JSON of m to b as resultJSON writes it, compacted, and reports
// true; or reports false, with b unchanged, when m is not flat or holds a string that is
// not valid UTF-8.
func appendFlat(b []byte, m protoreflect.Message) ([]byte, bool) {
	p := planOf(m.Descriptor())
	if p == nil {
		return b, false
	}
	start := len(b)
	b = append(b, '{')
	first := true
	for i := range p.fields {
		f := &p.fields[i]
		if f.optional && !m.Has(f.fd) {
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, f.name...)
		v := m.Get(f.fd)
		ok := true
		if f.fd.IsList() {
			l := v.List()
			b = append(b, '[')
			for j := range l.Len() {
				if j > 0 {
					b = append(b, ',')
				}
				if b, ok = appendFlatValue(b, f.fd, l.Get(j)); !ok {
					break
				}
			}
			b = append(b, ']')
		} else {
			b, ok = appendFlatValue(b, f.fd, v)
		}
		if !ok {
			return b[:start], false
		}
	}
	return append(b, '}'), true
}

// appendFlatValue appends one value of fd, a field of a flat message.
func appendFlatValue(b []byte, fd protoreflect.FieldDescriptor, v protoreflect.Value) ([]byte, bool) {
	switch fd.Kind() {
	case protoreflect.BoolKind:
		return strconv.AppendBool(b, v.Bool()), true
	case protoreflect.StringKind:
		return appendProtoString(b, v.String())
	case protoreflect.BytesKind:
		b = append(b, '"')
		b = base64.StdEncoding.AppendEncode(b, v.Bytes())
		return append(b, '"'), true
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return strconv.AppendInt(b, v.Int(), 10), true
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return strconv.AppendUint(b, v.Uint(), 10), true
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		b = append(b, '"')
		b = strconv.AppendInt(b, v.Int(), 10)
		return append(b, '"'), true
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		b = append(b, '"')
		b = strconv.AppendUint(b, v.Uint(), 10)
		return append(b, '"'), true
	case protoreflect.EnumKind:
		if ev := fd.Enum().Values().ByNumber(v.Enum()); ev != nil {
			// Enum value names are identifiers: nothing in them needs escaping.
			b = append(b, '"')
			b = append(b, ev.Name()...)
			return append(b, '"'), true
		}
		return strconv.AppendInt(b, int64(v.Enum()), 10), true
	}
	return b, false
}

// appendProtoString appends s as a JSON string as protojson writes one: the quote, the
// backslash and the control characters escaped (\b, \f, \n, \r and \t by their letters, the
// others as \u00XX), everything else as it is. A string that is not valid UTF-8 is refused.
func appendProtoString(b []byte, s string) ([]byte, bool) {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				return b, false
			}
			i += n
			continue
		}
		if c >= ' ' && c != '"' && c != '\\' {
			i++
			continue
		}
		b = append(b, s[start:i]...)
		b = rawjson.AppendEscapedByte(b, c)
		i++
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"'), true
}
