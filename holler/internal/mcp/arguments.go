package mcp

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// An argumentError says what is wrong with a tool call's arguments: the message, and the
// field, expectation and value as far as they are known.
type argumentError struct {
	message    string
	field      string
	expected   string
	got        string
	didYouMean []string
	hint       string
}

// decodeArguments decodes args strictly into a new request message of t and validates it.
// Unknown fields and unknown enum names are errors; absent arguments are an empty object.
func decodeArguments(t *hootv1hoot.Tool, args json.RawMessage) (proto.Message, *argumentError) {
	if len(bytes.TrimSpace(args)) == 0 || kindOf(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	if k := kindOf(args); k != "object" {
		return nil, &argumentError{
			message:  "arguments must be an object, not " + k,
			expected: "an object with the tool's arguments by name",
			got:      short(string(compact(args))),
		}
	}
	// Positions in protojson's errors are counted in the text it was given; compacting first
	// puts everything on one line, which makes them plain offsets.
	doc := compact(args)
	m := t.NewRequest()
	if err := (protojson.UnmarshalOptions{}).Unmarshal(doc, m); err != nil {
		return nil, explainDecodeError(m.ProtoReflect().Descriptor(), doc, err)
	}
	if err := hooteproto.Validate(m); err != nil {
		e := hooteproto.AsError(err)
		ae := &argumentError{message: e.Message(), field: e.Field(), hint: e.Hint()}
		if v, ok := rawAt(doc, e.Field()); ok {
			ae.got = short(string(v))
		}
		return nil, ae
	}
	return m, nil
}

// protojsonError matches the position and the text of a protojson decoding error. Its prefix
// is "proto:" followed by a space that protojson makes a no-break space at random, so that
// nobody relies on the exact text; this package only reads what it can read reliably and
// falls back to the plain message otherwise.
var protojsonError = regexp.MustCompile(`^proto:[\s\x{00a0}]*(?:syntax error )?\(line (\d+):(\d+)\):[\s\x{00a0}]*(.*)$`)

// explainDecodeError turns a protojson error about doc, decoded into a message of md, into the
// field it is about, what was expected there and what came.
func explainDecodeError(md protoreflect.MessageDescriptor, doc []byte, err error) *argumentError {
	text := err.Error()
	sm := protojsonError.FindStringSubmatch(text)
	if sm == nil {
		return &argumentError{message: strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(text, "proto:"), "\u00a0"))}
	}
	line, _ := strconv.Atoi(sm[1])
	col, _ := strconv.Atoi(sm[2])
	detail := sm[3]
	off, ok := offsetOf(doc, line, col)
	if !ok {
		return &argumentError{message: detail}
	}
	at := locate(md, pathAt(doc, off))
	ae := &argumentError{field: at.display, got: short(valueAt(doc, off))}
	switch {
	case strings.HasPrefix(detail, "unknown field "):
		names := fieldNames(at.parent)
		ae.didYouMean = closeNames(at.lastKey, names)
		ae.message = "unknown field " + quote(at.display) + didYouMeanSuffix(ae.didYouMean)
		ae.got = quote(at.lastKey)
		if len(names) > 0 {
			ae.expected = "one of the fields " + strings.Join(names, ", ")
		} else {
			ae.expected = "no fields here"
		}
	case strings.HasPrefix(detail, "duplicate field "):
		ae.message = "field " + quote(at.display) + " is given twice"
		ae.expected = "each field once"
		ae.got = quote(at.lastKey) + " again"
	case strings.HasPrefix(detail, "error parsing ") && strings.Contains(detail, "oneof"):
		var members []string
		if at.fd != nil && at.fd.ContainingOneof() != nil {
			fs := at.fd.ContainingOneof().Fields()
			for i := range fs.Len() {
				members = append(members, string(fs.Get(i).Name()))
			}
		}
		ae.message = "only one of " + strings.Join(members, ", ") + " may be given"
		ae.expected = "at most one of " + strings.Join(members, ", ")
		ae.got = quote(at.lastKey) + " as well as another of them"
		ae.hint = "Keep one of " + strings.Join(members, ", ") + " and drop the others."
	case at.fd != nil:
		// Any other error at a position is a value of the wrong type or form for its field.
		ae.expected = describeField(at.fd, at.elem)
		ae.message = "invalid value for " + quote(at.display) + ": expected " + ae.expected
	default:
		ae.message = detail
	}
	return ae
}

