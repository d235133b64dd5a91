package genhoot

import (
	"regexp/syntax"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hooteproto/internal/fieldrules"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// dialect is the JSON Schema version that every generated schema declares in "$schema".
const dialect = "https://json-schema.org/draft/2020-12/schema"

// A schemaBuilder builds the JSON Schema of a request (input) or of a result (output).
//
// An input schema carries the field rules: required fields, lengths, patterns and bounds. An
// output schema describes what protojson writes for the result (with proto field names) and
// has no rules: nothing in it is required, since protojson leaves out fields at their zero
// value, and enums list their zero value too, since protojson writes it inside lists and maps.
//
// The root is the request or result message itself. Every other message it holds is written
// once under the root's "$defs" and referred to with "$ref": a message used by several fields
// is described once, and a recursive result needs no special case.
type schemaBuilder struct {
	input bool
	root  protoreflect.FullName
	defs  []property                       // in the order of their first use
	names map[protoreflect.FullName]string // a message's key in defs
	taken map[string]bool                  // the keys in defs
	// envelope is the Result message. Held inside a result (a job's outcome), it is described
	// briefly: spelling out every tool's result there would repeat the whole tool table in
	// every schema that holds one.
	envelope protoreflect.FullName
}

func newSchemaBuilder(input bool) *schemaBuilder {
	return &schemaBuilder{input: input, names: make(map[protoreflect.FullName]string), taken: make(map[string]bool)}
}

// nestedResultNote describes a Result held inside a result.
const nestedResultNote = "The tool's answer: one property, named for the tool (as in job_started.tool), " +
	"holding the tool's result as that tool's output schema describes it; or error, holding the failure."

// schema returns the whole schema of a tool's request or result m: its object, with the
// dialect and the definitions of the messages it holds.
func (b *schemaBuilder) schema(m *protogen.Message) *jsonSchema {
	b.root = m.Desc.FullName()
	s := b.object(m)
	s.dialect = dialect
	s.defs = b.defs
	return s
}

// message returns the schema of a message held by a field: a reference to its definition,
// which is written on first use. Well-known types, which protojson writes as plain values,
// are written in place.
func (b *schemaBuilder) message(m *protogen.Message) *jsonSchema {
	switch m.Desc.FullName() {
	case "google.protobuf.Int64Value":
		return int64Schema(b.input, false)
	case "google.protobuf.UInt64Value":
		return int64Schema(b.input, true)
	}
	if wk, ok := wellKnownTypes[m.Desc.FullName()]; ok {
		return wk.schema()
	}
	name := m.Desc.FullName()
	if !b.input && name == b.envelope {
		s := &jsonSchema{types: []string{"object"}, description: nestedResultNote, properties: []property{}}
		for _, f := range m.Fields {
			if f.Message != nil && f.Message.Desc.Name() == toolErrorName {
				s.properties = append(s.properties, property{name: string(f.Desc.Name()), schema: b.field(f)})
			}
		}
		return s
	}
	if name == b.root {
		// Only output schemas get here: recursive requests are refused.
		return &jsonSchema{ref: "#"}
	}
	key, ok := b.names[name]
	if !ok {
		key = b.defKey(m)
		// The entry is taken before the message is built, so a message that holds itself
		// refers to its own definition.
		i := len(b.defs)
		b.defs = append(b.defs, property{name: key})
		s := b.object(m)
		b.defs[i].schema = s
	}
	return &jsonSchema{ref: "#/$defs/" + key}
}

// defKey returns a new key in "$defs" for m: its name, or its full name when another message
// of the same name came first.
func (b *schemaBuilder) defKey(m *protogen.Message) string {
	key := string(m.Desc.Name())
	if b.taken[key] {
		key = string(m.Desc.FullName())
	}
	b.taken[key] = true
	b.names[m.Desc.FullName()] = key
	return key
}

// object returns the schema of a message's fields: an object that allows no other properties.
func (b *schemaBuilder) object(m *protogen.Message) *jsonSchema {
	s := &jsonSchema{types: []string{"object"}, properties: []property{}, closed: true}
	for _, f := range m.Fields {
		s.properties = append(s.properties, property{name: string(f.Desc.Name()), schema: b.field(f)})
		if b.input && b.rules(f).GetRequired() && !inRealOneof(f) {
			s.required = append(s.required, string(f.Desc.Name()))
		}
	}
	return s
}

// rules returns the field's rules when they go into the schema.
func (b *schemaBuilder) rules(f *protogen.Field) *hootv1.FieldRules {
	if !b.input {
		return nil
	}
	return fieldrules.RulesOf(f.Desc)
}

// field returns the schema of one field with its description.
func (b *schemaBuilder) field(f *protogen.Field) *jsonSchema {
	r := b.rules(f)
	var s *jsonSchema
	var note string
	switch {
	case f.Desc.IsMap():
		var values *jsonSchema
		values, note = b.value(f.Message.Fields[1], nil)
		s = &jsonSchema{types: []string{"object"}, values: values}
		s.minProperties, s.maxProperties = countBounds(r)
	case f.Desc.IsList():
		var items *jsonSchema
		items, note = b.value(f, r)
		s = &jsonSchema{types: []string{"array"}, items: items}
		s.minItems, s.maxItems = countBounds(r)
	default:
		s, note = b.value(f, r)
		if r.GetRequired() && !f.Desc.HasPresence() && f.Desc.Kind() == protoreflect.StringKind &&
			s.minLength == nil && matchesEmpty(r.GetPattern()) {
			// Required means non-empty; a pattern that the empty string fails says so already.
			s.minLength = ptr(uint64(1))
		}
	}
	s.description = joinProse(prose(f.Comments.Leading), b.oneofNote(f), note, s.description)
	if r.GetElicit() {
		s.description = joinProse(s.description, elicitNote)
	}
	s.header = r.GetHeader()
	return s
}

// countBounds returns the bounds on the number of elements of a list or map.
func countBounds(r *hootv1.FieldRules) (lo, hi *uint64) {
	if n := r.GetMinLength(); n > 0 {
		lo = ptr(n)
	} else if r.GetRequired() {
		lo = ptr(uint64(1)) // required means non-empty
	}
	if n := r.GetMaxLength(); n > 0 {
		hi = ptr(n)
	}
	return lo, hi
}

// value returns the schema of one value of the field (the field itself, or an element of a
// list or a map's value) and a note for the field's description. r holds the rules that
// apply to the value; for lists, their length rules are the list's own and are not used here.
func (b *schemaBuilder) value(f *protogen.Field, r *hootv1.FieldRules) (*jsonSchema, string) {
	fd := f.Desc
	list := fd.IsList()
	s := new(jsonSchema)
	var note string
	switch fd.Kind() {
	case protoreflect.BoolKind:
		s.types = []string{"boolean"}
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		s.types = []string{"integer"}
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		s.types = []string{"integer"}
		s.minimum = ptr(0.0)
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		s = int64Schema(b.input, false)
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		s = int64Schema(b.input, true)
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		s.types = []string{"number"}
	case protoreflect.StringKind:
		s.types = []string{"string"}
		if !list {
			if n := r.GetMinLength(); n > 0 {
				s.minLength = ptr(n)
			}
			if n := r.GetMaxLength(); n > 0 {
				s.maxLength = ptr(n)
			}
		}
		if p := r.GetPattern(); p != "" {
			s.pattern = schemaPattern(p)
		}
	case protoreflect.BytesKind:
		s.types = []string{"string"}
		s.contentEncoding = "base64"
		if !list {
			s.minLength, s.maxLength, note = base64Bounds(r)
		}
	case protoreflect.EnumKind:
		s.types = []string{"string"}
		s.enum, note = b.enumNames(f.Enum)
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return b.message(f.Message), ""
	}
	if isNumber(fd.Kind()) && s.types[0] != "string" {
		if r.GetHasMinimum() {
			lo := r.GetMinimum()
			if s.minimum != nil && *s.minimum > lo {
				lo = *s.minimum
			}
			s.minimum = ptr(lo)
		}
		if r.GetHasMaximum() {
			s.maximum = ptr(r.GetMaximum())
		}
	}
	return s, note
}

// base64Bounds turns the byte bounds of a bytes field into bounds on its base64 text, and
// says in a note that the rule counts decoded bytes.
func base64Bounds(r *hootv1.FieldRules) (lo, hi *uint64, note string) {
	minBytes, maxBytes := r.GetMinLength(), r.GetMaxLength()
	if minBytes == 0 && r.GetRequired() {
		minBytes = 1
	}
	if minBytes > 0 {
		lo = ptr((4*minBytes + 2) / 3) // the shortest text, without padding
	}
	if maxBytes > 0 {
		hi = ptr(4 * ((maxBytes + 2) / 3)) // the longest text, with padding
	}
	switch {
	case r.GetMinLength() > 0 && maxBytes > 0:
		note = "From " + formatUint(r.GetMinLength()) + " to " + formatUint(maxBytes) + " bytes once decoded."
	case maxBytes > 0:
		note = "At most " + formatUint(maxBytes) + " bytes once decoded."
	case r.GetMinLength() > 0:
		note = "At least " + formatUint(r.GetMinLength()) + " bytes once decoded."
	}
	return lo, hi, note
}

// enumNames returns the names a JSON enum value may take and a note listing the values'
// comments. Input schemas leave out the zero value (the "unspecified" one).
func (b *schemaBuilder) enumNames(e *protogen.Enum) ([]string, string) {
	if e.Desc.FullName() == "google.protobuf.NullValue" {
		return []string{"NULL_VALUE"}, ""
	}
	names := []string{}
	var notes []string
	for _, v := range e.Values {
		if b.input && v.Desc.Number() == 0 {
			continue
		}
		names = append(names, string(v.Desc.Name()))
		if c := prose(v.Comments.Leading); c != "" {
			notes = append(notes, "- "+string(v.Desc.Name())+": "+strings.ReplaceAll(c, "\n", " "))
		}
	}
	return names, strings.Join(notes, "\n")
}

// oneofNote returns what a member of a oneof says about its siblings: the oneof's comment, or
// in an input schema a sentence naming them.
func (b *schemaBuilder) oneofNote(f *protogen.Field) string {
	if !inRealOneof(f) {
		return ""
	}
	if c := prose(f.Oneof.Comments.Leading); c != "" {
		return c
	}
	if !b.input {
		return ""
	}
	names := make([]string, len(f.Oneof.Fields))
	required := false
	for i, m := range f.Oneof.Fields {
		names[i] = string(m.Desc.Name())
		required = required || fieldrules.RulesOf(m.Desc).GetRequired()
	}
	if required {
		return "Set exactly one of: " + strings.Join(names, ", ") + "."
	}
	return "Set at most one of: " + strings.Join(names, ", ") + "."
}

// schemaPattern returns a pattern rule as the schema writes it: matching the whole value, as
// the rule is enforced. A pattern anchored at both ends already is written unchanged.
func schemaPattern(p string) string {
	re, err := syntax.Parse(p, syntax.Perl)
	if err == nil && re.Op == syntax.OpConcat && len(re.Sub) >= 2 &&
		re.Sub[0].Op == syntax.OpBeginText && re.Sub[len(re.Sub)-1].Op == syntax.OpEndText {
		return p
	}
	return "^(?:" + p + ")$"
}

// matchesEmpty reports whether a pattern rule allows the empty string (no pattern does).
func matchesEmpty(pattern string) bool {
	if pattern == "" {
		return true
	}
	re, err := fieldrules.CompilePattern(pattern)
	return err != nil || re.MatchString("")
}

func inRealOneof(f *protogen.Field) bool {
	return f.Oneof != nil && !f.Oneof.Desc.IsSynthetic()
}

func isNumber(k protoreflect.Kind) bool {
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Uint32Kind, protoreflect.Fixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind,
		protoreflect.Uint64Kind, protoreflect.Fixed64Kind,
		protoreflect.FloatKind, protoreflect.DoubleKind:
		return true
	}
	return false
}

