package mcp

import (
	"encoding/json"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/arguments"
	"google.golang.org/protobuf/proto"
)

// An argumentError says what is wrong with a tool call's arguments: the message, and the
// field, expectation and value as far as they are known (arguments.Error, as the core reads
// it).
type argumentError struct {
	message    string
	field      string
	expected   string
	got        string
	didYouMean []string
	hint       string
}

// decodeArguments decodes args strictly into a new request message of t and validates it
// (package arguments). Unknown fields and unknown enum names are errors; absent arguments are
// an empty object.
func decodeArguments(t *hootv1hoot.Tool, args json.RawMessage) (proto.Message, *argumentError) {
	m, bad := arguments.Decode(t, args)
	if bad != nil {
		return nil, &argumentError{
			message:    bad.Message,
			field:      bad.Field,
			expected:   bad.Expected,
			got:        bad.Got,
			didYouMean: bad.DidYouMean,
			hint:       bad.Hint,
		}
	}
	return m, nil
}