// offsetOf returns the byte offset of protojson's 1-based line and column (counted in runes)
// in doc.
func offsetOf(doc []byte, line, col int) (int, bool) {
	off := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(doc[off:], '\n')
		if i < 0 {
			return 0, false
		}
		off += i + 1
	}
	for c := 1; c < col; c++ {
		if off >= len(doc) {
			return 0, false
		}
		_, n := utf8.DecodeRune(doc[off:])
		off += n
	}
	return off, off < len(doc)
}

// A pathSeg is one step into a JSON document: an object member's key or an array index.
type pathSeg struct {
	key     string
	index   int
	isIndex bool
}

// pathAt returns the path of the key or value at byte offset off of doc, a compacted JSON
// document. It reads only up to off, so what follows cannot make it slow.
func pathAt(doc []byte, off int) []pathSeg {
	type frame struct {
		obj       bool
		expectKey bool
		seg       pathSeg
		hasSeg    bool
	}
	var stack []frame
	path := func() []pathSeg {
		var p []pathSeg
		for _, f := range stack {
			if f.hasSeg {
				p = append(p, f.seg)
			}
		}
		return p
	}
	for i := 0; i < len(doc); {
		top := len(stack) - 1
		if top >= 0 && stack[top].obj && stack[top].expectKey && doc[i] == '"' {
			end := stringEnd(doc, i)
			var key string
			_ = json.Unmarshal(doc[i:end], &key)
			stack[top].seg, stack[top].hasSeg, stack[top].expectKey = pathSeg{key: key}, true, false
			if off < end {
				return path()
			}
			i = end
			continue
		}
		if i >= off {
			return path()
		}
		switch c := doc[i]; c {
		case '{':
			stack = append(stack, frame{obj: true, expectKey: true})
			i++
		case '[':
			stack = append(stack, frame{seg: pathSeg{isIndex: true}, hasSeg: true})
			i++
		case '}', ']':
			if top >= 0 {
				stack = stack[:top]
			}
			i++
		case ',':
			if top >= 0 {
				if stack[top].obj {
					stack[top].expectKey, stack[top].hasSeg = true, false
				} else {
					stack[top].seg.index++
				}
			}
			i++
		case ':':
			i++
		case '"':
			i = stringEnd(doc, i)
		default:
			i++
		}
	}
	return path()
}

