package toolresult

import (
	"encoding/json"

	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
)

// This file writes the JSON of the most frequent answer, a tools/call result with text
// content, without reflection. The bytes are exactly those that json.Marshal writes for the
// same response (encode_test.go compares the two); anything else goes through json.Marshal.

// Marshal returns v, a message the server writes, as JSON: a response by Encode when it can,
// anything else by json.Marshal. Values the server builds always encode; a failure is a fault
// of the program, answered as an internal error so that the client still hears back.
func Marshal(v any) []byte {
	if r, ok := v.(*jsonrpc.Response); ok {
		if b, ok := Encode(r); ok {
			return b
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		if r, ok := v.(*jsonrpc.Response); ok {
			b, _ = json.Marshal(jsonrpc.NewError(r.ID, jsonrpc.CodeInternalError, "internal error: the response could not be encoded", nil))
			return b
		}
		return []byte("{}")
	}
	return b
}

// Encode returns the JSON of r when r is the result of a tools/call whose content is text
// only, and false for every other response.
func Encode(r *jsonrpc.Response) ([]byte, bool) {
	res, ok := r.Result.(Result)
	if !ok || !Fast(r, res) {
		return nil, false
	}
	// Room for everything and some escapes; append grows the buffer in the rare case that
	// more is needed.
	size := 64 + len(r.ID) + len(res.StructuredContent) + len(res.StructuredContent)/16 + len(res.ModernMeta)
	for _, c := range res.Content {
		size += 32 + len(*c.Text) + len(*c.Text)/8
	}
	b := make([]byte, 0, size)
	b = append(b, `{"jsonrpc":`...)
	b = rawjson.AppendString(b, r.JSONRPC)
	b = append(b, `,"id":`...)
	b = rawjson.AppendRaw(b, r.ID)
	b = append(b, `,"result":{"content":`...)
	if res.Content == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, c := range res.Content {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"type":"text","text":`...)
			b = rawjson.AppendString(b, *c.Text)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if len(res.StructuredContent) > 0 {
		b = append(b, `,"structuredContent":`...)
		b = rawjson.AppendRaw(b, res.StructuredContent)
	}
	if res.IsError {
		b = append(b, `,"isError":true`...)
	}
	if res.ModernMeta != nil {
		b = append(b, `,"_meta":`...)
		b = append(b, res.ModernMeta...)
		b = append(b, `,"resultType":"complete"`...)
	}
	return append(b, "}}"...), true
}

// Fast reports whether Encode writes the response r, whose result is res: text content only,
// compact JSON, and no _meta of the legacy kind.
func Fast(r *jsonrpc.Response, res Result) bool {
	if r.Error != nil || len(r.ID) == 0 || !rawjson.IsCompact(r.ID) || !rawjson.IsCompact(res.StructuredContent) || res.Meta != nil {
		return false
	}
	for _, c := range res.Content {
		if c.Type != "text" || c.Text == nil || c.Data != "" || c.MimeType != "" || c.URI != "" ||
			c.Name != "" || c.Description != "" || c.Resource != nil {
			return false
		}
	}
	return true
}
