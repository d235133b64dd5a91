package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"
)

// The codec turns a typed request into the upstream's positional JSON parameters and the
// upstream's JSON result into the typed result. It is driven by the messages' descriptors (the
// JSON name of each field is the property name of the upstream's schema) and by the shapes of
// the messages that are not plain objects.

// Limits of what the decoder accepts from an upstream.
const (
	// DefaultMaxResponseBytes bounds an upstream's answer.
	DefaultMaxResponseBytes = 16 << 20
	// MaxDepth bounds the nesting of arrays and objects in an answer.
	MaxDepth = 64
	// maxUnknownReported bounds the unknown properties an envelope lists.
	maxUnknownReported = 32
)

// ErrTooDeep is returned for JSON nested deeper than [MaxDepth].
var ErrTooDeep = fmt.Errorf("nested deeper than %d arrays and objects", MaxDepth)

// ParseJSON parses one JSON value with numbers kept as json.Number, refusing nesting deeper
// than [MaxDepth] and anything after the value.
func ParseJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	v, err := parseValue(dec, 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("more than one JSON value")
	}
	return v, nil
}

func parseValue(dec *json.Decoder, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return tok, nil
	}
	if depth >= MaxDepth {
		return nil, ErrTooDeep
	}
	switch d {
	case '[':
		list := []any{}
		for dec.More() {
			v, err := parseValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			list = append(list, v)
		}
		_, err := dec.Token()
		return list, err
	case '{':
		obj := map[string]any{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			key, _ := k.(string)
			v, err := parseValue(dec, depth+1)
			if err != nil {
				return nil, err
			}
			obj[key] = v
		}
		_, err := dec.Token()
		return obj, err
	}
	return nil, fmt.Errorf("unexpected %v", d)
}

// A Codec maps messages onto JSON with the shapes of the generated messages.
type Codec struct {
	Shapes map[protoreflect.FullName]Shape
}

var valueName = (&structpb.Value{}).ProtoReflect().Descriptor().FullName()

func (c Codec) shape(md protoreflect.MessageDescriptor) Shape { return c.Shapes[md.FullName()] }

// EncodeParams returns the request's fields, in field order, as the method's positional
// parameters: a field left out is left out at the end, and null before a parameter that is set.
func (c Codec) EncodeParams(req proto.Message) ([]any, error) {
	m := req.ProtoReflect()
	fields := m.Descriptor().Fields()
	params := make([]any, fields.Len())
	last := -1
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !c.present(m, fd) {
			continue
		}
		v, err := c.encodeField(m, fd)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fd.JSONName(), err)
		}
		params[i] = v
		last = i
	}
	return params[:last+1], nil
}

// present reports whether a field is sent: a field with presence when set, a list or map when
// not empty, a plain scalar always (it is a required parameter; bool false and 0 are values).
func (c Codec) present(m protoreflect.Message, fd protoreflect.FieldDescriptor) bool {
	if fd.IsList() || fd.IsMap() || fd.HasPresence() {
		return m.Has(fd)
	}
	return true
}

func (c Codec) encodeField(m protoreflect.Message, fd protoreflect.FieldDescriptor) (any, error) {
	v := m.Get(fd)
	switch {
	case fd.IsList():
		l := v.List()
		out := make([]any, l.Len())
		for i := range l.Len() {
			e, err := c.encodeSingle(fd, l.Get(i))
			if err != nil {
				return nil, fmt.Errorf("[%d]: %w", i, err)
			}
			out[i] = e
		}
		return out, nil
	case fd.IsMap():
		out := map[string]any{}
		var err error
		v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
			var e any
			if e, err = c.encodeSingle(fd.MapValue(), mv); err != nil {
				err = fmt.Errorf("[%q]: %w", k.String(), err)
				return false
			}
			out[k.String()] = e
			return true
		})
		return out, err
	}
	return c.encodeSingle(fd, v)
}

func (c Codec) encodeSingle(fd protoreflect.FieldDescriptor, v protoreflect.Value) (any, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return v.String(), nil
	case protoreflect.BoolKind:
		return v.Bool(), nil
	case protoreflect.Int64Kind, protoreflect.Int32Kind:
		return v.Int(), nil
	case protoreflect.DoubleKind:
		f := v.Float()
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, errors.New("not a finite number")
		}
		return f, nil
	case protoreflect.MessageKind:
		return c.encodeMessage(v.Message())
	}
	return nil, fmt.Errorf("a field of kind %s has no JSON form here", fd.Kind())
}

func (c Codec) encodeMessage(m protoreflect.Message) (any, error) {
	md := m.Descriptor()
	if md.FullName() == valueName {
		return m.Interface().(*structpb.Value).AsInterface(), nil
	}
	fields := md.Fields()
	switch c.shape(md) {
	case ShapeUnion:
		for i := range fields.Len() {
			if fd := fields.Get(i); m.Has(fd) {
				return c.encodeField(m, fd)
			}
		}
		// A union with nothing set is null: a topic filter's wildcard, for one.
		return nil, nil
	case ShapeList, ShapeMap:
		return c.encodeField(m, fields.Get(0))
	}
	obj := map[string]any{}
	for i := range fields.Len() {
		fd := fields.Get(i)
		if !m.Has(fd) {
			continue
		}
		v, err := c.encodeField(m, fd)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fd.JSONName(), err)
		}
		obj[fd.JSONName()] = v
	}
	return obj, nil
}

// A decoder fills a message from JSON and notes the properties it has no field for.
type decoder struct {
	c       Codec
	unknown []string
	dropped int
}

