// Package fieldrules enforces the (hoot.v1.field) rules of a message. It is the one
// implementation behind hooteproto.Validate, which the gateway and the worker call, and behind
// the check protoc-gen-hoot makes of each tool's example. It does not depend on generated tool
// tables, so the code generator can always be built.
package fieldrules

import (
	"cmp"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A Violation is the first rule a message breaks.
type Violation struct {
	// Field is the path of the offending value in proto names, dotted, with [i] for list
	// elements and [key] for map values, such as "items[2].name".
	Field string
	// Message says what was expected and what came, such as "must be at most 5 characters,
	// got 7".
	Message string
	// Hint is the next right step, built from the rule, or "".
	Hint string
	// SchemaFault is true when the rule itself is broken (a pattern that does not compile), so
	// the fault lies with the schema and not with the message.
	SchemaFault bool
}

// Check returns the first violation of the (hoot.v1.field) rules in m and in every message it
// holds (set message fields, list elements and map values, in key order), or nil.
// See hooteproto.Validate for what the rules mean.
//
// Check does not allocate unless it has something to report, apart from walking the values
// of a map of messages.
func Check(m protoreflect.Message) *Violation {
	if !m.IsValid() {
		return nil
	}
	return validateMessage(m)
}

// CheckField returns the first violation of the rules of one field of m, including those of
// the messages the field holds, or nil. The violation's path starts with the field's name.
func CheckField(m protoreflect.Message, fd protoreflect.FieldDescriptor) *Violation {
	if !m.IsValid() || fd.ContainingMessage() != m.Descriptor() {
		return nil
	}
	p := planOf(m.Descriptor())
	for i := range p.fields {
		if f := &p.fields[i]; f.fd == fd {
			if v := validateField(m, f); v != nil {
				return atField(v, fd.Name())
			}
			return nil
		}
	}
	return nil
}

// CompilePattern compiles a pattern rule the way Check applies it: as RE2, matching the whole
// value whether or not the pattern is anchored itself.
func CompilePattern(pattern string) (*regexp.Regexp, error) {
	return regexp.Compile(`^(?:` + pattern + `)$`)
}

// RulesOf returns the field's (hoot.v1.field) rules, or nil.
func RulesOf(fd protoreflect.FieldDescriptor) *hootv1.FieldRules {
	opts := fd.Options()
	if !proto.HasExtension(opts, hootv1.E_Field) {
		return nil
	}
	r, _ := proto.GetExtension(opts, hootv1.E_Field).(*hootv1.FieldRules)
	return r
}

// messagePlan is what Check needs to know about one message type, worked out once.
type messagePlan struct {
	fields []fieldPlan
}

// fieldPlan is one field of a messagePlan that has rules or may hold messages.
type fieldPlan struct {
	fd     protoreflect.FieldDescriptor
	rules  *hootv1.FieldRules // nil when the field has none
	re     *regexp.Regexp     // compiled rules.pattern, nil when there is none
	reErr  error              // why rules.pattern does not compile
	walk   bool               // the field holds messages to validate in turn
	oneof  protoreflect.OneofDescriptor
	minLen uint64
	maxLen uint64
}

// messagePlans caches a *messagePlan per protoreflect.MessageDescriptor. Keying by the
// descriptor itself, not its name, keeps two different descriptors of one name (a generated
// type and a dynamic one built from another version of the schema) apart.
var messagePlans sync.Map

// patterns caches compiled patterns by the full name of their field and the pattern, so
// plans of descriptors of the same schema share them.
var patterns sync.Map

type regexpKey struct {
	field   protoreflect.FullName
	pattern string
}

type regexpEntry struct {
	re  *regexp.Regexp
	err error
}

func planOf(md protoreflect.MessageDescriptor) *messagePlan {
	if p, ok := messagePlans.Load(md); ok {
		return p.(*messagePlan)
	}
	p := newMessagePlan(md)
	actual, _ := messagePlans.LoadOrStore(md, p)
	return actual.(*messagePlan)
}

func newMessagePlan(md protoreflect.MessageDescriptor) *messagePlan {
	p := new(messagePlan)
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		f := fieldPlan{fd: fd, rules: RulesOf(fd)}
		switch {
		case fd.IsMap():
			f.walk = isMessageKind(fd.MapValue().Kind())
		default:
			f.walk = isMessageKind(fd.Kind())
		}
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			f.oneof = od
		}
		if r := f.rules; r != nil {
			f.minLen, f.maxLen = r.GetMinLength(), r.GetMaxLength()
			if pat := r.GetPattern(); pat != "" {
				f.re, f.reErr = compileRule(fd.FullName(), pat)
			}
		}
		if f.rules == nil && !f.walk {
			continue
		}
		p.fields = append(p.fields, f)
	}
	return p
}

func isMessageKind(k protoreflect.Kind) bool {
	return k == protoreflect.MessageKind || k == protoreflect.GroupKind
}

