package hooteproto

import (
	"github.com/hootenanny/hoot/hooteproto/internal/fieldrules"
	"google.golang.org/protobuf/proto"
)

// Validate checks m against the (hoot.v1.field) rules of its fields and of every message it
// holds (set message fields, list elements and map values) and returns the first violation as
// an *Error with [CodeInvalidArgument]. The error's field is the JSON path of the offending
// value in proto names, dotted, with [i] for list elements and [key] for map values, such as
// "items[2].name". A nil m, or one without rules, is valid. A pattern rule that does not
// compile is the schema's fault and gives [CodeInternal] (protoc-gen-hoot refuses such rules).
//
// The rules mean:
//   - required: a scalar is non-zero, a string or bytes non-empty, a message set, a list or
//     map non-empty; on a oneof member, some member of that oneof is set;
//   - min_length, max_length: characters of a string, bytes of a bytes field, elements of a
//     list or entries of a map;
//   - minimum, maximum (with has_minimum, has_maximum): inclusive bounds of a number, or of
//     each number of a list;
//   - pattern: an RE2 expression that a whole string, or each string of a list, must match
//     (it is anchored at both ends whether or not it says so itself).
//
// Bounds and patterns apply only to values that are set: an absent field is checked by
// required alone. Validate does not allocate unless it has something to report, apart from
// walking the values of a map of messages (and one allocation inside protobuf's reflection
// when it reads a set scalar oneof member of a generated message).
func Validate(m proto.Message) error {
	if m == nil {
		return nil
	}
	v := fieldrules.Check(m.ProtoReflect())
	if v == nil {
		return nil
	}
	code := CodeInvalidArgument
	if v.SchemaFault {
		code = CodeInternal
	}
	e := NewError(code, v.Message).WithField(v.Field)
	if v.Hint != "" {
		e.WithHint(v.Hint)
	}
	return e
}