// DecodeField sets the field of m to the JSON value v (as [ParseJSON] returns it). It returns
// the paths of properties the schema does not name (at most a few, and how many more), which
// are dropped.
func (c Codec) DecodeField(m protoreflect.Message, fd protoreflect.FieldDescriptor, v any, path string) (unknown []string, more int, err error) {
	d := &decoder{c: c}
	err = d.field(m, fd, v, path)
	return d.unknown, d.dropped, err
}

func (d *decoder) field(m protoreflect.Message, fd protoreflect.FieldDescriptor, v any, path string) error {
	if v == nil {
		return nil
	}
	switch {
	case fd.IsList():
		arr, ok := v.([]any)
		if !ok {
			return typeError(path, "a list", v)
		}
		l := m.Mutable(fd).List()
		for i, e := range arr {
			p := path + "[" + strconv.Itoa(i) + "]"
			if e == nil {
				return fmt.Errorf("%s: null in a list", p)
			}
			if fd.Kind() == protoreflect.MessageKind {
				el := l.NewElement()
				if err := d.message(el.Message(), e, p); err != nil {
					return err
				}
				l.Append(el)
				continue
			}
			sv, err := scalar(fd, e, p)
			if err != nil {
				return err
			}
			l.Append(sv)
		}
		return nil
	case fd.IsMap():
		obj, ok := v.(map[string]any)
		if !ok {
			return typeError(path, "an object", v)
		}
		mp := m.Mutable(fd).Map()
		vd := fd.MapValue()
		for _, k := range sortedKeys(obj) {
			e := obj[k]
			p := path + "[" + strconv.Quote(k) + "]"
			if e == nil {
				continue
			}
			if vd.Kind() == protoreflect.MessageKind {
				mv := mp.NewValue()
				if err := d.message(mv.Message(), e, p); err != nil {
					return err
				}
				mp.Set(protoreflect.ValueOfString(k).MapKey(), mv)
				continue
			}
			sv, err := scalar(vd, e, p)
			if err != nil {
				return err
			}
			mp.Set(protoreflect.ValueOfString(k).MapKey(), sv)
		}
		return nil
	case fd.Kind() == protoreflect.MessageKind:
		return d.message(m.Mutable(fd).Message(), v, path)
	}
	sv, err := scalar(fd, v, path)
	if err != nil {
		return err
	}
	m.Set(fd, sv)
	return nil
}

func (d *decoder) message(m protoreflect.Message, v any, path string) error {
	md := m.Descriptor()
	if md.FullName() == valueName {
		pv, err := structpb.NewValue(plain(v))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		proto.Merge(m.Interface(), pv)
		return nil
	}
	fields := md.Fields()
	switch d.c.shape(md) {
	case ShapeUnion:
		var want string
		switch v.(type) {
		case string:
			want = "text"
		case json.Number:
			want = "number"
		case bool:
			want = "flag"
		case map[string]any:
			want = "object"
		case []any:
			want = "list"
		}
		fd := fields.ByName(protoreflect.Name(want))
		if fd == nil {
			return typeError(path, "one of "+unionKinds(fields), v)
		}
		return d.field(m, fd, v, path)
	case ShapeList, ShapeMap:
		return d.field(m, fields.Get(0), v, path)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return typeError(path, "an object", v)
	}
	for _, k := range sortedKeys(obj) {
		p := path + "." + k
		fd := fields.ByJSONName(k)
		if fd == nil {
			if obj[k] != nil {
				if len(d.unknown) < maxUnknownReported {
					d.unknown = append(d.unknown, p)
				} else {
					d.dropped++
				}
			}
			continue
		}
		if err := d.field(m, fd, obj[k], p); err != nil {
			return err
		}
	}
	return nil
}

func unionKinds(fields protoreflect.FieldDescriptors) string {
	words := map[string]string{"text": "a string", "number": "a number", "flag": "true or false", "object": "an object", "list": "a list"}
	var s string
	for i := range fields.Len() {
		if i > 0 {
			s += " or "
		}
		s += words[string(fields.Get(i).Name())]
	}
	return s
}

func scalar(fd protoreflect.FieldDescriptor, v any, path string) (protoreflect.Value, error) {
	switch fd.Kind() {
	case protoreflect.StringKind:
		if s, ok := v.(string); ok {
			return protoreflect.ValueOfString(s), nil
		}
		return protoreflect.Value{}, typeError(path, "a string", v)
	case protoreflect.BoolKind:
		if b, ok := v.(bool); ok {
			return protoreflect.ValueOfBool(b), nil
		}
		return protoreflect.Value{}, typeError(path, "true or false", v)
	case protoreflect.Int64Kind:
		if n, ok := v.(json.Number); ok {
			if i, err := n.Int64(); err == nil {
				return protoreflect.ValueOfInt64(i), nil
			}
		}
		return protoreflect.Value{}, typeError(path, "an integer", v)
	case protoreflect.DoubleKind:
		if n, ok := v.(json.Number); ok {
			if f, err := n.Float64(); err == nil {
				return protoreflect.ValueOfFloat64(f), nil
			}
		}
		return protoreflect.Value{}, typeError(path, "a number", v)
	}
	return protoreflect.Value{}, fmt.Errorf("%s: a field of kind %s cannot be read from JSON here", path, fd.Kind())
}

func typeError(path, want string, got any) error {
	return fmt.Errorf("%s: want %s, got %s", path, want, kindOf(got))
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "true or false"
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	}
	return fmt.Sprintf("%T", v)
}

// plain turns json.Number into float64 throughout, for structpb.
func plain(v any) any {
	switch t := v.(type) {
	case json.Number:
		f, _ := t.Float64()
		return f
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = plain(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = plain(e)
		}
		return out
	}
	return v
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
