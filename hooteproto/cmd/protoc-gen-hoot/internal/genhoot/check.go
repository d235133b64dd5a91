package genhoot

import (
	"bytes"
	"strings"

	"github.com/hootenanny/hoot/hooteproto/internal/fieldrules"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
)

// A requestChecker checks the messages that tool requests are made of: no recursion, rules
// that fit their fields, and examples that are valid. Each message is checked once, however
// many tools use it.
type requestChecker struct {
	bad     *refusals
	checked map[protoreflect.FullName]bool
	path    []*protogen.Field // the fields that led from the request to the current message
	open    map[protoreflect.FullName]bool
}

func newRequestChecker(bad *refusals) *requestChecker {
	return &requestChecker{
		bad:     bad,
		checked: make(map[protoreflect.FullName]bool),
		open:    make(map[protoreflect.FullName]bool),
	}
}

// check walks the request message m and what it holds.
func (c *requestChecker) check(m *protogen.Message) {
	name := m.Desc.FullName()
	if _, ok := wellKnownTypes[name]; ok {
		return
	}
	if c.open[name] {
		steps := []string{}
		for i := len(c.path) - 1; i >= 0; i-- {
			steps = append([]string{string(c.path[i].Desc.FullName())}, steps...)
			if c.path[i].Parent.Desc.FullName() == name {
				break
			}
		}
		c.bad.add("%s is recursive (%s leads back to it): a tool's request must be a finite tree, so its JSON Schema can be written out; refer to the nested value by an id instead",
			name, strings.Join(steps, " -> "))
		return
	}
	if c.checked[name] {
		return
	}
	c.checked[name] = true
	c.open[name] = true
	defer delete(c.open, name)
	c.checkHeaders(m, len(c.path) > 0)
	c.checkElicitNested(m, len(c.path) > 0)
	for _, f := range m.Fields {
		c.checkRules(f)
		c.checkExample(f)
		next := f.Message
		if f.Desc.IsMap() {
			next = f.Message.Fields[1].Message
		}
		if next != nil {
			c.path = append(c.path, f)
			c.check(next)
			c.path = c.path[:len(c.path)-1]
		}
	}
}

// checkRules refuses rules that do not fit the field's type.
func (c *requestChecker) checkRules(f *protogen.Field) {
	r := fieldrules.RulesOf(f.Desc)
	if r == nil {
		return
	}
	name, kind := f.Desc.FullName(), f.Desc.Kind()
	isMap, isList := f.Desc.IsMap(), f.Desc.IsList()
	what := describeType(f)

	if r.GetMinLength() > 0 || r.GetMaxLength() > 0 {
		if !isMap && !isList && kind != protoreflect.StringKind && kind != protoreflect.BytesKind {
			hint := "drop it"
			if isNumber(kind) {
				hint = "bound a number with minimum/maximum (and has_minimum/has_maximum) instead"
			}
			c.bad.add("%s: min_length and max_length bound strings, bytes, repeated and map fields, not %s: %s",
				name, what, hint)
		}
		if r.GetMaxLength() > 0 && r.GetMinLength() > r.GetMaxLength() {
			c.bad.add("%s: min_length %d is above max_length %d: no value can meet both", name, r.GetMinLength(), r.GetMaxLength())
		}
	}

	bounded := r.GetHasMinimum() || r.GetHasMaximum() || r.GetMinimum() != 0 || r.GetMaximum() != 0
	if bounded && (isMap || !isNumber(kind)) {
		hint := "drop it"
		if kind == protoreflect.StringKind || kind == protoreflect.BytesKind {
			hint = "bound a length with min_length/max_length instead"
		}
		c.bad.add("%s: minimum and maximum bound numbers, not %s: %s", name, what, hint)
	} else if bounded {
		if r.GetMinimum() != 0 && !r.GetHasMinimum() {
			c.bad.add("%s: minimum is set but has_minimum is not, so the bound would be ignored: add has_minimum: true", name)
		}
		if r.GetMaximum() != 0 && !r.GetHasMaximum() {
			c.bad.add("%s: maximum is set but has_maximum is not, so the bound would be ignored: add has_maximum: true", name)
		}
		if r.GetHasMinimum() && r.GetHasMaximum() && r.GetMinimum() > r.GetMaximum() {
			c.bad.add("%s: minimum %s is above maximum %s: no value can meet both", name,
				formatNumber(r.GetMinimum()), formatNumber(r.GetMaximum()))
		}
	}

	if p := r.GetPattern(); p != "" {
		if isMap || kind != protoreflect.StringKind {
			c.bad.add("%s: pattern applies to strings, not %s: drop it", name, what)
		} else if _, err := fieldrules.CompilePattern(p); err != nil {
			c.bad.add("%s: pattern %q does not compile as an RE2 regular expression (%v): fix it", name, p, err)
		}
	}
}

