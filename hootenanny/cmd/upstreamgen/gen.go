package main

import (
	"bytes"
	"fmt"
	"go/format"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/hootenanny/hoot/hootenanny/internal/openrpc"
	"github.com/hootenanny/hoot/hootenanny/internal/upstream"
)

// A fieldType is the protobuf type of a field: a scalar, a message, a list of either, or a map
// from string to either.
type fieldType struct {
	scalar   string // string, bool, int64, double, google.protobuf.Value
	message  string
	repeated bool
	mapValue *fieldType
}

func (t fieldType) elem() string {
	if t.message != "" {
		return t.message
	}
	return t.scalar
}

func (t fieldType) isScalar() bool {
	return !t.repeated && t.mapValue == nil && t.message == "" && t.scalar != "google.protobuf.Value"
}

type field struct {
	name, jsonName string
	typ            fieldType
	comment        string
	optional       bool
	rules          string
}

type message struct {
	name    string
	comment string
	fields  []field
	shape   upstream.Shape
	// options are the lines of the message's options (the tool option), already indented.
	options string
}

type generator struct {
	spec     *openrpc.Spec
	manifest *upstream.Manifest
	cfg      upstreamConfig
	messages map[string]*message
	order    []string
	byRef    map[string]fieldType
	usesAny  bool
	// numbers are the Payload and Result member numbers by method (see assignNumbers).
	numbers map[string]int
}

func newGenerator(s *openrpc.Spec, m *upstream.Manifest, cfg upstreamConfig) *generator {
	return &generator{spec: s, manifest: m, cfg: cfg, messages: map[string]*message{}, byRef: map[string]fieldType{}}
}

// newMessage reserves a message name, unique among the generated ones.
func (g *generator) newMessage(name, comment string, shape upstream.Shape) *message {
	base := name
	for i := 2; g.messages[name] != nil; i++ {
		name = base + strconv.Itoa(i)
	}
	m := &message{name: name, comment: comment, shape: shape}
	g.messages[name] = m
	g.order = append(g.order, name)
	return m
}

// kind is what a schema is as JSON: string, bool, int, number, array, object, map, any or null.
func (g *generator) kind(s *openrpc.Schema) string {
	r, _, err := g.spec.Resolve(s)
	if err != nil || r == nil {
		return "any"
	}
	if len(r.OneOf)+len(r.AnyOf) > 0 {
		return "union"
	}
	if len(r.AllOf) > 0 {
		return "object"
	}
	switch r.Type {
	case "string":
		return "string"
	case "boolean":
		return "bool"
	case "integer":
		return "int"
	case "number":
		return "number"
	case "array":
		return "array"
	case "null":
		return "null"
	case "object", "":
		if len(r.Properties) > 0 {
			return "object"
		}
		if r.Additional != nil {
			return "map"
		}
		if r.Type == "" && (r.Pattern != "" || len(r.Enum) > 0) {
			return "string"
		}
		return "any"
	}
	return "any"
}

// alternatives flattens the unions under s into the schemas they allow, null left out.
func (g *generator) alternatives(s *openrpc.Schema, depth int) []*openrpc.Schema {
	r, _, err := g.spec.Resolve(s)
	if err != nil || depth > 16 {
		return []*openrpc.Schema{s}
	}
	alts := append(append([]*openrpc.Schema(nil), r.OneOf...), r.AnyOf...)
	if len(alts) == 0 {
		if g.kind(s) == "null" {
			return nil
		}
		return []*openrpc.Schema{s}
	}
	var out []*openrpc.Schema
	for _, a := range alts {
		out = append(out, g.alternatives(a, depth+1)...)
	}
	return out
}

// typeOf maps a schema onto a protobuf type; hint names the message made for an anonymous
// object.
func (g *generator) typeOf(s *openrpc.Schema, hint string) (fieldType, error) {
	if s.Ref != "" {
		r, name, err := g.spec.Resolve(s)
		if err != nil {
			return fieldType{}, err
		}
		if t, ok := g.byRef[name]; ok {
			return t, nil
		}
		t, err := g.typeOfResolved(r, g.cfg.prefix+camel(name), name)
		if err != nil {
			return fieldType{}, err
		}
		return t, nil
	}
	return g.typeOfResolved(s, hint, "")
}