func compileRule(field protoreflect.FullName, pattern string) (*regexp.Regexp, error) {
	key := regexpKey{field: field, pattern: pattern}
	if e, ok := patterns.Load(key); ok {
		return e.(regexpEntry).re, e.(regexpEntry).err
	}
	re, err := CompilePattern(pattern)
	e, _ := patterns.LoadOrStore(key, regexpEntry{re: re, err: err})
	return e.(regexpEntry).re, e.(regexpEntry).err
}

// The path of an error is built while the error travels back up: each level puts its own step
// in front. Nothing is built when there is nothing to report, and nothing on the way down
// needs a pointer that would make the walk allocate.

// atField puts the field name in front of v's path.
func atField(v *Violation, name protoreflect.Name) *Violation {
	v.Field = joinPath(string(name), v.Field)
	return v
}

// atStep puts a list index or map key, written as [step], in front of v's path.
func atStep(v *Violation, step string) *Violation {
	v.Field = joinPath("["+step+"]", v.Field)
	return v
}

func joinPath(head, rest string) string {
	switch {
	case rest == "":
		return head
	case rest[0] == '[':
		return head + rest
	}
	return head + "." + rest
}

func validateMessage(m protoreflect.Message) *Violation {
	p := planOf(m.Descriptor())
	for i := range p.fields {
		f := &p.fields[i]
		if err := validateField(m, f); err != nil {
			return atField(err, f.fd.Name())
		}
	}
	return nil
}

func validateField(m protoreflect.Message, f *fieldPlan) *Violation {
	fd := f.fd
	if f.oneof != nil {
		if which := m.WhichOneof(f.oneof); which != nil && which != fd {
			return nil // another member of the oneof is set; it has its own rules
		}
	}
	if !m.Has(fd) {
		if f.rules.GetRequired() {
			return requiredError(f)
		}
		return nil
	}
	v := m.Get(fd)
	switch {
	case fd.IsList():
		return validateList(f, v.List())
	case fd.IsMap():
		return validateMap(f, v.Map())
	}
	return validateValue(f, fd.Kind(), v)
}

func validateList(f *fieldPlan, l protoreflect.List) *Violation {
	if f.rules != nil {
		if err := checkCount(f, uint64(l.Len())); err != nil {
			return err
		}
	}
	k := f.fd.Kind()
	for i := 0; i < l.Len(); i++ {
		if err := validateElement(f, k, l.Get(i)); err != nil {
			return atStep(err, strconv.Itoa(i))
		}
	}
	return nil
}

func validateMap(f *fieldPlan, mp protoreflect.Map) *Violation {
	if f.rules != nil {
		if err := checkCount(f, uint64(mp.Len())); err != nil {
			return err
		}
	}
	if !f.walk || mp.Len() == 0 {
		return nil
	}
	// Map values are walked in key order, so the first violation is the same on every run.
	entries := make([]mapEntry, 0, mp.Len())
	mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
		entries = append(entries, mapEntry{k, v})
		return true
	})
	slices.SortFunc(entries, func(a, b mapEntry) int { return compareKeys(a.key, b.key) })
	for _, e := range entries {
		if err := validateMessage(e.value.Message()); err != nil {
			return atStep(err, e.key.String())
		}
	}
	return nil
}

type mapEntry struct {
	key   protoreflect.MapKey
	value protoreflect.Value
}

func compareKeys(a, b protoreflect.MapKey) int {
	switch x := a.Interface().(type) {
	case string:
		return strings.Compare(x, b.String())
	case bool:
		switch {
		case x == b.Bool():
			return 0
		case x:
			return 1
		}
		return -1
	case int32, int64:
		return cmp.Compare(a.Int(), b.Int())
	}
	return cmp.Compare(a.Uint(), b.Uint())
}

// validateElement checks one element of a list: its own rules apply to each number and
// string, and a message is walked.
func validateElement(f *fieldPlan, k protoreflect.Kind, v protoreflect.Value) *Violation {
	if isMessageKind(k) {
		return validateMessage(v.Message())
	}
	if f.rules == nil {
		return nil
	}
	switch k {
	case protoreflect.StringKind:
		return checkPattern(f, v.String())
	case protoreflect.BytesKind, protoreflect.BoolKind, protoreflect.EnumKind:
		return nil
	}
	return checkRange(f, k, v)
}

// validateValue checks a set singular field.
func validateValue(f *fieldPlan, k protoreflect.Kind, v protoreflect.Value) *Violation {
	if isMessageKind(k) {
		return validateMessage(v.Message())
	}
	if f.rules == nil {
		return nil
	}
	switch k {
	case protoreflect.StringKind:
		s := v.String()
		if err := checkStringLength(f, s); err != nil {
			return err
		}
		return checkPattern(f, s)
	case protoreflect.BytesKind:
		n := uint64(len(v.Bytes()))
		if f.maxLen > 0 && n > f.maxLen {
			return invalid("must be at most "+fmtUint(f.maxLen)+" bytes, got "+fmtUint(n),
				"send at most "+fmtUint(f.maxLen)+" bytes (the limit counts decoded bytes, not base64 characters)")
		}
		if n < f.minLen {
			return invalid("must be at least "+fmtUint(f.minLen)+" bytes, got "+fmtUint(n), exampleHint(f))
		}
		return nil
	case protoreflect.BoolKind, protoreflect.EnumKind:
		return nil
	}
	return checkRange(f, k, v)
}

