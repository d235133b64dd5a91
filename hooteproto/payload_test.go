package hooteproto

import (
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

// TestPayloadMembers checks the table of the request oneof's members against protobuf's own
// reflection and the generated tool table: every member is found by the type of its wrapper,
// names the field that protobuf says is set, and is idempotent exactly when its tool says so.
func TestPayloadMembers(t *testing.T) {
	fields := requestOneof.Fields()
	seen := 0
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Message() == nil {
			continue
		}
		p := new(hootv1.Payload)
		m := p.ProtoReflect()
		m.Set(fd, m.NewField(fd))
		pm, ok := memberOf(p)
		if !ok {
			t.Errorf("%s: not in the table", fd.Name())
			continue
		}
		seen++
		if pm.field != m.WhichOneof(requestOneof) {
			t.Errorf("%s: the table names field %s", fd.Name(), pm.field.Name())
		}
		if got := RequestOf(p); fd.Name() != "carried" && (got == nil || got.ProtoReflect().Descriptor() != fd.Message()) {
			t.Errorf("%s: RequestOf = %v", fd.Name(), got)
		}
	}
	if seen != len(payloadMembers) || seen < len(hootv1hoot.Tools) {
		t.Errorf("%d members found, the table has %d, the schema %d tools", seen, len(payloadMembers), len(hootv1hoot.Tools))
	}
	for _, tool := range hootv1hoot.Tools {
		p := tool.Wrap(tool.NewRequest())
		if got := isIdempotent(p); got != tool.Annotations.Idempotent {
			t.Errorf("%s: isIdempotent = %v, the tool's annotation says %v", tool.Name, got, tool.Annotations.Idempotent)
		}
	}
}

// BenchmarkIsIdempotent measures what the broker asks of every call's payload.
func BenchmarkIsIdempotent(b *testing.B) {
	p := &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: "hello"}}}
	b.ReportAllocs()
	for b.Loop() {
		if !isIdempotent(p) {
			b.Fatal("echo is idempotent")
		}
	}
}