func (g *generator) typeOfResolved(s *openrpc.Schema, hint, refName string) (fieldType, error) {
	remember := func(t fieldType) fieldType {
		if refName != "" {
			g.byRef[refName] = t
		}
		return t
	}
	switch g.kind(s) {
	case "string":
		return remember(fieldType{scalar: "string"}), nil
	case "bool":
		return remember(fieldType{scalar: "bool"}), nil
	case "int":
		return remember(fieldType{scalar: "int64"}), nil
	case "number":
		return remember(fieldType{scalar: "double"}), nil
	case "array":
		if s.Items == nil && len(s.Properties) > 0 {
			// An array written with the properties of its items (as BlockStateCalls is).
			s = &openrpc.Schema{Type: "array", Items: &openrpc.Schema{Type: "object", Properties: s.Properties, Required: s.Required}}
		}
		if s.Items == nil {
			g.usesAny = true
			return remember(fieldType{scalar: "google.protobuf.Value", repeated: true}), nil
		}
		it, err := g.typeOf(s.Items, hint+"Item")
		if err != nil {
			return fieldType{}, err
		}
		it = g.wrapIfCollection(it, hint+"Item")
		it.repeated = true
		return remember(it), nil
	case "map":
		vt, err := g.typeOf(s.Additional, hint+"Value")
		if err != nil {
			return fieldType{}, err
		}
		vt = g.wrapIfCollection(vt, hint+"Value")
		return remember(fieldType{mapValue: &vt}), nil
	case "object":
		m := g.newMessage(hint, schemaComment(s), upstream.ShapeObject)
		t := remember(fieldType{message: m.name})
		if err := g.fillObject(m, []*openrpc.Schema{s}); err != nil {
			return fieldType{}, err
		}
		return t, nil
	case "union":
		return g.union(s, hint, remember)
	default:
		g.usesAny = true
		return remember(fieldType{scalar: "google.protobuf.Value"}), nil
	}
}

// wrapIfCollection puts a list or a map into a message of its own, since protobuf has no list
// of lists and no map of lists.
func (g *generator) wrapIfCollection(t fieldType, hint string) fieldType {
	if !t.repeated && t.mapValue == nil {
		return t
	}
	shape, name := upstream.ShapeList, "items"
	if t.mapValue != nil {
		shape, name = upstream.ShapeMap, "entries"
	}
	m := g.newMessage(hint, "", shape)
	m.fields = []field{{name: name, jsonName: name, typ: t}}
	return fieldType{message: m.name}
}

// fillObject gives m the properties of the object schemas, merged in order.
func (g *generator) fillObject(m *message, objs []*openrpc.Schema) error {
	seen := map[string]bool{}
	used := map[string]bool{}
	var add func(s *openrpc.Schema) error
	add = func(s *openrpc.Schema) error {
		r, _, err := g.spec.Resolve(s)
		if err != nil {
			return err
		}
		for _, sub := range r.AllOf {
			if err := add(sub); err != nil {
				return err
			}
		}
		// An object made of a union of objects (a transaction of any type) has the
		// properties of every alternative.
		for _, alt := range append(append([]*openrpc.Schema(nil), r.OneOf...), r.AnyOf...) {
			if g.kind(alt) == "object" || g.kind(alt) == "union" {
				if err := add(alt); err != nil {
					return err
				}
			}
		}
		for _, p := range r.Properties {
			if seen[p.Name] || g.kind(p.Schema) == "null" {
				// A property that is always null says nothing a field could hold.
				continue
			}
			seen[p.Name] = true
			t, err := g.typeOf(p.Schema, m.name+camel(p.Name))
			if err != nil {
				return fmt.Errorf("%s.%s: %w", m.name, p.Name, err)
			}
			name := uniqueName(snake(p.Name), used)
			m.fields = append(m.fields, field{name: name, jsonName: p.Name, typ: t, comment: schemaComment(p.Schema)})
		}
		return nil
	}
	for _, o := range objs {
		if err := add(o); err != nil {
			return err
		}
	}
	return nil
}

