package hooteproto

import (
	"reflect"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// A payloadMember is what the broker and the worker need to know of one member of Payload's
// request oneof on every call: the field, and whether its tool declares itself idempotent.
type payloadMember struct {
	field      protoreflect.FieldDescriptor
	idempotent bool
}

// payloadMembers holds every member of Payload's request oneof by the Go type of its oneof
// wrapper (such as *hootv1.Payload_Echo), read once from the schema. The type of the value in
// Payload.Request names the member set without asking protobuf's reflection which member of the
// oneof is set, which walks the oneof's fields on every call.
var payloadMembers = func() map[reflect.Type]payloadMember {
	members := make(map[reflect.Type]payloadMember)
	fields := requestOneof.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Message() == nil {
			continue
		}
		// Setting the member makes protobuf put its wrapper into Payload.Request.
		p := new(hootv1.Payload)
		m := p.ProtoReflect()
		m.Set(fd, m.NewField(fd))
		opts, _ := proto.GetExtension(fd.Message().Options(), hootv1.E_Tool).(*hootv1.ToolOptions)
		members[reflect.TypeOf(p.GetRequest())] = payloadMember{field: fd, idempotent: opts.GetAnnotations().GetIdempotent()}
	}
	return members
}()

// memberOf returns the member of the request oneof that p holds; ok is false when p holds none.
func memberOf(p *hootv1.Payload) (payloadMember, bool) {
	r := p.GetRequest()
	if r == nil {
		return payloadMember{}, false
	}
	pm, ok := payloadMembers[reflect.TypeOf(r)]
	return pm, ok
}

// isIdempotent reports whether the tool in p declares that running it twice does no harm.
func isIdempotent(p *hootv1.Payload) bool {
	pm, ok := memberOf(p)
	return ok && pm.idempotent
}
