package arguments

import (
	"bytes"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The arguments of most calls are a flat object: a few strings, numbers, booleans and enum
// names, each a field of a request message whose fields are all scalars. Such arguments are
// read here directly, without protojson's decoder (a reflective reader that allocates per
// token). Only what protojson certainly reads the same way is taken: member names that are a
// field's proto or JSON name, each field once and one member of a oneof at most; strings
// without \u escapes whose text is valid UTF-8; integers written as plain JSON integers in the
// field's range; true and false; enum values by name. Anything else (null, a quoted number,
// bytes, a list, a float field, a nested message, an unknown or repeated member, and every
// error) is left to protojson, which reads it or says what is wrong exactly as before.
// TestFlatDecodeMatchesProtojson and FuzzFlatDecode hold the two to the same messages.

// A flatReader reads the arguments of one request message type.
type flatReader struct {
	// byName finds a field by its JSON name or, failing that, its proto name, as protojson
	// looks names up.
	byName map[string]protoreflect.FieldDescriptor
}

// flatReaders holds the reader of every request type seen, by its full name; a type that is
// not flat has a nil reader.
var flatReaders sync.Map // protoreflect.FullName -> *flatReader

// readerOf returns the reader of md, or nil when its messages are not flat.
func readerOf(md protoreflect.MessageDescriptor) *flatReader {
	if r, ok := flatReaders.Load(md.FullName()); ok {
		return r.(*flatReader)
	}
	r := makeReader(md)
	flatReaders.Store(md.FullName(), r)
	return r
}

func makeReader(md protoreflect.MessageDescriptor) *flatReader {
	if md.ParentFile().Package() == "google.protobuf" || md.ExtensionRanges().Len() > 0 {
		return nil
	}
	fds := md.Fields()
	r := &flatReader{byName: make(map[string]protoreflect.FieldDescriptor, 2*fds.Len())}
	for i := range fds.Len() {
		fd := fds.Get(i)
		if fd.IsList() || fd.IsMap() || !flatReadKind(fd.Kind()) {
			return nil
		}
		r.byName[string(fd.Name())] = fd
	}
	// A JSON name wins over another field's proto name, as in protojson.
	for i := range fds.Len() {
		r.byName[fds.Get(i).JSONName()] = fds.Get(i)
	}
	return r
}

// flatReadKind reports whether values of kind k are read here.
func flatReadKind(k protoreflect.Kind) bool {
	switch k {
	case protoreflect.BoolKind, protoreflect.StringKind, protoreflect.EnumKind,
		protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return true
	}
	return false
}

// readFlat reads doc, a JSON object, into m, an empty message, and reports whether it could.
// When it reports false, m may be partly set and must be reset before protojson reads doc.
func readFlat(doc []byte, m protoreflect.Message) bool {
	r := readerOf(m.Descriptor())
	if r == nil {
		return false
	}
	// seen holds the field numbers set so far (a message with more fields than fit is
	// checked by Has instead).
	var seen uint64
	var seenOneofs uint64
	return rawjson.EachMember(doc, func(name, value []byte) bool {
		fd := r.byName[string(name)]
		if fd == nil {
			return false
		}
		if idx := fd.Index(); idx < 64 {
			if seen&(1<<idx) != 0 {
				return false
			}
			seen |= 1 << idx
		} else if m.Has(fd) {
			return false
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			idx := od.Index()
			if idx >= 64 || seenOneofs&(1<<idx) != 0 {
				return false
			}
			seenOneofs |= 1 << idx
		}
		v, ok := flatValue(fd, value)
		if ok {
			m.Set(fd, v)
		}
		return ok
	})
}

// flatValue reads one member's value for fd, or reports false when it is not of a form read
// here.
func flatValue(fd protoreflect.FieldDescriptor, raw []byte) (protoreflect.Value, bool) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		s, ok := plainString(raw)
		return protoreflect.ValueOfString(s), ok
	case protoreflect.BoolKind:
		switch string(raw) {
		case "true":
			return protoreflect.ValueOfBool(true), true
		case "false":
			return protoreflect.ValueOfBool(false), true
		}
	case protoreflect.EnumKind:
		if len(raw) < 2 || raw[0] != '"' || bytes.IndexByte(raw, '\\') >= 0 {
			return protoreflect.Value{}, false
		}
		if ev := fd.Enum().Values().ByName(protoreflect.Name(raw[1 : len(raw)-1])); ev != nil {
			return protoreflect.ValueOfEnum(ev.Number()), true
		}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		if n, ok := plainInt(raw, 32); ok {
			return protoreflect.ValueOfInt32(int32(n)), true
		}
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		if n, ok := plainInt(raw, 64); ok {
			return protoreflect.ValueOfInt64(n), true
		}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		if n, ok := plainUint(raw, 32); ok {
			return protoreflect.ValueOfUint32(uint32(n)), true
		}
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		if n, ok := plainUint(raw, 64); ok {
			return protoreflect.ValueOfUint64(n), true
		}
	}
	return protoreflect.Value{}, false
}

// plainString reads a JSON string (raw is valid JSON) without \u escapes whose text is
// valid UTF-8.
func plainString(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || bytes.Contains(raw, []byte(`\u`)) || !utf8.Valid(raw) {
		return "", false
	}
	s, err := rawjson.Unquote(raw)
	return s, err == nil
}

// isPlainInt reports whether raw is a JSON integer: an optional minus and digits, without a
// fraction or an exponent.
func isPlainInt(raw []byte) bool {
	if len(raw) > 0 && raw[0] == '-' {
		raw = raw[1:]
	}
	if len(raw) == 0 {
		return false
	}
	for _, c := range raw {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func plainInt(raw []byte, bits int) (int64, bool) {
	if !isPlainInt(raw) {
		return 0, false
	}
	n, err := strconv.ParseInt(string(raw), 10, bits)
	return n, err == nil
}

func plainUint(raw []byte, bits int) (uint64, bool) {
	if !isPlainInt(raw) || raw[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseUint(string(raw), 10, bits)
	return n, err == nil
}