// union maps a oneOf or anyOf: alternatives that are all strings are a string, all objects one
// message with every property, all lists a list of the union of their items; a mix of kinds is
// a message with one field per kind, which the codec fills from the kind of JSON it meets.
func (g *generator) union(s *openrpc.Schema, hint string, remember func(fieldType) fieldType) (fieldType, error) {
	alts := g.alternatives(s, 0)
	byKind := map[string][]*openrpc.Schema{}
	var kinds []string
	for _, a := range alts {
		k := g.kind(a)
		if k == "int" || k == "number" {
			k = "number"
		}
		if _, ok := byKind[k]; !ok {
			kinds = append(kinds, k)
		}
		byKind[k] = append(byKind[k], a)
	}
	if byKind["any"] != nil || byKind["map"] != nil || len(kinds) == 0 {
		g.usesAny = true
		return remember(fieldType{scalar: "google.protobuf.Value"}), nil
	}
	one := func(k string, h string) (fieldType, error) {
		group := byKind[k]
		switch k {
		case "string":
			return fieldType{scalar: "string"}, nil
		case "bool":
			return fieldType{scalar: "bool"}, nil
		case "number":
			return fieldType{scalar: "double"}, nil
		case "object":
			if len(group) == 1 {
				return g.typeOf(group[0], h)
			}
			m := g.newMessage(h, schemaComment(s), upstream.ShapeObject)
			return fieldType{message: m.name}, g.fillObject(m, group)
		case "array":
			items := &openrpc.Schema{}
			for _, a := range group {
				r, _, _ := g.spec.Resolve(a)
				if r.Items != nil {
					items.AnyOf = append(items.AnyOf, r.Items)
				}
			}
			it, err := g.typeOf(items, h+"Item")
			if err != nil {
				return fieldType{}, err
			}
			it = g.wrapIfCollection(it, h+"Item")
			it.repeated = true
			return it, nil
		}
		return fieldType{}, fmt.Errorf("%s: cannot map a union member of kind %s", hint, k)
	}
	if len(kinds) == 1 {
		t, err := one(kinds[0], hint)
		return remember(t), err
	}
	m := g.newMessage(hint, schemaComment(s), upstream.ShapeUnion)
	t := remember(fieldType{message: m.name})
	sort.SliceStable(kinds, func(i, j int) bool { return kindOrder[kinds[i]] < kindOrder[kinds[j]] })
	for _, k := range kinds {
		ft, err := one(k, hint+camel(k))
		if err != nil {
			return fieldType{}, err
		}
		ft = g.wrapIfCollection(ft, hint+camel(k))
		var titles []string
		for _, a := range byKind[k] {
			if c := schemaTitle(a, g.spec); c != "" {
				titles = append(titles, c)
			}
		}
		comment := "When the value is " + kindWords[k]
		if len(titles) > 0 {
			comment += ": " + strings.Join(titles, ", or ")
		}
		// Scalars are optional so that an empty string or false is told from no value.
		m.fields = append(m.fields, field{name: kindFields[k], jsonName: kindFields[k], typ: ft, optional: ft.isScalar(), comment: comment + "."})
	}
	return t, nil
}

var kindOrder = map[string]int{"string": 0, "number": 1, "bool": 2, "object": 3, "array": 4}
var kindFields = map[string]string{"string": "text", "number": "number", "bool": "flag", "object": "object", "array": "list"}
var kindWords = map[string]string{"string": "a string", "number": "a number", "bool": "true or false", "object": "an object", "array": "a list"}

