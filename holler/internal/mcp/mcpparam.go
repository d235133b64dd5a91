package mcp

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/guidance"
	"github.com/hootenanny/hoot/holler/internal/mcp/mcpheader"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
	"github.com/hootenanny/hoot/holler/internal/mcp/wording"
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

// checkParamHeaders checks the Mcp-Param headers of a tools/call against its arguments.
func (s *Server) checkParamHeaders(r *http.Request, id json.RawMessage, p era.Params) *modernFailure {
	if rawjson.Kind(p.Name) != "string" {
		return nil // tools/call answers a call without a name
	}
	name, err := rawjson.Unquote(p.Name)
	if err != nil {
		return nil
	}
	params := s.paramHeaders[name]
	if len(params) == 0 {
		return nil
	}
	var args map[string]json.RawMessage
	if rawjson.Kind(p.Arguments) == "object" {
		_ = json.Unmarshal(p.Arguments, &args)
	}
	for _, ph := range params {
		header := mcpheader.ParamPrefix + ph.Name
		values := r.Header.Values(header)
		body, inBody := args[ph.Property]
		if rawjson.Kind(body) == "null" {
			inBody = false
		}
		field := "params.arguments." + ph.Property
		fail := func(text, expected, got string) *modernFailure {
			return &modernFailure{status: http.StatusBadRequest, resp: s.modernError(id, era.CodeHeaderMismatch, "header mismatch: "+text, &guidance.Data{
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
			return fail("the "+header+" header is sent but "+field+" has no value", "no "+header+" header", wording.Short(values[0]))
		case len(values) == 0:
			return fail("the "+header+" header is missing; it must repeat "+field+" ("+wording.Short(string(body))+")", wording.Short(string(body)), "")
		case len(values) > 1:
			return fail("the "+header+" header is sent "+strconv.Itoa(len(values))+" times", "one "+header+" header", wording.Short(strings.Join(values, ", ")))
		}
		got := strings.TrimSpace(values[0])
		value, ok := mcpheader.DecodeParamValue(got)
		if !ok {
			return fail("the "+header+" header "+wording.Quote(got)+" has characters a header value cannot carry as it is, or a =?base64?...?= form that does not decode", wording.Short(string(body)), wording.Short(got))
		}
		if !mcpheader.Matches(ph.Kind, value, body) {
			return fail(header+" header "+wording.Quote(got)+" does not match "+field+" "+wording.Short(string(body)), wording.Short(string(body)), wording.Short(got))
		}
	}
	return nil
}
