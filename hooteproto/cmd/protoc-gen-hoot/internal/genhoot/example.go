package genhoot

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hooteproto/internal/fieldrules"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// usage returns the tool's one-line signature, such as "cas_get(hash: string, offset?: integer)":
// the request's fields in declaration order, each optional one marked with "?".
func usage(name string, m *protogen.Message) string {
	params := make([]string, len(m.Fields))
	for i, f := range m.Fields {
		mark := "?"
		if fieldrules.RulesOf(f.Desc).GetRequired() && !inRealOneof(f) {
			mark = ""
		}
		params[i] = string(f.Desc.Name()) + mark + ": " + usageType(f)
	}
	return name + "(" + strings.Join(params, ", ") + ")"
}

// usageType names a field's JSON type for a usage line.
func usageType(f *protogen.Field) string {
	switch {
	case f.Desc.IsMap():
		key := "string"
		switch k := f.Message.Fields[0].Desc.Kind(); {
		case k == protoreflect.BoolKind:
			key = "boolean"
		case isNumber(k):
			key = "integer"
		}
		return "map<" + key + ", " + valueUsageType(f.Message.Fields[1]) + ">"
	case f.Desc.IsList():
		t := valueUsageType(f)
		if strings.Contains(t, "|") {
			t = "(" + t + ")"
		}
		return t + "[]"
	}
	return valueUsageType(f)
}

// maxUsageEnumValues is the most enum values a usage line spells out.
const maxUsageEnumValues = 6

func valueUsageType(f *protogen.Field) string {
	switch k := f.Desc.Kind(); {
	case k == protoreflect.BoolKind:
		return "boolean"
	case k == protoreflect.FloatKind || k == protoreflect.DoubleKind:
		return "number"
	case isNumber(k):
		return "integer"
	case k == protoreflect.StringKind:
		return "string"
	case k == protoreflect.BytesKind:
		return "base64"
	case k == protoreflect.EnumKind:
		var names []string
		for _, v := range f.Enum.Values {
			if v.Desc.Number() != 0 {
				names = append(names, string(v.Desc.Name()))
			}
		}
		if len(names) == 0 || len(names) > maxUsageEnumValues {
			return "string"
		}
		return strings.Join(names, "|")
	}
	if wk, ok := wellKnownTypes[f.Message.Desc.FullName()]; ok {
		return wk.usage
	}
	return "object"
}