func checkStringLength(f *fieldPlan, s string) *Violation {
	if f.maxLen == 0 && f.minLen == 0 {
		return nil
	}
	// A string has at most as many characters as bytes and at least a quarter as many, so
	// the count is needed only near the bounds.
	b := uint64(len(s))
	if f.maxLen > 0 && b > f.maxLen {
		if n := uint64(utf8.RuneCountInString(s)); n > f.maxLen {
			return invalid("must be at most "+fmtUint(f.maxLen)+" characters, got "+fmtUint(n),
				"shorten it to at most "+fmtUint(f.maxLen)+" characters")
		}
	}
	if f.minLen > 0 && b/4 < f.minLen {
		if n := uint64(utf8.RuneCountInString(s)); n < f.minLen {
			return invalid("must be at least "+fmtUint(f.minLen)+" characters, got "+fmtUint(n), exampleHint(f))
		}
	}
	return nil
}

func checkPattern(f *fieldPlan, s string) *Violation {
	if f.rules.GetPattern() == "" {
		return nil
	}
	if f.reErr != nil {
		return &Violation{
			Message:     "the schema's pattern for " + string(f.fd.FullName()) + " does not compile: " + f.reErr.Error(),
			SchemaFault: true,
		}
	}
	if f.re.MatchString(s) {
		return nil
	}
	return invalid("must match "+f.rules.GetPattern()+", got "+quoteShort(s), exampleHint(f))
}

func checkCount(f *fieldPlan, n uint64) *Violation {
	if f.maxLen > 0 && n > f.maxLen {
		return invalid("must have at most "+fmtUint(f.maxLen)+" elements, got "+fmtUint(n),
			"send at most "+fmtUint(f.maxLen)+" elements")
	}
	if n < f.minLen {
		return invalid("must have at least "+fmtUint(f.minLen)+" elements, got "+fmtUint(n), "")
	}
	return nil
}

func checkRange(f *fieldPlan, k protoreflect.Kind, v protoreflect.Value) *Violation {
	r := f.rules
	if !r.GetHasMinimum() && !r.GetHasMaximum() {
		return nil
	}
	var x float64
	switch k {
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind,
		protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		x = float64(v.Int())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		x = float64(v.Uint())
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		x = v.Float()
	default:
		return nil
	}
	below := r.GetHasMinimum() && (x < r.GetMinimum() || math.IsNaN(x))
	above := r.GetHasMaximum() && (x > r.GetMaximum() || math.IsNaN(x))
	if !below && !above {
		return nil
	}
	got := formatValue(k, v)
	if below {
		return invalid("must be at least "+fmtFloat(r.GetMinimum())+", got "+got, rangeHint(r))
	}
	return invalid("must be at most "+fmtFloat(r.GetMaximum())+", got "+got, rangeHint(r))
}

func requiredError(f *fieldPlan) *Violation {
	if f.oneof != nil {
		fields := f.oneof.Fields()
		names := make([]string, fields.Len())
		for i := range names {
			names[i] = string(fields.Get(i).Name())
		}
		return invalid("is required: set one of "+strings.Join(names, ", "), exampleHint(f))
	}
	return invalid("is required", exampleHint(f))
}

func invalid(msg, hint string) *Violation {
	return &Violation{Message: msg, Hint: hint}
}

func exampleHint(f *fieldPlan) string {
	ex := f.rules.GetExample()
	if ex == "" {
		return ""
	}
	if f.fd.Kind() == protoreflect.StringKind || f.fd.Kind() == protoreflect.BytesKind || f.fd.Kind() == protoreflect.EnumKind {
		return `for example "` + ex + `"`
	}
	return "for example " + ex
}

func rangeHint(r *hootv1.FieldRules) string {
	switch {
	case r.GetHasMinimum() && r.GetHasMaximum():
		return "use a value from " + fmtFloat(r.GetMinimum()) + " to " + fmtFloat(r.GetMaximum())
	case r.GetHasMinimum():
		return "use a value of " + fmtFloat(r.GetMinimum()) + " or more"
	default:
		return "use a value of " + fmtFloat(r.GetMaximum()) + " or less"
	}
}

func formatValue(k protoreflect.Kind, v protoreflect.Value) string {
	switch k {
	case protoreflect.FloatKind, protoreflect.DoubleKind:
		return fmtFloat(v.Float())
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind, protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return fmtUint(v.Uint())
	}
	return strconv.FormatInt(v.Int(), 10)
}

func fmtUint(n uint64) string { return strconv.FormatUint(n, 10) }

// fmtFloat writes whole numbers without an exponent, the way a person writes a bound.
func fmtFloat(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e21 {
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

// quoteShort quotes s for an error message, cut to a readable length.
func quoteShort(s string) string {
	const limit = 64
	if utf8.RuneCountInString(s) <= limit {
		return strconv.Quote(s)
	}
	n := 0
	for i := range s {
		if n == limit {
			return strconv.Quote(s[:i]) + "..."
		}
		n++
	}
	return strconv.Quote(s)
}
