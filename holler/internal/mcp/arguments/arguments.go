// Package arguments decodes a tool call's JSON arguments into the tool's generated request
// message, strictly, and validates it; when it cannot, it says which argument is wrong, what
// was expected there and what came, in the terms of the tool's schema (proto field names and
// paths such as "items[2].name"), for the gateway to pass on as guidance. It reads protojson's
// errors for their position and maps that back to a path through the message's descriptors.
package arguments

import (
	"bytes"
	"encoding/json"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// An Error says what is wrong with a tool call's arguments: the message, and the
// field, expectation and value as far as they are known.
type Error struct {
	// Message says what is wrong, such as `unknown field "nme"; did you mean "name"?`.
	Message string
	// Field is the argument's path, such as "items[2].name", when known.
	Field string
	// Expected says what the field takes, when known.
	Expected string
	// Got shows, shortened, what came instead, when known.
	Got string
	// DidYouMean lists the field names close to an unknown one, closest first.
	DidYouMean []string
	// Hint is a next step of the validator's or of this package's, when either has one.
	Hint string
}

// Decode decodes args strictly into a new request message of t and validates it.
// Unknown fields and unknown enum names are errors; absent arguments are an empty object.
func Decode(t *hootv1hoot.Tool, args json.RawMessage) (proto.Message, *Error) {
	if len(bytes.TrimSpace(args)) == 0 || rawjson.Kind(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	if k := rawjson.Kind(args); k != "object" {
		return nil, &Error{
			Message:  "arguments must be an object, not " + k,
			Expected: "an object with the tool's arguments by name",
			Got:      wording.Short(string(rawjson.Compact(args))),
		}
	}
	// Positions in protojson's errors are counted in the text it was given; compacting first
	// puts everything on one line, which makes them plain offsets.
	doc := rawjson.Compact(args)
	m := t.NewRequest()
	if !readFlat(doc, m.ProtoReflect()) {
		proto.Reset(m)
		if err := (protojson.UnmarshalOptions{}).Unmarshal(doc, m); err != nil {
			return nil, explainDecodeError(m.ProtoReflect().Descriptor(), doc, err)
		}
	}
	if err := hooteproto.Validate(m); err != nil {
		e := hooteproto.AsError(err)
		ae := &Error{Message: e.Message(), Field: e.Field(), Hint: e.Hint()}
		if v, ok := rawAt(doc, e.Field()); ok {
			ae.Got = wording.Short(string(v))
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
func explainDecodeError(md protoreflect.MessageDescriptor, doc []byte, err error) *Error {
	text := err.Error()
	sm := protojsonError.FindStringSubmatch(text)
	if sm == nil {
		return &Error{Message: strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(text, "proto:"), "\u00a0"))}
	}
	line, _ := strconv.Atoi(sm[1])
	col, _ := strconv.Atoi(sm[2])
	detail := sm[3]
	off, ok := offsetOf(doc, line, col)
	if !ok {
		return &Error{Message: detail}
	}
	at := locate(md, pathAt(doc, off))
	ae := &Error{Field: at.display, Got: wording.Short(valueAt(doc, off))}
	switch {
	case strings.HasPrefix(detail, "unknown field "):
		names := fieldNames(at.parent)
		ae.DidYouMean = wording.Close(at.lastKey, names)
		ae.Message = "unknown field " + wording.Quote(at.display) + wording.DidYouMean(ae.DidYouMean)
		ae.Got = wording.Quote(at.lastKey)
		if len(names) > 0 {
			ae.Expected = "one of the fields " + strings.Join(names, ", ")
		} else {
			ae.Expected = "no fields here"
		}
	case strings.HasPrefix(detail, "duplicate field "):
		ae.Message = "field " + wording.Quote(at.display) + " is given twice"
		ae.Expected = "each field once"
		ae.Got = wording.Quote(at.lastKey) + " again"
	case strings.HasPrefix(detail, "error parsing ") && strings.Contains(detail, "oneof"):
		var members []string
		if at.fd != nil && at.fd.ContainingOneof() != nil {
			fs := at.fd.ContainingOneof().Fields()
			for i := range fs.Len() {
				members = append(members, string(fs.Get(i).Name()))
			}
		}
		ae.Message = "only one of " + strings.Join(members, ", ") + " may be given"
		ae.Expected = "at most one of " + strings.Join(members, ", ")
		ae.Got = wording.Quote(at.lastKey) + " as well as another of them"
		ae.Hint = "Keep one of " + strings.Join(members, ", ") + " and drop the others."
	case at.fd != nil:
		// Any other error at a position is a value of the wrong type or form for its field.
		ae.Expected = describeField(at.fd, at.elem)
		ae.Message = "invalid value for " + wording.Quote(at.display) + ": expected " + ae.Expected
	default:
		ae.Message = detail
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
			switch rawjson.Kind(cur) {
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

// Arguments a person supplies: a tool's request field marked (hoot.v1.field).elicit may be left
// out by the caller; the server asks a person for it, and fills the answers in here.

// Missing returns the elicited fields of t that req leaves out: those it does not
// have (an empty string, an enum's zero value, an optional left unset).
func Missing(t *hootv1hoot.Tool, req proto.Message) []hootv1hoot.ElicitField {
	if len(t.Elicit) == 0 {
		return nil
	}
	m := req.ProtoReflect()
	fields := m.Descriptor().Fields()
	var missing []hootv1hoot.ElicitField
	for _, f := range t.Elicit {
		if fd := fields.ByName(protoreflect.Name(f.Name)); fd != nil && !m.Has(fd) {
			missing = append(missing, f)
		}
	}
	return missing
}

// Fill returns the arguments of t that args (the caller's, which decoded) and the
// person's answers make together, decoded and validated like any arguments. An answer replaces
// the member of its field, under either of the field's names.
func Fill(t *hootv1hoot.Tool, args json.RawMessage, answers map[string]json.RawMessage) (proto.Message, *Error) {
	merged := map[string]json.RawMessage{}
	if rawjson.Kind(args) == "object" {
		if err := json.Unmarshal(args, &merged); err != nil {
			return nil, &Error{Message: "the arguments do not read as an object: " + err.Error()}
		}
	}
	fields := t.NewRequest().ProtoReflect().Descriptor().Fields()
	names := make([]string, 0, len(answers))
	for name := range answers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fd := fields.ByName(protoreflect.Name(name))
		if fd == nil {
			continue
		}
		delete(merged, fd.JSONName())
		merged[name] = answers[name]
	}
	doc, err := json.Marshal(merged)
	if err != nil {
		return nil, &Error{Message: err.Error()}
	}
	return Decode(t, doc)
}
