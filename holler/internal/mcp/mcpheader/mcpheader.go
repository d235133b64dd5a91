// Package mcpheader reads the request headers of the 2026-07-28 era that repeat a member of
// the body, so that a router in front of the server can route without reading it: the value
// codec they share (a value that is not plain ASCII goes as =?base64?...?=), and the arguments
// of a tool that a client repeats in Mcp-Param headers ("Custom Headers from Tool
// Parameters"). It knows nothing of JSON-RPC or of how a mismatch is answered: the mcp
// package checks a request with it and says what is wrong.
package mcpheader

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

// ParamPrefix starts the name of every header that repeats an argument.
const ParamPrefix = "Mcp-Param-"

// A Param is one argument of a tool that clients repeat in a header.
//
// A property of a tool's input schema with "x-mcp-header": "Region" (written by protoc-gen-hoot
// from (hoot.v1.field).header) is repeated by a client in the header Mcp-Param-Region.
type Param struct {
	Property string // the argument's name in the input schema
	Name     string // the header's name after Mcp-Param-, as the schema spells it
	Kind     string // the property's JSON type: "string", "integer" or "boolean"
}

// ParamsOf reads the x-mcp-header annotations of the tools' input schemas: those of the
// arguments' own properties, the only ones the generator writes. Tools without any are left
// out. Each tool's params are in the order of the arguments' names, so that a request with
// several bad headers is always told of the same one first.
func ParamsOf(tools []*hootv1hoot.Tool) map[string][]Param {
	out := make(map[string][]Param)
	for _, t := range tools {
		if !strings.Contains(t.InputSchema, "x-mcp-header") {
			continue
		}
		var schema struct {
			Properties map[string]struct {
				Type   json.RawMessage `json:"type"`
				Header string          `json:"x-mcp-header"`
			} `json:"properties"`
		}
		if json.Unmarshal([]byte(t.InputSchema), &schema) != nil {
			continue
		}
		for prop, ps := range schema.Properties {
			if ps.Header == "" {
				continue
			}
			var kind string
			_ = json.Unmarshal(ps.Type, &kind)
			out[t.Name] = append(out[t.Name], Param{Property: prop, Name: ps.Header, Kind: kind})
		}
		slices.SortFunc(out[t.Name], func(a, b Param) int { return strings.Compare(a.Property, b.Property) })
	}
	return out
}

// DecodeValue reads a header value that may be sent as =?base64?...?=, the form for values
// that are not plain ASCII. A value with that form that does not decode is invalid; one not in
// that full form is taken literally.
func DecodeValue(v string) (string, bool) {
	inner, ok := strings.CutPrefix(v, "=?base64?")
	if !ok {
		return v, true
	}
	inner, ok = strings.CutSuffix(inner, "?=")
	if !ok {
		return v, true
	}
	b, err := base64.StdEncoding.Strict().DecodeString(inner)
	return string(b), err == nil
}

// DecodeParamValue reads an Mcp-Param header value: the =?base64?...?= form decoded (with
// strict padding), any other value taken literally, which must then be printable ASCII.
func DecodeParamValue(v string) (string, bool) {
	decoded, ok := DecodeValue(v)
	if !ok {
		return "", false
	}
	if decoded == v {
		for i := range len(v) {
			if v[i] < 0x20 || v[i] > 0x7e {
				return "", false
			}
		}
	}
	return decoded, true
}

// Matches reports whether a header's decoded value repeats the argument body, the JSON value
// of a property of type kind. Integers compare as numbers, so 42.0 is 42.
func Matches(kind, value string, body json.RawMessage) bool {
	switch kind {
	case "integer":
		want, ok := jsonNumber(body)
		if !ok {
			return false
		}
		got, err := strconv.ParseFloat(value, 64)
		return err == nil && !math.IsInf(got, 0) && got == want
	case "boolean":
		var b bool
		return json.Unmarshal(body, &b) == nil && value == strconv.FormatBool(b)
	default:
		var str string
		return json.Unmarshal(body, &str) == nil && value == str
	}
}

// jsonNumber reads a JSON number, or a string holding one (protojson takes both for integers).
func jsonNumber(body json.RawMessage) (float64, bool) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return 0, false
	}
	text := string(trimmed)
	switch c := trimmed[0]; {
	case c == '"':
		if json.Unmarshal(trimmed, &text) != nil {
			return 0, false
		}
	case strings.IndexByte(`{[tfn`, c) >= 0:
		return 0, false // an object, array, boolean or null
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	return f, err == nil && !math.IsInf(f, 0)
}
