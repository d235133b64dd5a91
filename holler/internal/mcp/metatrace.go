package mcp

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/hootenanny/hoot/hooteproto"
)

// Trace context in _meta.
//
// MCP reserves three keys of a request's params._meta for W3C trace context: traceparent,
// tracestate and baggage. A valid traceparent there makes the request part of the client's
// trace, in either era and over either transport: the call to the worker goes out as a child
// span of it (hooteproto carries a traceparent in every frame), so the worker's logs name the
// client's trace id. It takes the place of a Traceparent HTTP header, being the more specific
// of the two. tracestate and baggage are accepted and go no further: the frame has room for the
// traceparent only. A malformed traceparent is ignored, as W3C Trace Context asks, and never
// fails the request.

// withMetaTrace returns ctx joined to the trace that params._meta names, if it names one.
func withMetaTrace(ctx context.Context, params json.RawMessage) context.Context {
	// Most requests carry no trace context: looking for the key first spares them the decoding.
	if !bytes.Contains(params, []byte(`"traceparent"`)) {
		return ctx
	}
	var p struct {
		Meta struct {
			Traceparent json.RawMessage `json:"traceparent"`
		} `json:"_meta"`
	}
	var tp string
	if json.Unmarshal(params, &p) != nil || json.Unmarshal(p.Meta.Traceparent, &tp) != nil || !hooteproto.ValidTraceparent(tp) {
		return ctx
	}
	return hooteproto.WithTraceparent(ctx, tp)
}
