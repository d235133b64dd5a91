package mcp

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/content"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/toollist"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
)

// TestEncodeMatchesMarshal checks that encode writes what json.Marshal writes, whether or not
// the tool result's fast encoder takes the response.
func TestEncodeMatchesMarshal(t *testing.T) {
	t.Parallel()
	sc := json.RawMessage(`{"a":1}`)
	for _, resp := range []*jsonrpc.Response{
		jsonrpc.NewResult(json.RawMessage("7"), toolresult.Result{Content: []content.Block{content.Text("x <&>")}, StructuredContent: sc}),
		jsonrpc.NewResult(json.RawMessage(" 7 "), toolresult.Result{Content: []content.Block{content.Text("x")}}),
		jsonrpc.NewResult(json.RawMessage("7"), toolresult.Result{StructuredContent: json.RawMessage(`{"a": 1}`)}),
		jsonrpc.NewResult(json.RawMessage("7"), toolresult.Result{Content: []content.Block{{Type: "image", Data: "AA=="}}}),
		jsonrpc.NewResult(json.RawMessage("7"), toollist.Result{}),
		jsonrpc.NewError(json.RawMessage("7"), jsonrpc.CodeInternalError, "x", nil),
	} {
		want, err := json.Marshal(resp)
		if err != nil {
			t.Fatal(err)
		}
		if got := toolresult.Marshal(resp); !bytes.Equal(got, want) {
			t.Errorf("toolresult.Marshal(%+v) = %s, want %s", resp, got, want)
		}
	}
}