// generate returns the .proto text, the Go handler and the envelope's members.
func (g *generator) generate() ([]byte, []byte, [2][]string, error) {
	var members [2][]string
	type tool struct {
		method     *openrpc.Method
		row        upstream.Row
		req, res   string
		resultType fieldType
	}
	var tools []tool
	for _, m := range g.spec.Methods {
		row, _ := g.manifest.Row(m.Name)
		if !row.Served() {
			continue
		}
		base := g.cfg.prefix + camel(strings.TrimPrefix(m.Name, strings.ToLower(g.cfg.prefix)+"_"))
		if !strings.HasPrefix(m.Name, strings.ToLower(g.cfg.prefix)+"_") {
			base = g.cfg.prefix + camel(m.Name)
		}
		req := g.newMessage(base+"Request", methodComment(m), upstream.ShapeObject)
		req.options = g.toolOption(m, row)
		used := map[string]bool{}
		examples := exampleParams(m)
		for _, p := range m.Params {
			t, err := g.typeOf(p.Schema, base+camel(p.Name))
			if err != nil {
				return nil, nil, members, fmt.Errorf("%s param %s: %w", m.Name, p.Name, err)
			}
			f := field{name: uniqueName(snake(p.Name), used), typ: t, comment: paramComment(p)}
			f.jsonName = lowerCamel(f.name)
			f.optional = !p.Required && t.isScalar()
			f.rules = g.rules(p, t, examples[p.Name])
			req.fields = append(req.fields, f)
		}
		res := g.newMessage(base+"Result", fmt.Sprintf("%sResult is the answer of %s, in the envelope every upstream call shares.", base, m.Name), upstream.ShapeObject)
		rt := fieldType{scalar: "google.protobuf.Value"}
		comment := "The method's result."
		if m.Result != nil {
			var err error
			if rt, err = g.typeOf(m.Result.Schema, base+"Value"); err != nil {
				return nil, nil, members, fmt.Errorf("%s result: %w", m.Name, err)
			}
			comment = paramComment(m.Result)
		} else {
			g.usesAny = true
		}
		res.fields = []field{
			{name: "call", jsonName: "call", typ: fieldType{message: "UpstreamCall"}, comment: "The call: its status, the policy's decision, the exchange with the upstream and its error, if any."},
			{name: "result", jsonName: "result", typ: rt, optional: rt.isScalar(), comment: comment + " Left out unless the status is ok (and when the upstream answered null)."},
		}
		tools = append(tools, tool{method: m, row: row, req: req.name, res: res.name, resultType: rt})
		n := g.numbers[m.Name]
		field := toolName(m.Name)
		members[0] = append(members[0], fmt.Sprintf("    %s %s = %d;\n", req.name, field, n))
		members[1] = append(members[1], fmt.Sprintf("    %s %s = %d;\n", res.name, field, n))
	}

	var p bytes.Buffer
	p.WriteString("// Code generated by hootenanny/cmd/upstreamgen from the upstream's OpenRPC description and\n")
	p.WriteString("// manifest. DO NOT EDIT: change the manifest and run make upstream-" + g.cfg.service + ".\n")
	p.WriteString("//\n// Source: " + g.cfg.source + "\n\n")
	p.WriteString("syntax = \"proto3\";\n\npackage hoot.v1;\n\n")
	if g.usesAny {
		p.WriteString("import \"google/protobuf/struct.proto\";\n")
	}
	p.WriteString("import \"hoot/v1/options.proto\";\nimport \"hoot/v1/upstream.proto\";\n\n")
	p.WriteString("option go_package = \"github.com/hootenanny/hoot/gen/hoot/v1;hootv1\";\n")
	for _, name := range g.order {
		m := g.messages[name]
		p.WriteString("\n")
		writeComment(&p, "", m.comment)
		fmt.Fprintf(&p, "message %s {\n", m.name)
		if m.options != "" {
			p.WriteString(m.options)
			if len(m.fields) > 0 {
				p.WriteString("\n")
			}
		}
		for i, f := range m.fields {
			if i > 0 {
				p.WriteString("\n")
			}
			writeComment(&p, "  ", f.comment)
			p.WriteString("  ")
			switch {
			case f.typ.mapValue != nil:
				fmt.Fprintf(&p, "map<string, %s>", f.typ.mapValue.elem())
			case f.typ.repeated:
				p.WriteString("repeated " + f.typ.elem())
			case f.optional:
				p.WriteString("optional " + f.typ.elem())
			default:
				p.WriteString(f.typ.elem())
			}
			fmt.Fprintf(&p, " %s = %d", f.name, i+1)
			var opts []string
			if f.jsonName != lowerCamel(f.name) {
				opts = append(opts, strconv.Quote(f.jsonName))
				opts[0] = "json_name = " + opts[0]
			}
			switch {
			case f.rules == "":
			case strings.HasSuffix(f.rules, "\n"):
				opts = append(opts, "(hoot.v1.field) = {\n"+f.rules+"  }")
			default:
				opts = append(opts, "(hoot.v1.field) = {"+f.rules+"}")
			}
			if len(opts) > 0 {
				p.WriteString(" [" + strings.Join(opts, ", ") + "]")
			}
			p.WriteString(";\n")
		}
		p.WriteString("}\n")
	}

	var goSrc bytes.Buffer
	goSrc.WriteString("// Code generated by hootenanny/cmd/upstreamgen. DO NOT EDIT.\n\n")
	fmt.Fprintf(&goSrc, "package %sservice\n\n", g.cfg.service)
	goSrc.WriteString("import (\n\t\"context\"\n\n\thootv1 \"github.com/hootenanny/hoot/gen/hoot/v1\"\n\t\"github.com/hootenanny/hoot/hootenanny/internal/upstream\"\n\t\"google.golang.org/protobuf/reflect/protoreflect\"\n)\n\n")
	for _, t := range tools {
		method := camel(toolName(t.method.Name))
		fmt.Fprintf(&goSrc, "// %s calls %s through the policy.\n", method, t.method.Name)
		fmt.Fprintf(&goSrc, "func (s *Service) %s(ctx context.Context, req *hootv1.%s) (*hootv1.%s, error) {\n", method, t.req, t.res)
		fmt.Fprintf(&goSrc, "\tres := new(hootv1.%s)\n\tres.Call = s.client.Call(ctx, %q, req, res)\n\treturn res, nil\n}\n\n", t.res, t.method.Name)
	}
	goSrc.WriteString("// shapes says which generated messages the codec does not map field by field.\n")
	goSrc.WriteString("var shapes = map[protoreflect.FullName]upstream.Shape{\n")
	for _, name := range g.order {
		if m := g.messages[name]; m.shape != upstream.ShapeObject {
			fmt.Fprintf(&goSrc, "\t\"hoot.v1.%s\": upstream.%s,\n", name, m.shape.GoName())
		}
	}
	goSrc.WriteString("}\n")
	formatted, err := format.Source(goSrc.Bytes())
	if err != nil {
		return nil, nil, members, fmt.Errorf("the generated Go does not parse: %w", err)
	}
	return p.Bytes(), formatted, members, nil
}