// A wellKnownType is how protojson writes one of the google.protobuf messages.
type wellKnownType struct {
	schema func() *jsonSchema
	usage  string // the type in a usage line
	quoted bool   // its JSON form is a string, so a rule's example is quoted
	sample string // a JSON value that protojson accepts, for examples
}

var wellKnownTypes = map[protoreflect.FullName]wellKnownType{
	"google.protobuf.Timestamp": {
		schema: func() *jsonSchema { return &jsonSchema{types: []string{"string"}, format: "date-time"} },
		usage:  "string", quoted: true, sample: `"2025-01-01T00:00:00Z"`,
	},
	"google.protobuf.Duration": {
		schema: func() *jsonSchema {
			return &jsonSchema{types: []string{"string"}, pattern: `^-?[0-9]+(\.[0-9]{1,9})?s$`,
				description: `A duration in seconds with an "s" suffix, such as "1.5s".`}
		},
		usage: "string", quoted: true, sample: `"1s"`,
	},
	"google.protobuf.FieldMask": {
		schema: func() *jsonSchema {
			return &jsonSchema{types: []string{"string"}, description: "Field paths in lowerCamelCase, separated by commas."}
		},
		usage: "string", quoted: true, sample: `"name"`,
	},
	"google.protobuf.Struct":    {schema: func() *jsonSchema { return &jsonSchema{types: []string{"object"}} }, usage: "object", sample: `{}`},
	"google.protobuf.Value":     {schema: func() *jsonSchema { return &jsonSchema{} }, usage: "any", sample: `"text"`},
	"google.protobuf.ListValue": {schema: func() *jsonSchema { return &jsonSchema{types: []string{"array"}} }, usage: "any[]", sample: `[]`},
	"google.protobuf.Empty": {
		schema: func() *jsonSchema { return &jsonSchema{types: []string{"object"}, closed: true} },
		usage:  "object", sample: `{}`,
	},
	"google.protobuf.Any": {
		schema: func() *jsonSchema {
			return &jsonSchema{types: []string{"object"},
				properties: []property{{"@type", &jsonSchema{types: []string{"string"}}}}, required: []string{"@type"}}
		},
		usage: "object", sample: `{"@type":"type.googleapis.com/google.protobuf.Empty"}`,
	},
	"google.protobuf.DoubleValue": {schema: scalarSchema("number"), usage: "number", sample: "1"},
	"google.protobuf.FloatValue":  {schema: scalarSchema("number"), usage: "number", sample: "1"},
	"google.protobuf.Int64Value":  {schema: func() *jsonSchema { return int64Schema(true, false) }, usage: "integer", sample: "1"},
	"google.protobuf.UInt64Value": {schema: func() *jsonSchema { return int64Schema(true, true) }, usage: "integer", sample: "1"},
	"google.protobuf.Int32Value":  {schema: scalarSchema("integer"), usage: "integer", sample: "1"},
	"google.protobuf.UInt32Value": {schema: unsignedSchema("integer"), usage: "integer", sample: "1"},
	"google.protobuf.BoolValue":   {schema: scalarSchema("boolean"), usage: "boolean", sample: "true"},
	"google.protobuf.StringValue": {schema: scalarSchema("string"), usage: "string", quoted: true, sample: `"text"`},
	"google.protobuf.BytesValue": {
		schema: func() *jsonSchema { return &jsonSchema{types: []string{"string"}, contentEncoding: "base64"} },
		usage:  "base64", quoted: true, sample: `"aGVsbG8="`,
	},
}

// int64Schema is the schema of a 64-bit integer. protojson reads a number or a decimal string
// and writes a decimal string (a JSON number loses precision past 2^53), so a request takes an
// integer and a result holds a string of digits. One type each, not ["integer","string"]: a
// client that maps schemas onto a single-type dialect (function declarations of some model
// providers) would drop or refuse a list of types.
func int64Schema(input, unsigned bool) *jsonSchema {
	switch {
	case input && unsigned:
		return &jsonSchema{types: []string{"integer"}, minimum: ptr(0.0)}
	case input:
		return &jsonSchema{types: []string{"integer"}}
	case unsigned:
		return &jsonSchema{types: []string{"string"}, pattern: "^[0-9]+$"}
	default:
		return &jsonSchema{types: []string{"string"}, pattern: "^-?[0-9]+$"}
	}
}

func scalarSchema(types ...string) func() *jsonSchema {
	return func() *jsonSchema { return &jsonSchema{types: types} }
}

func unsignedSchema(types ...string) func() *jsonSchema {
	return func() *jsonSchema { return &jsonSchema{types: types, minimum: ptr(0.0)} }
}