// stringEnd returns the offset just after the JSON string that starts at doc[i].
func stringEnd(doc []byte, i int) int {
	for j := i + 1; j < len(doc); j++ {
		switch doc[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return len(doc)
}

// valueAt returns the JSON value that starts at byte offset off of doc, or "".
func valueAt(doc []byte, off int) string {
	var v json.RawMessage
	if json.NewDecoder(bytes.NewReader(doc[off:])).Decode(&v) != nil {
		return ""
	}
	return string(v)
}

// rawAt returns the value at a path such as "items[2].name" in doc, looking fields up by
// their proto name or their JSON (lowerCamelCase) name. It is a best effort for showing what
// came; ok is false when the path does not lead to a value.
func rawAt(doc []byte, path string) (json.RawMessage, bool) {
	if path == "" {
		return nil, false
	}
	cur := json.RawMessage(doc)
	for _, part := range strings.Split(path, ".") {
		name, rest, _ := strings.Cut(part, "[")
		if name != "" {
			var obj map[string]json.RawMessage
			if json.Unmarshal(cur, &obj) != nil {
				return nil, false
			}
			v, ok := obj[name]
			if !ok {
				v, ok = obj[lowerCamel(name)]
			}
			if !ok {
				return nil, false
			}
			cur = v
		}
		for rest != "" {
			sel, after, ok := strings.Cut(rest, "]")
			if !ok {
				return nil, false
			}
			rest = strings.TrimPrefix(after, "[")
			switch kindOf(cur) {
			case "array":
				var arr []json.RawMessage
				n, err := strconv.Atoi(sel)
				if err != nil || json.Unmarshal(cur, &arr) != nil || n < 0 || n >= len(arr) {
					return nil, false
				}
				cur = arr[n]
			case "object":
				var obj map[string]json.RawMessage
				if json.Unmarshal(cur, &obj) != nil {
					return nil, false
				}
				v, ok := obj[sel]
				if !ok {
					return nil, false
				}
				cur = v
			default:
				return nil, false
			}
		}
	}
	return cur, true
}

// lowerCamel returns the JSON name protoc derives from a snake_case field name.
func lowerCamel(s string) string {
	var b strings.Builder
	up := false
	for _, r := range s {
		if r == '_' {
			up = true
			continue
		}
		if up && r >= 'a' && r <= 'z' {
			r -= 'a' - 'A'
		}
		up = false
		b.WriteRune(r)
	}
	return b.String()
}

// A location is a JSON path resolved against a message's descriptors.
type location struct {
	// display is the path as the schema names it, such as "items[2].name".
	display string
	// fd is the field of the last key, nil when it is not a field.
	fd protoreflect.FieldDescriptor
	// elem is set when the path ends at one element of fd's list or map, not at fd itself.
	elem bool
	// parent is the message that holds the last key, nil when unknown.
	parent protoreflect.MessageDescriptor
	// lastKey is the last key as it came.
	lastKey string
}

// locate resolves path against md. Keys are matched by proto name or JSON name and shown by
// proto name; the first step that does not resolve is shown as it came and ends resolution.
func locate(md protoreflect.MessageDescriptor, path []pathSeg) location {
	var loc location
	var b strings.Builder
	cur := md
	var fd protoreflect.FieldDescriptor
	for _, s := range path {
		switch {
		case fd != nil && !loc.elem && fd.IsMap() && !s.isIndex:
			b.WriteString("[" + s.key + "]")
			loc.elem, cur = true, fd.MapValue().Message()
		case fd != nil && !loc.elem && fd.IsList() && s.isIndex:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			loc.elem, cur = true, fd.Message()
		case s.isIndex:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
			fd, cur, loc.elem = nil, nil, false
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			loc.parent, loc.lastKey, loc.elem = cur, s.key, false
			fd = nil
			if cur != nil {
				fd = cur.Fields().ByTextName(s.key)
				if fd == nil {
					fd = cur.Fields().ByJSONName(s.key)
				}
			}
			if fd == nil {
				b.WriteString(s.key)
				cur = nil
				continue
			}
			b.WriteString(string(fd.Name()))
			cur = nil
			if !fd.IsList() && !fd.IsMap() {
				cur = fd.Message()
			}
		}
	}
	loc.display, loc.fd = b.String(), fd
	return loc
}

// fieldNames returns the proto names of md's fields, in declaration order.
func fieldNames(md protoreflect.MessageDescriptor) []string {
	if md == nil {
		return nil
	}
	fs := md.Fields()
	names := make([]string, 0, fs.Len())
	for i := range fs.Len() {
		names = append(names, string(fs.Get(i).Name()))
	}
	return names
}

// describeField says in words what JSON fd takes: the field itself, or one element of its
// list or map when elem is set.
func describeField(fd protoreflect.FieldDescriptor, elem bool) string {
	switch {
	case elem && fd.IsMap():
		return describeValue(fd.MapValue())
	case elem:
		return describeValue(fd)
	case fd.IsMap():
		return "an object whose values are each " + describeValue(fd.MapValue())
	case fd.IsList():
		return "an array whose elements are each " + describeValue(fd)
	}
	return describeValue(fd)
}

// describeValue says in words what JSON one value of fd's type is.
func describeValue(fd protoreflect.FieldDescriptor) string {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return "a string"
	case protoreflect.BoolKind:
		return "true or false"
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return "an integer"
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return "a non-negative integer"
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return "an integer (a number or a string of digits)"
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return "a non-negative integer (a number or a string of digits)"
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return "a number"
	case protoreflect.BytesKind:
		return "a base64 string"
	case protoreflect.EnumKind:
		var names []string
		vs := fd.Enum().Values()
		for i := range vs.Len() {
			v := vs.Get(i)
			if v.Number() == 0 && strings.HasSuffix(string(v.Name()), "_UNSPECIFIED") {
				continue
			}
			names = append(names, strconv.Quote(string(v.Name())))
		}
		return "one of " + strings.Join(names, ", ")
	case protoreflect.MessageKind, protoreflect.GroupKind:
		switch fd.Message().FullName() {
		case "google.protobuf.Timestamp":
			return `an RFC 3339 time string, such as "2025-01-02T15:04:05Z"`
		case "google.protobuf.Duration":
			return `a duration string in seconds, such as "1.5s"`
		case "google.protobuf.Value":
			return "any JSON value"
		case "google.protobuf.ListValue":
			return "an array"
		}
		return "an object"
	}
	return "a " + fd.Kind().String()
}

// short returns s cut to a length fit for a message.
func short(s string) string {
	const maxLen = 120
	if len(s) <= maxLen {
		return s
	}
	cut := maxLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