// toolOption is the (hoot.v1.tool) option of the method's request.
func (g *generator) toolOption(m *openrpc.Method, row upstream.Row) string {
	tier := map[upstream.Tier]string{
		upstream.TierRead:           "TIER_BASIC",
		upstream.TierLocalSensitive: "TIER_STANDARD",
		upstream.TierBroadcast:      "TIER_ADMIN",
		upstream.TierOperator:       "TIER_OPERATOR",
	}[row.Tier]
	desc := oneLine(m.Summary)
	if desc == "" {
		desc = "Call " + m.Name + " on the upstream."
	}
	desc = strings.TrimSuffix(desc, ".") + fmt.Sprintf(" (upstream %s, tier %s).", m.Name, row.Tier)
	var ann []string
	switch row.Tier {
	case upstream.TierRead:
		ann = append(ann, "read_only: true", "idempotent: true")
	case upstream.TierBroadcast, upstream.TierOperator:
		ann = append(ann, "destructive: true")
	}
	ann = append(ann, "open_world: true")
	var b strings.Builder
	b.WriteString("  option (hoot.v1.tool) = {\n")
	fmt.Fprintf(&b, "    name: %q\n    title: %q\n    description: %q\n    tier: %s\n    kind: KIND_SYNC\n", toolName(m.Name), m.Name, desc, tier)
	if len(ann) == 1 {
		fmt.Fprintf(&b, "    annotations: {%s}\n", ann[0])
	} else {
		fmt.Fprintf(&b, "    annotations: {\n      %s\n    }\n", strings.Join(ann, "\n      "))
	}
	fmt.Fprintf(&b, "    service: %q\n", g.cfg.service)
	if row.RequiresConfirmation {
		b.WriteString("    confirm: true\n")
	}
	b.WriteString("  };\n")
	return b.String()
}

// maxParamLength bounds a string parameter: 0x and the hex of 128 KiB, a large transaction.
const maxParamLength = 2 + 2*128*1024

// rules are the field rules of a parameter: bounded, patterned when its schema says, required
// when the method requires it.
func (g *generator) rules(p *openrpc.ContentDescriptor, t fieldType, example string) string {
	var lines []string
	if p.Required && (t.message != "" || t.scalar == "string") && !t.repeated && t.mapValue == nil {
		lines = append(lines, "required: true")
	}
	switch {
	case t.repeated:
		lines = append(lines, "max_length: 1024")
	case t.scalar == "string" && t.mapValue == nil:
		lines = append(lines, fmt.Sprintf("max_length: %d", maxParamLength))
		if len(example) > 200 {
			// Too long to show in a usage line.
			example = ""
		}
		if r, _, err := g.spec.Resolve(p.Schema); err == nil && r.Pattern != "" {
			if re, err := regexp.Compile(r.Pattern); err == nil {
				lines = append(lines, "pattern: "+strconv.Quote(r.Pattern))
				if !re.MatchString(example) {
					// The upstream's own example may break its pattern, or there is none: the
					// first plain value that meets the pattern is the example.
					example = ""
					for _, c := range exampleCandidates() {
						if re.MatchString(c) {
							example = c
							break
						}
					}
				}
			}
		}
		if example != "" {
			lines = append(lines, "example: "+strconv.Quote(example))
		}
	}
	if len(lines) == 0 {
		return ""
	}
	if len(lines) == 1 {
		// buf format writes a one-line block on one line.
		return lines[0]
	}
	return "    " + strings.Join(lines, "\n    ") + "\n"
}

