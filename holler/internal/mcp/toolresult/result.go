// Package toolresult is tools/call's answer: a tool's typed result as structured content and
// content blocks, a failure as a result with isError, and the fast encoder of the most frequent
// one. It knows the tools only through their generated messages.
package toolresult

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/hootenanny/hoot/holler/internal/mcp/content"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// Result is tools/call's answer.
type Result struct {
	Content           []content.Block `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent,omitempty"`
	IsError           bool            `json:"isError,omitempty"`
	Meta              *Meta           `json:"_meta,omitempty"`
	// ModernMeta, set only on a result that Encode writes (see Fast), is the _meta of a
	// 2026-07-28 result, already encoded; with it the result is "complete".
	ModernMeta []byte `json:"-"`
	// Code is the failure's code, for traces, when IsError is set.
	Code hooteproto.Code `json:"-"`
}

// Meta is the _meta of a tool result.
type Meta struct {
	// Guidance is the data of a failure that the gateway itself answered, as error.data holds
	// it for a JSON-RPC error: the hint and, for a call the policy refused, its decision. It
	// cannot be structuredContent, which must conform to the tool's output schema.
	Guidance *guidance.Data `json:"hootenanny/guidance,omitempty"`
}

// resultJSON is how a typed result becomes structuredContent: field names as the schema has
// them, and every field present, so that the output schema's properties are always there.
var resultJSON = protojson.MarshalOptions{UseProtoNames: true, EmitDefaultValues: true}

// ErrEncode is the error of Typed for a result that protojson cannot encode.
var ErrEncode = errors.New("the result could not be encoded as JSON")

// Typed renders the typed result m of a tool: m's JSON, compact, as structured content, and as
// content the blocks m carries (hoot.v1.Content fields) or, without any, its JSON text. With
// nested, the content of results embedded in m (a finished job's, in job_await's answer)
// follows. Under a non-empty base, links to the artifacts m names end the content.
func Typed(m proto.Message, base string, nested bool) (Result, error) {
	b, flat := appendFlat(make([]byte, 0, 128), m.ProtoReflect())
	if !flat {
		var err error
		if b, err = resultJSON.Marshal(m); err != nil {
			return Result{}, fmt.Errorf("%w: %v", ErrEncode, err)
		}
		// protojson varies its whitespace on purpose; compact output is stable and smaller.
		b = rawjson.CompactValid(b)
	}
	blocks := content.Of(m)
	if len(blocks) == 0 {
		blocks = []content.Block{content.Text(string(b))}
	}
	if nested {
		blocks = append(blocks, content.Nested(m)...)
	}
	if base != "" {
		blocks = append(blocks, refLinks(m, base)...)
	}
	return Result{Content: blocks, StructuredContent: b}, nil
}

// Failure renders a tool's failure as a tool result with isError and no structured content:
// the failure does not conform to the tool's output schema.
func Failure(tool string, e *hooteproto.Error) Result {
	return Result{
		Content: []content.Block{content.Text(ErrorText(tool, e))},
		IsError: true,
		Code:    e.Code(),
	}
}

// Guided renders a failure that the gateway answered itself, with its data g: for a model in
// the text, and for programs in _meta, since structuredContent must conform to the tool's
// output schema.
func Guided(tool string, e *hooteproto.Error, g *guidance.Data) Result {
	text := ErrorText(tool, e)
	if g != nil && g.Policy != nil {
		text += "\npolicy: " + g.Policy.String()
	}
	return Result{
		Content: []content.Block{content.Text(text)},
		IsError: true,
		Meta:    &Meta{Guidance: g},
		Code:    e.Code(),
	}
}

// BadArguments renders arguments that do not decode or validate as a result with isError, with
// the guidance g that -32602 would carry in its data, so that the model sees it.
func BadArguments(msg string, g *guidance.Data) Result {
	return Result{
		Content: []content.Block{content.Text(guidance.ArgumentText(msg, g))},
		IsError: true,
		Code:    hooteproto.CodeInvalidArgument,
	}
}

// ErrorText renders a tool's failure for a model: what failed and why, the argument it is
// about, the next step, and whether and when a retry can help.
func ErrorText(tool string, e *hooteproto.Error) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s failed (%s): %s", tool, e.Code(), e.Message())
	if e.Field() != "" {
		fmt.Fprintf(&b, "\nfield: %s", e.Field())
	}
	if e.Hint() != "" {
		fmt.Fprintf(&b, "\nhint: %s", e.Hint())
	}
	switch {
	case e.Retryable() && e.RetryAfter() > 0:
		fmt.Fprintf(&b, "\nretryable: yes, after %s", e.RetryAfter().Round(time.Millisecond))
	case e.Retryable():
		b.WriteString("\nretryable: yes")
	default:
		b.WriteString("\nretryable: no; the same call will fail again")
	}
	return b.String()
}