// exampleObject returns, as compact JSON text, an arguments object for m made of every field
// that has an example (for a oneof, its first member that has one) and of a placeholder for
// every required field without one.
func exampleObject(m *protogen.Message) string {
	chosen := make(map[*protogen.Oneof]*protogen.Field)
	for _, o := range m.Oneofs {
		if o.Desc.IsSynthetic() {
			continue
		}
		for _, f := range o.Fields {
			if fieldrules.RulesOf(f.Desc).GetExample() != "" {
				chosen[o] = f
				break
			}
		}
		if chosen[o] != nil {
			continue
		}
		for _, f := range o.Fields {
			if fieldrules.RulesOf(f.Desc).GetRequired() {
				chosen[o] = f
				break
			}
		}
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for _, f := range m.Fields {
		if inRealOneof(f) && chosen[f.Oneof] != f {
			continue
		}
		r := fieldrules.RulesOf(f.Desc)
		var v string
		switch {
		case r.GetExample() != "":
			v = exampleValue(f, r.GetExample())
		case r.GetRequired():
			v = placeholder(f, r)
		default:
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		writeString(&b, string(f.Desc.Name()))
		b.WriteByte(':')
		b.WriteString(v)
	}
	b.WriteByte('}')
	return b.String()
}

// exampleValue turns a field's example, written as it appears in JSON without quotes, into
// JSON text. A string-like value (a string, bytes, an enum name, a timestamp...) is quoted; a
// number or boolean is written as it is; so are a message or map, whose example is a JSON
// object. For a repeated field of such values the example is one element, and the value is a
// list of it; for a repeated message field it is the whole JSON list.
func exampleValue(f *protogen.Field, ex string) string {
	switch {
	case f.Desc.IsMap():
		return ex
	case f.Desc.IsList():
		if isObject(f) {
			return ex
		}
		return "[" + scalarExample(f, ex) + "]"
	}
	return scalarExample(f, ex)
}

func scalarExample(f *protogen.Field, ex string) string {
	if isQuoted(f) {
		return `"` + ex + `"`
	}
	return ex
}

// isObject reports whether the field's values are JSON objects: messages other than the
// well-known types that protojson writes as strings, numbers or lists.
func isObject(f *protogen.Field) bool {
	if f.Message == nil {
		return false
	}
	wk, ok := wellKnownTypes[f.Message.Desc.FullName()]
	return !ok || strings.HasPrefix(wk.sample, "{")
}

// isQuoted reports whether the field's JSON values are strings.
func isQuoted(f *protogen.Field) bool {
	switch f.Desc.Kind() {
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.EnumKind:
		return true
	case protoreflect.MessageKind:
		return wellKnownTypes[f.Message.Desc.FullName()].quoted
	}
	return false
}

// placeholder returns a value of the field's type that its rules allow where they can say so,
// for a required field without an example. A field whose rules a placeholder cannot meet (a
// pattern, say) needs an example, which the example check asks for.
func placeholder(f *protogen.Field, r *hootv1.FieldRules) string {
	switch {
	case f.Desc.IsMap():
		key := `"key"`
		switch k := f.Message.Fields[0].Desc.Kind(); {
		case k == protoreflect.BoolKind:
			key = `"true"`
		case isNumber(k):
			key = `"1"`
		}
		return "{" + key + ":" + valuePlaceholder(f.Message.Fields[1], nil) + "}"
	case f.Desc.IsList():
		return "[" + valuePlaceholder(f, r) + "]"
	}
	return valuePlaceholder(f, r)
}

func valuePlaceholder(f *protogen.Field, r *hootv1.FieldRules) string {
	switch k := f.Desc.Kind(); {
	case k == protoreflect.BoolKind:
		return "true"
	case isNumber(k):
		integer := k != protoreflect.FloatKind && k != protoreflect.DoubleKind
		unsigned := strings.HasPrefix(k.String(), "uint") || strings.HasPrefix(k.String(), "fixed")
		return formatNumber(pickNumber(r, integer, unsigned))
	case k == protoreflect.StringKind:
		if n := r.GetMinLength(); n > 4 && !f.Desc.IsList() {
			return `"` + strings.Repeat("x", int(min(n, 1<<16))) + `"`
		}
		return `"text"`
	case k == protoreflect.BytesKind:
		return `"aGVsbG8="` // "hello"
	case k == protoreflect.EnumKind:
		for _, v := range f.Enum.Values {
			if v.Desc.Number() != 0 {
				return strconv.Quote(string(v.Desc.Name()))
			}
		}
		return strconv.Quote(string(f.Enum.Values[0].Desc.Name()))
	}
	if wk, ok := wellKnownTypes[f.Message.Desc.FullName()]; ok {
		return wk.sample
	}
	return exampleObject(f.Message)
}

// pickNumber returns a non-zero number within the rule's bounds, 1 when it can.
func pickNumber(r *hootv1.FieldRules, integer, unsigned bool) float64 {
	lo, hi := math.Inf(-1), math.Inf(1)
	if unsigned {
		lo = 0
	}
	if r.GetHasMinimum() {
		lo = math.Max(lo, r.GetMinimum())
	}
	if r.GetHasMaximum() {
		hi = r.GetMaximum()
	}
	if integer {
		lo, hi = math.Ceil(lo), math.Floor(hi)
	}
	for _, x := range []float64{1, lo, hi, -1} {
		if x != 0 && x >= lo && x <= hi && !math.IsInf(x, 0) {
			return x
		}
	}
	return 1
}

// compactJSON returns text as compact JSON, or false when it is not JSON.
func compactJSON(text string) (string, bool) {
	var b bytes.Buffer
	if err := json.Compact(&b, []byte(text)); err != nil {
		return "", false
	}
	return b.String(), true
}
