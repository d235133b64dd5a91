package mcp

import (
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

// Headers from tool arguments (MCP 2026-07-28, "Custom Headers from Tool Parameters").
//
// A property of a tool's input schema with "x-mcp-header": "Region" (written by protoc-gen-hoot
// from (hoot.v1.field).header) is repeated by a client in the header Mcp-Param-Region, so that
// a router in front of this server can route on it without reading the body. This server reads
// the body, so it checks every such header against the argument: a header that is missing while
// the argument has a value, that is there while the argument is not, that does not decode, or
// that disagrees with the argument, is refused with 400 and -32020 before the call goes
// anywhere. A value may come as =?base64?...?= (the form for values that are not plain ASCII);
// one not in that full form is taken literally. Integers compare as numbers, so 42.0 is 42.

// headerParamPrefix starts the name of every header that repeats an argument.
const headerParamPrefix = "Mcp-Param-"

// A paramHeader is one argument of a tool that clients repeat in a header.
type paramHeader struct {
	property string // the argument's name in the input schema
	name     string // the header's name after Mcp-Param-, as the schema spells it
	kind     string // the property's JSON type: "string", "integer" or "boolean"
}

// paramHeadersOf reads the x-mcp-header annotations of the tools' input schemas: those of the
// arguments' own properties, the only ones the generator writes. Tools without any are left out.
func paramHeadersOf(tools []*hootv1hoot.Tool) map[string][]paramHeader {
	out := make(map[string][]paramHeader)
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
			out[t.Name] = append(out[t.Name], paramHeader{property: prop, name: ps.Header, kind: kind})
		}
		// In the order of the arguments' names, so that a request with several bad headers is
		// always told of the same one first.
		slices.SortFunc(out[t.Name], func(a, b paramHeader) int { return strings.Compare(a.property, b.property) })
	}
	return out
}

// checkParamHeaders checks the Mcp-Param headers of a tools/call against its arguments.
func (s *Server) checkParamHeaders(r *http.Request, id json.RawMessage, p modernParams) *modernFailure {
	var name string
	if kindOf(p.Name) != "string" || json.Unmarshal(p.Name, &name) != nil {
		return nil // tools/call answers a call without a name
	}
	params := s.paramHeaders[name]
	if len(params) == 0 {
		return nil
	}
	var args map[string]json.RawMessage
	if kindOf(p.Arguments) == "object" {
		_ = json.Unmarshal(p.Arguments, &args)
	}
	for _, ph := range params {
		header := headerParamPrefix + ph.name
		values := r.Header.Values(header)
		body, inBody := args[ph.property]
		if kindOf(body) == "null" {
			inBody = false
		}
		field := "params.arguments." + ph.property
		fail := func(text, expected, got string) *modernFailure {
			return &modernFailure{status: http.StatusBadRequest, resp: s.modernError(id, codeHeaderMismatch, "header mismatch: "+text, &guidance{
				Hint:     "Send the header " + header + " with the value of " + field + " whenever the argument has one, and only then: a string as it is (as =?base64?...?= when it is not plain printable ASCII or has spaces at its ends), an integer in decimal, a boolean as true or false.",
				Field:    header,
				Expected: expected,
				Got:      got,
			})}
		}
		switch {
		case !inBody && len(values) == 0:
			continue
		case !inBody:
			return fail("the "+header+" header is sent but "+field+" has no value", "no "+header+" header", short(values[0]))
		case len(values) == 0:
			return fail("the "+header+" header is missing; it must repeat "+field+" ("+short(string(body))+")", short(string(body)), "")
		case len(values) > 1:
			return fail("the "+header+" header is sent "+strconv.Itoa(len(values))+" times", "one "+header+" header", short(strings.Join(values, ", ")))
		}
		got := strings.TrimSpace(values[0])
		value, ok := decodeParamValue(got)
		if !ok {
			return fail("the "+header+" header "+quote(got)+" has characters a header value cannot carry as it is, or a =?base64?...?= form that does not decode", short(string(body)), short(got))
		}
		if !paramMatches(ph.kind, value, body) {
			return fail(header+" header "+quote(got)+" does not match "+field+" "+short(string(body)), short(string(body)), short(got))
		}
	}
	return nil
}

// decodeParamValue reads an Mcp-Param header value: the =?base64?...?= form decoded (with
// strict padding), any other value taken literally, which must then be printable ASCII.
func decodeParamValue(v string) (string, bool) {
	decoded, ok := decodeHeaderValue(v)
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

// paramMatches reports whether a header's decoded value repeats the argument body, the JSON
// value of a property of type kind.
func paramMatches(kind, value string, body json.RawMessage) bool {
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
	text := string(body)
	if kindOf(body) == "string" {
		if json.Unmarshal(body, &text) != nil {
			return 0, false
		}
	} else if kindOf(body) != "number" {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(text), 64)
	return f, err == nil && !math.IsInf(f, 0)
}
