package genhoot

import (
	"strings"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hooteproto/internal/fieldrules"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Arguments a person supplies.
//
// A request field with (hoot.v1.field).elicit is one the gateway asks the person for when the
// caller leaves it out, with an MCP elicitation form. A form holds only flat primitive values
// (a string, a number, a boolean, a choice among strings), so the generator refuses the option
// on any field a form cannot ask for, and writes for each field the form's property schema,
// which the gateway puts together into the form of a call.

// elicitNote ends the input-schema description of an elicited field, so that a model knows
// that it may leave the field out.
const elicitNote = "If it is left out, the person is asked for it before the call runs."

// elicitKinds are the field kinds a form can ask for: strings, enums (a choice among strings),
// booleans and numbers (those a header may carry, and floating point). 64-bit integers are
// left out: an elicited number is a JSON number, which loses precision past 2^53.
var elicitKinds = withKinds(headerKinds, protoreflect.FloatKind, protoreflect.DoubleKind)

// withKinds returns a copy of set with kinds added.
func withKinds(set map[protoreflect.Kind]bool, kinds ...protoreflect.Kind) map[protoreflect.Kind]bool {
	out := make(map[protoreflect.Kind]bool, len(set)+len(kinds))
	for k := range set {
		out[k] = true
	}
	for _, k := range kinds {
		out[k] = true
	}
	return out
}

// An elicitField is one field of a tool's request that a person supplies, with its property
// in the form.
type elicitField struct {
	name   string
	schema string
}

// checkElicitNested refuses elicit on the fields of a message held by a request: a form asks
// for the arguments' own members only.
func (c *requestChecker) checkElicitNested(m *protogen.Message, nested bool) {
	if !nested {
		return
	}
	for _, f := range m.Fields {
		if fieldrules.RulesOf(f.Desc).GetElicit() {
			c.bad.add("%s: elicit is on a field of a nested message; a person is asked only for the request's own fields: move the field to the request or drop elicit",
				f.Desc.FullName())
		}
	}
}

// checkElicit refuses elicit on the request fields of t that a form cannot ask for, and returns
// the fields of t that a person supplies, in field order, with their form properties.
func checkElicit(t *tool, bad *refusals) []elicitField {
	var out []elicitField
	for _, f := range t.request.Fields {
		r := fieldrules.RulesOf(f.Desc)
		if !r.GetElicit() {
			continue
		}
		name := f.Desc.FullName()
		switch {
		case t.opts.GetSurface() != hootv1.Surface_SURFACE_UNSPECIFIED:
			bad.add("%s: elicit is for the arguments of tools: %q is not called with tools/call, where the person is asked; drop elicit", name, t.opts.GetName())
		case f.Desc.IsList() || f.Desc.IsMap() || !elicitKinds[f.Desc.Kind()]:
			bad.add("%s: elicit is on %s; a form asks for a single string, enum, bool or number (not 64-bit): drop elicit", name, describeType(f))
		case inRealOneof(f):
			bad.add("%s: elicit is on a member of the oneof %s; a person cannot be asked to choose among fields: move the field out of the oneof or drop elicit",
				name, f.Oneof.Desc.Name())
		case r.GetRequired():
			bad.add("%s: elicit and required are both set; an elicited field may be left out by the caller, and the form requires it of the person: drop required", name)
		case !f.Desc.HasPresence() && f.Desc.Kind() != protoreflect.StringKind && f.Desc.Kind() != protoreflect.EnumKind:
			bad.add("%s: elicit is on %s without presence, so a caller's %s could not be told from a field left out: declare it optional",
				name, describeType(f), zeroWord(f.Desc.Kind()))
		default:
			out = append(out, elicitField{name: string(f.Desc.Name()), schema: elicitProperty(f, r).String()})
		}
	}
	return out
}

// zeroWord names the zero value of a kind for a refusal.
func zeroWord(k protoreflect.Kind) string {
	if k == protoreflect.BoolKind {
		return "false"
	}
	return "0"
}

// elicitProperty returns the form's property for field f with rules r: MCP's primitive schema
// definitions, with the bounds a form can carry (lengths, minimum and maximum, the enum's
// names). A pattern cannot be said in a form; the gateway checks the answer against it.
func elicitProperty(f *protogen.Field, r *hootv1.FieldRules) *jsonSchema {
	s, note := newSchemaBuilder(true).value(f, r)
	return &jsonSchema{types: s.types, title: fieldTitle(string(f.Desc.Name())), description: joinProse(prose(f.Comments.Leading), note),
		enum: s.enum, minLength: s.minLength, maxLength: s.maxLength, minimum: s.minimum, maximum: s.maximum}
}

// fieldTitle turns a field's snake_case name into a title for a form: "user_name" is
// "User name".
func fieldTitle(name string) string {
	words := strings.ReplaceAll(name, "_", " ")
	if words == "" {
		return ""
	}
	return strings.ToUpper(words[:1]) + words[1:]
}
