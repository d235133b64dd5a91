package upstream

// A Shape says how the codec maps a generated message onto JSON, for the messages that do
// not map field by field onto an object's properties.
type Shape int

const (
	// ShapeObject is a JSON object whose properties are the message's fields, by JSON name.
	ShapeObject Shape = iota
	// ShapeUnion is a value of one of several kinds (a string or an object, say): the
	// message has one field per kind, and the kind of the JSON value picks the field.
	ShapeUnion
	// ShapeList is a JSON array held in the message's one repeated field, for a list inside
	// a list or a map, which protobuf cannot say directly.
	ShapeList
	// ShapeMap is a JSON object held in the message's one map field, for a map inside a list.
	ShapeMap
)

// GoName is the constant's name, for generated code.
func (s Shape) GoName() string {
	switch s {
	case ShapeUnion:
		return "ShapeUnion"
	case ShapeList:
		return "ShapeList"
	case ShapeMap:
		return "ShapeMap"
	}
	return "ShapeObject"
}
