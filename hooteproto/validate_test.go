package hooteproto_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"
)

const validHash = "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"

// wantError is what a failing case expects; a zero wantError expects no error.
type wantError struct {
	field   string
	message string // a part of the message
	hint    string // a part of the hint
}

func checkValidate(t *testing.T, m proto.Message, want wantError) {
	t.Helper()
	err := hooteproto.Validate(m)
	if want == (wantError{}) {
		if err != nil {
			t.Fatalf("Validate(%v) = %v, want nil", m, err)
		}
		return
	}
	var e *hooteproto.Error
	if !errors.As(err, &e) {
		t.Fatalf("Validate(%v) = %v (%T), want an *Error", m, err, err)
	}
	if e.Code() != hooteproto.CodeInvalidArgument {
		t.Errorf("code = %v, want %v", e.Code(), hooteproto.CodeInvalidArgument)
	}
	if e.Field() != want.field {
		t.Errorf("field = %q, want %q", e.Field(), want.field)
	}
	if !strings.Contains(e.Message(), want.message) {
		t.Errorf("message = %q, want it to contain %q", e.Message(), want.message)
	}
	if !strings.Contains(e.Hint(), want.hint) {
		t.Errorf("hint = %q, want it to contain %q", e.Hint(), want.hint)
	}
}

func TestValidateSchema(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		msg  proto.Message
		want wantError
	}{
		{name: "nil", msg: nil},
		{name: "typed nil", msg: (*hootv1.CasGetRequest)(nil)},
		{name: "echo ok", msg: &hootv1.EchoRequest{Message: "hello"}},
		{
			name: "echo missing message",
			msg:  &hootv1.EchoRequest{},
			want: wantError{field: "message", message: "is required", hint: `for example "hello"`},
		},
		{name: "echo at limit", msg: &hootv1.EchoRequest{Message: strings.Repeat("é", 65536)}},
		{
			name: "echo too long",
			msg:  &hootv1.EchoRequest{Message: strings.Repeat("x", 65537)},
			want: wantError{field: "message", message: "must be at most 65536 characters, got 65537"},
		},
		{name: "cas_get ok", msg: &hootv1.CasGetRequest{Hash: validHash, Offset: 1 << 40, Length: 1048576}},
		{
			name: "cas_get missing hash",
			msg:  &hootv1.CasGetRequest{},
			want: wantError{field: "hash", message: "is required", hint: validHash},
		},
		{
			name: "cas_get bad hash",
			msg:  &hootv1.CasGetRequest{Hash: "xyz"},
			want: wantError{field: "hash", message: `must match ^[0-9a-f]{64}$, got "xyz"`, hint: validHash},
		},
		{
			name: "cas_get hash with a newline after it",
			msg:  &hootv1.CasGetRequest{Hash: validHash + "\n"},
			want: wantError{field: "hash", message: "must match"},
		},
		{
			name: "cas_get long bad hash is cut short",
			msg:  &hootv1.CasGetRequest{Hash: strings.Repeat("Z", 1000)},
			want: wantError{field: "hash", message: `"...`},
		},
		{
			name: "cas_get length above maximum",
			msg:  &hootv1.CasGetRequest{Hash: validHash, Length: 1048577},
			want: wantError{field: "length", message: "must be at most 1048576, got 1048577", hint: "1048576 or less"},
		},
		{name: "cas_store empty", msg: &hootv1.CasStoreRequest{}},
		{
			name: "cas_store text",
			msg:  &hootv1.CasStoreRequest{Data: &hootv1.CasStoreRequest_Content{Content: "X:1"}, MimeType: "text/vnd.abc"},
		},
		{
			name: "cas_store bad mime type",
			msg:  &hootv1.CasStoreRequest{MimeType: "text"},
			want: wantError{field: "mime_type", message: "must match", hint: `for example "text/vnd.abc"`},
		},
		{
			name: "cas_store mime type too long",
			msg:  &hootv1.CasStoreRequest{MimeType: "text/" + strings.Repeat("a", 300)},
			want: wantError{field: "mime_type", message: "must be at most 255 characters, got 305"},
		},
		{
			name: "cas_store bytes too long",
			msg:  &hootv1.CasStoreRequest{Data: &hootv1.CasStoreRequest_ContentBase64{ContentBase64: make([]byte, 8388609)}},
			want: wantError{field: "content_base64", message: "must be at most 8388608 bytes, got 8388609", hint: "decoded bytes"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkValidate(t, tc.msg, tc.want)
		})
	}
}

