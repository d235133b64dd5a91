package genhoot

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
)

// A jsonSchema is the part of JSON Schema 2020-12 that tool schemas use. It is written with
// its keys in one fixed order, so generated schemas are the same on every run. There is
// deliberately no anyOf, oneOf or allOf: model providers reject unions in tool schemas.
type jsonSchema struct {
	dialect         string   // "$schema", on the root schema only
	ref             string   // "$ref", to a definition of the root's "$defs"
	types           []string // one type is written as a string, several as an array
	title           string   // "title", in the forms a person fills only
	format          string
	contentEncoding string
	description     string
	header          string // "x-mcp-header": the Mcp-Param-{header} that repeats the value
	enum            []string
	properties      []property // nil for no "properties" key
	required        []string
	closed          bool        // "additionalProperties": false
	values          *jsonSchema // "additionalProperties": a schema, for maps
	items           *jsonSchema
	minItems        *uint64
	maxItems        *uint64
	minProperties   *uint64
	maxProperties   *uint64
	minLength       *uint64
	maxLength       *uint64
	pattern         string
	minimum         *float64
	maximum         *float64
	defs            []property // "$defs", on the root schema only
}

type property struct {
	name   string
	schema *jsonSchema
}

// String returns the schema as compact JSON text.
func (s *jsonSchema) String() string {
	var b bytes.Buffer
	s.write(&b)
	return b.String()
}

func (s *jsonSchema) write(b *bytes.Buffer) {
	w := objectWriter{b: b}
	b.WriteByte('{')
	if s.dialect != "" {
		w.key("$schema")
		writeString(b, s.dialect)
	}
	if s.ref != "" {
		w.key("$ref")
		writeString(b, s.ref)
	}
	switch len(s.types) {
	case 0:
	case 1:
		w.key("type")
		writeString(b, s.types[0])
	default:
		w.key("type")
		writeStrings(b, s.types)
	}
	if s.title != "" {
		w.key("title")
		writeString(b, s.title)
	}
	if s.format != "" {
		w.key("format")
		writeString(b, s.format)
	}
	if s.contentEncoding != "" {
		w.key("contentEncoding")
		writeString(b, s.contentEncoding)
	}
	if s.description != "" {
		w.key("description")
		writeString(b, s.description)
	}
	if s.header != "" {
		w.key("x-mcp-header")
		writeString(b, s.header)
	}
	if s.enum != nil {
		w.key("enum")
		writeStrings(b, s.enum)
	}
	if s.properties != nil {
		w.key("properties")
		writeProperties(b, s.properties)
	}
	if len(s.required) > 0 {
		w.key("required")
		writeStrings(b, s.required)
	}
	switch {
	case s.values != nil:
		w.key("additionalProperties")
		s.values.write(b)
	case s.closed:
		w.key("additionalProperties")
		b.WriteString("false")
	}
	if s.items != nil {
		w.key("items")
		s.items.write(b)
	}
	w.uint("minItems", s.minItems)
	w.uint("maxItems", s.maxItems)
	w.uint("minProperties", s.minProperties)
	w.uint("maxProperties", s.maxProperties)
	w.uint("minLength", s.minLength)
	w.uint("maxLength", s.maxLength)
	if s.pattern != "" {
		w.key("pattern")
		writeString(b, s.pattern)
	}
	w.number("minimum", s.minimum)
	w.number("maximum", s.maximum)
	if len(s.defs) > 0 {
		w.key("$defs")
		writeProperties(b, s.defs)
	}
	b.WriteByte('}')
}

// writeProperties writes named schemas as one JSON object, in their order.
func writeProperties(b *bytes.Buffer, ps []property) {
	b.WriteByte('{')
	for i, p := range ps {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, p.name)
		b.WriteByte(':')
		p.schema.write(b)
	}
	b.WriteByte('}')
}

type objectWriter struct {
	b     *bytes.Buffer
	keyed bool
}

func (w *objectWriter) key(k string) {
	if w.keyed {
		w.b.WriteByte(',')
	}
	w.keyed = true
	writeString(w.b, k)
	w.b.WriteByte(':')
}

func (w *objectWriter) uint(k string, n *uint64) {
	if n != nil {
		w.key(k)
		w.b.WriteString(strconv.FormatUint(*n, 10))
	}
}

func (w *objectWriter) number(k string, x *float64) {
	if x != nil {
		w.key(k)
		w.b.WriteString(formatNumber(*x))
	}
}

// formatNumber writes whole numbers without an exponent or a fraction.
func formatNumber(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e21 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// writeString writes s as a JSON string. Unlike json.Marshal it leaves <, > and & alone, so
// patterns read as they were written.
func writeString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes
	b.Truncate(b.Len() - 1) // Encode ends with a newline
}

func writeStrings(b *bytes.Buffer, ss []string) {
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		writeString(b, s)
	}
	b.WriteByte(']')
}

func ptr[T any](v T) *T { return &v }