// checkExample refuses a field example that protojson does not accept for the field or that
// breaks the field's own rules.
func (c *requestChecker) checkExample(f *protogen.Field) {
	ex := fieldrules.RulesOf(f.Desc).GetExample()
	if ex == "" {
		return
	}
	var b bytes.Buffer
	b.WriteByte('{')
	writeString(&b, string(f.Desc.Name()))
	b.WriteByte(':')
	b.WriteString(exampleValue(f, ex))
	b.WriteByte('}')
	m := dynamicpb.NewMessage(f.Parent.Desc)
	if err := protojson.Unmarshal(b.Bytes(), m); err != nil {
		c.bad.add("%s: example %q is not a valid value for %s (%v): %s",
			f.Desc.FullName(), ex, describeType(f), cleanError(err), exampleAdvice(f))
		return
	}
	if v := fieldrules.CheckField(m, f.Desc); v != nil {
		c.bad.add("%s: example %q breaks the field's own rules: %s %s; give an example that meets them",
			f.Desc.FullName(), ex, v.Field, v.Message)
	}
}

// checkToolExample refuses the tool's example call when protojson does not accept it for the
// request or when it breaks the request's rules.
func checkToolExample(t *tool, bad *refusals) {
	m := dynamicpb.NewMessage(t.request.Desc)
	if err := protojson.Unmarshal([]byte(t.example), m); err != nil {
		bad.add("%s: the example call of tool %q, %s, is not valid (%v): fix the examples of its fields",
			t.request.Desc.FullName(), t.opts.GetName(), t.example, cleanError(err))
		return
	}
	v := fieldrules.Check(m)
	if v == nil {
		return
	}
	advice := "fix the examples of its fields"
	if f := fieldAt(t.request, v.Field); f != nil && fieldrules.RulesOf(f.Desc).GetExample() == "" {
		advice = "give " + string(f.Desc.FullName()) + " an example with (hoot.v1.field).example"
	}
	bad.add("%s: the example call of tool %q, %s, breaks the request's rules (%s %s): %s",
		t.request.Desc.FullName(), t.opts.GetName(), t.example, v.Field, v.Message, advice)
}

// fieldAt returns the field a violation's path ends at, or nil.
func fieldAt(m *protogen.Message, path string) *protogen.Field {
	var f *protogen.Field
	for _, step := range strings.Split(path, ".") {
		if i := strings.IndexByte(step, '['); i >= 0 {
			step = step[:i]
		}
		if m == nil {
			return nil
		}
		f = nil
		for _, g := range m.Fields {
			if string(g.Desc.Name()) == step {
				f = g
			}
		}
		if f == nil {
			return nil
		}
		m = f.Message
		if f.Desc.IsMap() {
			m = f.Message.Fields[1].Message
		}
	}
	return f
}

// exampleAdvice says how an example of the field is written.
func exampleAdvice(f *protogen.Field) string {
	switch {
	case f.Desc.IsMap():
		return "the example of a map field is a JSON object"
	case f.Desc.IsList() && isObject(f):
		return "the example of a repeated message field is a JSON list"
	case f.Desc.IsList():
		return "the example of a repeated field is one element, written as in JSON without quotes"
	case isObject(f):
		return "the example of a message field is a JSON object"
	case isQuoted(f):
		return "write the value as it appears inside a JSON string, without the quotes"
	}
	return "write the value as it appears in JSON"
}

// describeType names the field's type for a refusal, such as "a repeated string field".
func describeType(f *protogen.Field) string {
	var t string
	switch f.Desc.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind:
		if f.Desc.IsMap() {
			return "a map field"
		}
		t = "message " + string(f.Message.Desc.FullName())
	case protoreflect.EnumKind:
		t = "enum " + string(f.Enum.Desc.FullName())
	default:
		t = f.Desc.Kind().String()
	}
	if f.Desc.IsList() {
		return "a repeated " + t + " field"
	}
	if strings.IndexAny(t[:1], "aeio") == 0 { // "a uint32", as it is read
		return "an " + t + " field"
	}
	return "a " + t + " field"
}

// cleanError drops protojson's "proto: " prefix and its unstable spacing.
func cleanError(err error) string {
	s := strings.TrimPrefix(err.Error(), "proto:")
	return strings.Join(strings.Fields(s), " ")
}