// toolName is the tool's name: the method's, in snake_case (eth_getBalance: eth_get_balance).
func toolName(method string) string { return snake(method) }

func methodComment(m *openrpc.Method) string {
	text := oneLine(m.Summary)
	if d := strings.TrimSpace(m.Description); d != "" {
		text += "\n\n" + d
	}
	return strings.TrimSpace(text + "\n\nCalls " + m.Name + " on the upstream, after the policy of the manifest allows it.")
}

func paramComment(p *openrpc.ContentDescriptor) string {
	text := p.Name
	if d := oneLine(p.Description); d != "" {
		text += ": " + d
	}
	if p.Schema != nil && p.Schema.Title != "" && !strings.EqualFold(p.Schema.Title, p.Name) {
		text += " (" + p.Schema.Title + ")"
	}
	return text + "."
}

func schemaComment(s *openrpc.Schema) string {
	var parts []string
	if s.Title != "" {
		parts = append(parts, s.Title)
	}
	if d := oneLine(s.Description); d != "" {
		parts = append(parts, d)
	}
	if len(parts) == 0 {
		return ""
	}
	return strings.TrimSuffix(strings.Join(parts, ": "), ".") + "."
}

func schemaTitle(s *openrpc.Schema, spec *openrpc.Spec) string {
	if s.Title != "" {
		return s.Title
	}
	if r, _, err := spec.Resolve(s); err == nil && r.Title != "" {
		return r.Title
	}
	return ""
}

func writeComment(b *bytes.Buffer, indent, text string) {
	if text == "" {
		return
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t")
		if line == "" {
			b.WriteString(indent + "//\n")
			continue
		}
		b.WriteString(indent + "// " + line + "\n")
	}
}

// exampleParams are the string values of the parameters of the method's first example.
func exampleParams(m *openrpc.Method) map[string]string { return m.ExampleParams }

func uniqueName(name string, used map[string]bool) string {
	base := name
	for i := 2; used[name]; i++ {
		name = base + "_" + strconv.Itoa(i)
	}
	used[name] = true
	return name
}

// snake turns a name (camelCase, or words) into lower_snake_case.
func snake(s string) string {
	var b strings.Builder
	rs := []rune(s)
	for i, r := range rs {
		switch {
		case unicode.IsUpper(r):
			if i > 0 && (unicode.IsLower(rs[i-1]) || unicode.IsDigit(rs[i-1]) || (i+1 < len(rs) && unicode.IsLower(rs[i+1]) && unicode.IsUpper(rs[i-1]))) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.Trim(regexp.MustCompile(`_+`).ReplaceAllString(b.String(), "_"), "_")
	if out == "" || unicode.IsDigit(rune(out[0])) {
		out = "n_" + out
	}
	return out
}

// camel turns a name into UpperCamelCase.
func camel(s string) string {
	var b strings.Builder
	for _, w := range strings.Split(snake(s), "_") {
		if w == "" {
			continue
		}
		b.WriteString(strings.ToUpper(w[:1]) + w[1:])
	}
	return b.String()
}

// lowerCamel is the JSON name protoc gives a field name.
func lowerCamel(name string) string {
	var b strings.Builder
	up := false
	for _, r := range name {
		if r == '_' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// exampleCandidates are values tried, in order, as the example of a patterned string parameter
// that the description gives none for.
func exampleCandidates() []string {
	c := []string{"0x1", "0x0", "0x", "latest"}
	for _, n := range []int{2, 8, 16, 32, 40, 64, 96, 130, 192, 512} {
		c = append(c, "0x"+strings.Repeat("0", n-1)+"1")
	}
	return c
}

// assignNumbers gives every method of the spec its Payload and Result member number: the one
// the lock (numbers.csv, method,number) records, or for a method new to it the next number
// after the highest in use (from base). A number once given is never given to another method,
// so that a refreshed description never renumbers a member, which would break the wire.
func assignNumbers(spec *openrpc.Spec, lock map[string]int, base int) map[string]int {
	out := map[string]int{}
	next := base
	for _, n := range lock {
		next = max(next, n+1)
	}
	for _, m := range spec.Methods {
		if n, ok := lock[m.Name]; ok {
			out[m.Name] = n
			continue
		}
		out[m.Name] = next
		next++
	}
	return out
}
