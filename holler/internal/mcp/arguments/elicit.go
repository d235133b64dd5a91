package arguments

import (
	"encoding/json"
	"sort"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Arguments a person supplies: a tool's request field marked (hoot.v1.field).elicit may be left
// out by the caller; the server asks a person for it, and fills the answers in here.

// Missing returns the elicited fields of t that req leaves out: those it does not
// have (an empty string, an enum's zero value, an optional left unset).
func Missing(t *hootv1hoot.Tool, req proto.Message) []hootv1hoot.ElicitField {
	if len(t.Elicit) == 0 {
		return nil
	}
	m := req.ProtoReflect()
	fields := m.Descriptor().Fields()
	var missing []hootv1hoot.ElicitField
	for _, f := range t.Elicit {
		if fd := fields.ByName(protoreflect.Name(f.Name)); fd != nil && !m.Has(fd) {
			missing = append(missing, f)
		}
	}
	return missing
}

// Fill returns the arguments of t that args (the caller's, which decoded) and the
// person's answers make together, decoded and validated like any arguments. An answer replaces
// the member of its field, under either of the field's names.
func Fill(t *hootv1hoot.Tool, args json.RawMessage, answers map[string]json.RawMessage) (proto.Message, *Error) {
	merged := map[string]json.RawMessage{}
	if rawjson.Kind(args) == "object" {
		if err := json.Unmarshal(args, &merged); err != nil {
			return nil, &Error{Message: "the arguments do not read as an object: " + err.Error()}
		}
	}
	fields := t.NewRequest().ProtoReflect().Descriptor().Fields()
	names := make([]string, 0, len(answers))
	for name := range answers {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fd := fields.ByName(protoreflect.Name(name))
		if fd == nil {
			continue
		}
		delete(merged, fd.JSONName())
		merged[name] = answers[name]
	}
	doc, err := json.Marshal(merged)
	if err != nil {
		return nil, &Error{Message: err.Error()}
	}
	return Decode(t, doc)
}