// widgetFile is a schema written for this test, with every kind of rule on every kind of field.
// It is built as a descriptor so that the real schema does not need to carry test messages.
func widgetFile(t testing.TB) protoreflect.FileDescriptor {
	t.Helper()
	rules := func(r *hootv1.FieldRules) *descriptorpb.FieldOptions {
		o := new(descriptorpb.FieldOptions)
		proto.SetExtension(o, hootv1.E_Field, r)
		return o
	}
	field := func(name string, num int32, typ descriptorpb.FieldDescriptorProto_Type, label descriptorpb.FieldDescriptorProto_Label, r *hootv1.FieldRules) *descriptorpb.FieldDescriptorProto {
		f := &descriptorpb.FieldDescriptorProto{
			Name:     proto.String(name),
			Number:   proto.Int32(num),
			Type:     typ.Enum(),
			Label:    label.Enum(),
			JsonName: proto.String(name),
		}
		if r != nil {
			f.Options = rules(r)
		}
		return f
	}
	const (
		opt = descriptorpb.FieldDescriptorProto_LABEL_OPTIONAL
		rep = descriptorpb.FieldDescriptorProto_LABEL_REPEATED
	)
	msgField := func(name string, num int32, label descriptorpb.FieldDescriptorProto_Label, typeName string, r *hootv1.FieldRules) *descriptorpb.FieldDescriptorProto {
		f := field(name, num, descriptorpb.FieldDescriptorProto_TYPE_MESSAGE, label, r)
		f.TypeName = proto.String(typeName)
		return f
	}
	inOneof := func(f *descriptorpb.FieldDescriptorProto, i int32) *descriptorpb.FieldDescriptorProto {
		f.OneofIndex = proto.Int32(i)
		return f
	}
	part := &descriptorpb.DescriptorProto{
		Name: proto.String("Part"),
		Field: []*descriptorpb.FieldDescriptorProto{
			field("id", 1, descriptorpb.FieldDescriptorProto_TYPE_INT32, opt, &hootv1.FieldRules{HasMinimum: true, Minimum: 1, HasMaximum: true, Maximum: 10}),
			field("code", 2, descriptorpb.FieldDescriptorProto_TYPE_STRING, opt, &hootv1.FieldRules{Required: true}),
		},
	}
	widget := &descriptorpb.DescriptorProto{
		Name: proto.String("Widget"),
		Field: []*descriptorpb.FieldDescriptorProto{
			field("name", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING, opt, &hootv1.FieldRules{Required: true, MinLength: 2, MaxLength: 5, Example: "gear"}),
			field("tags", 2, descriptorpb.FieldDescriptorProto_TYPE_STRING, rep, &hootv1.FieldRules{MaxLength: 2, MinLength: 1, Pattern: "[a-z]+"}),
			msgField("parts", 3, rep, ".hoot.test.Part", nil),
			msgField("labels", 4, rep, ".hoot.test.Widget.LabelsEntry", &hootv1.FieldRules{MaxLength: 2}),
			msgField("child", 5, opt, ".hoot.test.Part", &hootv1.FieldRules{Required: true}),
			field("score", 6, descriptorpb.FieldDescriptorProto_TYPE_DOUBLE, opt, &hootv1.FieldRules{HasMinimum: true, Minimum: 0, HasMaximum: true, Maximum: 1}),
			field("count", 7, descriptorpb.FieldDescriptorProto_TYPE_SINT64, opt, &hootv1.FieldRules{HasMinimum: true, Minimum: -5}),
			field("blob", 8, descriptorpb.FieldDescriptorProto_TYPE_BYTES, opt, &hootv1.FieldRules{MinLength: 2}),
			inOneof(field("a", 9, descriptorpb.FieldDescriptorProto_TYPE_STRING, opt, &hootv1.FieldRules{Required: true, Pattern: "^a+$"}), 0),
			inOneof(field("b", 10, descriptorpb.FieldDescriptorProto_TYPE_UINT32, opt, &hootv1.FieldRules{HasMaximum: true, Maximum: 3}), 0),
			field("levels", 11, descriptorpb.FieldDescriptorProto_TYPE_UINT64, rep, &hootv1.FieldRules{HasMaximum: true, Maximum: 9}),
			func() *descriptorpb.FieldDescriptorProto {
				f := field("maybe", 12, descriptorpb.FieldDescriptorProto_TYPE_INT32, opt, &hootv1.FieldRules{Required: true})
				f.Proto3Optional = proto.Bool(true)
				f.OneofIndex = proto.Int32(1)
				return f
			}(),
		},
		OneofDecl: []*descriptorpb.OneofDescriptorProto{{Name: proto.String("choice")}, {Name: proto.String("_maybe")}},
		NestedType: []*descriptorpb.DescriptorProto{{
			Name: proto.String("LabelsEntry"),
			Field: []*descriptorpb.FieldDescriptorProto{
				field("key", 1, descriptorpb.FieldDescriptorProto_TYPE_STRING, opt, nil),
				msgField("value", 2, opt, ".hoot.test.Part", nil),
			},
			Options: &descriptorpb.MessageOptions{MapEntry: proto.Bool(true)},
		}},
	}
	fdp := &descriptorpb.FileDescriptorProto{
		Name:        proto.String("hoot/test/widget.proto"),
		Package:     proto.String("hoot.test"),
		Syntax:      proto.String("proto3"),
		Dependency:  []string{"hoot/v1/options.proto"},
		MessageType: []*descriptorpb.DescriptorProto{part, widget},
	}
	fd, err := protodesc.NewFile(fdp, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	return fd
}

// newWidget returns a Widget built from its JSON form.
func newWidget(t testing.TB, fd protoreflect.FileDescriptor, js string) proto.Message {
	t.Helper()
	m := dynamicpb.NewMessage(fd.Messages().ByName("Widget"))
	if err := protojson.Unmarshal([]byte(js), m); err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	return m
}

func TestValidateRules(t *testing.T) {
	t.Parallel()
	fd := widgetFile(t)
	// valid is a Widget that breaks no rule; each case changes one thing about it.
	const valid = `"name":"gear","child":{"code":"c"},"a":"aa","maybe":0`
	tests := []struct {
		name string
		json string
		want wantError
	}{
		{name: "valid", json: `{` + valid + `}`},
		{name: "everything", json: `{` + valid + `,"tags":["x","yz"],"parts":[{"id":1,"code":"p"},{"id":10,"code":"q"}],
			"labels":{"k":{"code":"v","id":2}},"score":0.5,"count":"-5","blob":"AAA=","levels":["9",0]}`},
		{name: "name required", json: `{"child":{"code":"c"},"a":"aa","maybe":0}`,
			want: wantError{field: "name", message: "is required", hint: `for example "gear"`}},
		{name: "name too short", json: `{"name":"g","child":{"code":"c"},"a":"aa","maybe":0}`,
			want: wantError{field: "name", message: "must be at least 2 characters, got 1"}},
		{name: "name too long counts characters", json: `{"name":"ééééé","child":{"code":"c"},"a":"aa","maybe":0}`},
		{name: "name too long", json: `{"name":"gearbox","child":{"code":"c"},"a":"aa","maybe":0}`,
			want: wantError{field: "name", message: "must be at most 5 characters, got 7"}},
		{name: "too many tags", json: `{` + valid + `,"tags":["a","b","c"]}`,
			want: wantError{field: "tags", message: "must have at most 2 elements, got 3"}},
		{name: "tag pattern is anchored", json: `{` + valid + `,"tags":["ok","not ok"]}`,
			want: wantError{field: "tags[1]", message: `must match [a-z]+, got "not ok"`}},
		{name: "part in list", json: `{` + valid + `,"parts":[{"id":1,"code":"p"},{"id":11,"code":"p"}]}`,
			want: wantError{field: "parts[1].id", message: "must be at most 10, got 11", hint: "from 1 to 10"}},
		{name: "part in list required", json: `{` + valid + `,"parts":[{"id":1}]}`,
			want: wantError{field: "parts[0].code", message: "is required"}},
		{name: "too many labels", json: `{` + valid + `,"labels":{"a":{"code":"c"},"b":{"code":"c"},"c":{"code":"c"}}}`,
			want: wantError{field: "labels", message: "must have at most 2 elements, got 3"}},
		{name: "label value, first in key order", json: `{` + valid + `,"labels":{"b":{"id":-1,"code":"c"},"a":{"code":"c","id":20}}}`,
			want: wantError{field: "labels[a].id", message: "must be at most 10, got 20"}},
		{name: "child required", json: `{"name":"gear","a":"aa","maybe":0}`,
			want: wantError{field: "child", message: "is required"}},
		{name: "empty child is set", json: `{"name":"gear","child":{},"a":"aa","maybe":0}`,
			want: wantError{field: "child.code", message: "is required"}},
		{name: "score below", json: `{` + valid + `,"score":-0.25}`,
			want: wantError{field: "score", message: "must be at least 0, got -0.25", hint: "from 0 to 1"}},
		{name: "score above", json: `{` + valid + `,"score":1.5}`,
			want: wantError{field: "score", message: "must be at most 1, got 1.5"}},
		{name: "score NaN", json: `{` + valid + `,"score":"NaN"}`,
			want: wantError{field: "score", message: "got NaN"}},
		{name: "count below", json: `{` + valid + `,"count":"-6"}`,
			want: wantError{field: "count", message: "must be at least -5, got -6", hint: "-5 or more"}},
		{name: "blob too short", json: `{` + valid + `,"blob":"AA=="}`,
			want: wantError{field: "blob", message: "must be at least 2 bytes, got 1"}},
		{name: "oneof unset", json: `{"name":"gear","child":{"code":"c"},"maybe":0}`,
			want: wantError{field: "a", message: "is required: set one of a, b"}},
		{name: "oneof other member", json: `{"name":"gear","child":{"code":"c"},"b":3,"maybe":0}`},
		{name: "oneof other member out of range", json: `{"name":"gear","child":{"code":"c"},"b":4,"maybe":0}`,
			want: wantError{field: "b", message: "must be at most 3, got 4"}},
		{name: "oneof member pattern", json: `{"name":"gear","child":{"code":"c"},"a":"ab","maybe":0}`,
			want: wantError{field: "a", message: "must match ^a+$"}},
		{name: "list of numbers", json: `{` + valid + `,"levels":[1,"10"]}`,
			want: wantError{field: "levels[1]", message: "must be at most 9, got 10"}},
		{name: "explicit presence required", json: `{"name":"gear","child":{"code":"c"},"a":"aa"}`,
			want: wantError{field: "maybe", message: "is required"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			checkValidate(t, newWidget(t, fd, tc.json), tc.want)
		})
	}
}

func TestValidateDoesNotAllocate(t *testing.T) {
	fd := widgetFile(t)
	msgs := map[string]proto.Message{
		"cas_get": &hootv1.CasGetRequest{Hash: validHash, Length: 10},
		// A set oneof member of a generated message is left out: protobuf's reflection
		// allocates to read it.
		"cas_store": &hootv1.CasStoreRequest{MimeType: "text/plain"},
		"widget": newWidget(t, fd, `{"name":"gear","child":{"code":"c"},"a":"aa","maybe":0,
			"tags":["x","yz"],"parts":[{"id":1,"code":"p"}],"score":0.5,"count":"-5","blob":"AAA=","levels":[9]}`),
	}
	for name, m := range msgs {
		if err := hooteproto.Validate(m); err != nil { // warms the plan cache
			t.Fatal(err)
		}
		// AllocsPerRun counts the allocations of every goroutine, and one of an earlier test
		// may still be finishing: a Validate that allocates does so in every measurement.
		n := math.Inf(1)
		for range 3 {
			n = min(n, testing.AllocsPerRun(100, func() { _ = hooteproto.Validate(m) }))
		}
		if n != 0 {
			t.Errorf("%s: Validate allocates %v times per call, want 0", name, n)
		}
	}
}

func BenchmarkValidate(b *testing.B) {
	fd := widgetFile(b)
	benchmarks := []struct {
		name string
		msg  proto.Message
	}{
		{"echo", &hootv1.EchoRequest{Message: "hello"}},
		{"cas_get", &hootv1.CasGetRequest{Hash: validHash, Length: 10}},
		{"cas_store", &hootv1.CasStoreRequest{Data: &hootv1.CasStoreRequest_Content{Content: strings.Repeat("abc", 1000)}, MimeType: "text/plain"}},
		{"widget", newWidget(b, fd, `{"name":"gear","child":{"code":"c"},"a":"aa","maybe":0,
			"tags":["x","yz"],"parts":[{"id":1,"code":"p"},{"id":2,"code":"q"}],"labels":{"k":{"code":"v"}},"levels":[9]}`)},
		{"cas_get_invalid", &hootv1.CasGetRequest{Hash: "xyz"}},
	}
	for _, bm := range benchmarks {
		b.Run(bm.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = hooteproto.Validate(bm.msg)
			}
		})
	}
}
