// Package genhoot is the code generator behind protoc-gen-hoot. For the proto file that
// defines the Payload message it writes, into the Go package <go package>/<name>hoot:
//
//   - tools.hoot.go: the gateway's tool table, one Tool per member of the Payload oneof (in
//     Tools, or in Fixtures for the fixtures), with
//     the tool's options, the JSON Schemas of its arguments and of its result, a usage line, a
//     valid example call, and the numbers of its members of the Payload and Result oneofs; a
//     constant per tool name; and one set of methods, the same for every tool, that make a
//     request, wrap it in a Payload and unwrap the answer from a Result by those numbers;
//   - services.hoot.go: per worker service, a handler interface with one method per tool, a
//     NewXService constructor whose dispatch is an exhaustive type switch on the Payload oneof,
//     and an XServiceName constant.
//
// Generated code imports only context, errors, fmt, the schema's Go package and
// google.golang.org/protobuf, so the generated module stays a leaf.
//
// # Refusals
//
// The generator refuses a schema, with an error that names the proto element and says how to
// fix it, when a Payload member's message has no (hoot.v1.tool) option, a message with the
// option is not in Payload, a tool has no result in the Result oneof, a Result member is the
// result of no tool, a tool or service name is missing, malformed or taken twice, the tier or
// kind is unset, a (hoot.v1.field) rule does not fit its field's type, a pattern is not RE2, a
// request message is recursive, a tool of the product carries a literal input schema
// (fixture_input_schema, for fixtures only), or an example (a field's, or the tool's example
// call) is not valid JSON for the request or breaks the request's rules.
//
// # Carried schemas
//
// A schema may carry another: its Payload and Result then have a google.protobuf.Any member
// each, and the carried schema's Payload file has the option (hoot.v1.carried). The carried
// schema's tools are written in the carrier's Tool type, each naming its Envelope (the carried
// Payload and Result), and the carrier's Tool methods pack a request into the Any and unpack the
// answer; its services are the carrier's Service type, made with NewService, whose dispatch
// unpacks the call and packs the answer. A carried schema needs no ToolError in its Result
// (errors come in the carrier's), and its tools of kind JOB answer with the carrier's
// JobStarted. This is how the conformance fixtures (hoot.conformance.v1) stay out of hoot.v1:
// hoot.v1 names no fixture, and imports nothing of them.
//
// # Fixtures
//
// The tools of a file marked `option (hoot.v1.fixtures) = true;` are test fixtures (the MCP
// conformance suite's), not the product's: tools.hoot.go lists them in Fixtures rather than in
// Tools, so that a gateway serves them only when it is told to. Their services and handler
// interfaces are generated like any other.
//
// # Examples
//
// A field's example is written as its value appears in JSON, without the quotes of a string:
// "hello" for a string, 42 for a number, TIER_BASIC for an enum, a JSON object for a message or
// a map. For a repeated field of scalars it is one element; for a repeated message field, the
// whole JSON list.
package genhoot

import (
	"fmt"
	"go/token"
	"path"
	"strconv"

	"google.golang.org/protobuf/compiler/protogen"
)

const (
	// DefaultPackageSuffix is appended to the schema's Go package name (and path) to name the
	// generated package: hootv1 gives hootv1hoot.
	DefaultPackageSuffix = "hoot"

	generatedFilenameExtension = ".hoot.go"

	contextPackage = protogen.GoImportPath("context")
	errorsPackage  = protogen.GoImportPath("errors")
	fmtPackage     = protogen.GoImportPath("fmt")
	protoPackage   = protogen.GoImportPath("google.golang.org/protobuf/proto")

	protoreflectPackage = protogen.GoImportPath("google.golang.org/protobuf/reflect/protoreflect")
	anypbPackage        = protogen.GoImportPath("google.golang.org/protobuf/types/known/anypb")
)

// Options are the plugin's parameters.
type Options struct {
	// PackageSuffix names the generated package; "" means DefaultPackageSuffix.
	PackageSuffix string
}

// GenerateFile generates the tool table and the services of the schema whose Payload message
// file defines. A file without a Payload message gives nothing.
func GenerateFile(plugin *protogen.Plugin, file *protogen.File, opts Options) error {
	payload := findMessage(file.Messages, payloadName)
	if payload == nil {
		return nil
	}
	suffix := opts.PackageSuffix
	if suffix == "" {
		suffix = DefaultPackageSuffix
	}
	c, err := newCatalog(plugin, file, payload, suffix)
	if err != nil {
		return err
	}
	var bad refusals
	checker := newRequestChecker(&bad)
	for _, t := range c.tools {
		checker.check(t.request)
	}
	if len(bad) > 0 {
		return bad.err()
	}
	for _, t := range c.tools {
		if t.opts.GetFixtureInputSchema() != "" {
			s, ok := fixtureInputSchema(t, &bad)
			if !ok {
				continue
			}
			t.inputSchema = s
		} else {
			t.inputSchema = newSchemaBuilder(true).schema(t.request).String()
		}
		out := newSchemaBuilder(false)
		out.envelope = c.result.Desc.FullName()
		t.outputSchema = out.schema(t.answerField.Message).String()
		t.usage = usage(t.opts.GetName(), t.request)
		example, ok := compactJSON(exampleObject(t.request))
		if !ok {
			bad.add("%s: the example call of tool %q, %s, is not JSON: fix the examples of its fields (a string's example goes without quotes)",
				t.request.Desc.FullName(), t.opts.GetName(), exampleObject(t.request))
			continue
		}
		t.example = example
		checkToolExample(t, &bad)
		t.elicit = checkElicit(t, &bad)
	}
	if len(bad) > 0 {
		return bad.err()
	}

	pkg := protogen.GoPackageName(string(file.GoPackageName) + suffix)
	if !token.IsIdentifier(string(pkg)) {
		return fmt.Errorf("protoc-gen-hoot: package_suffix %q does not make a valid Go package name (%q): use letters and digits", suffix, pkg)
	}
	importPath := protogen.GoImportPath(path.Join(string(file.GoImportPath), string(pkg)))
	dir := path.Join(path.Dir(file.GeneratedFilenamePrefix), string(pkg))

	g := plugin.NewGeneratedFile(path.Join(dir, "tools"+generatedFilenameExtension), importPath)
	generateTools(g, c, pkg)
	g = plugin.NewGeneratedFile(path.Join(dir, "services"+generatedFilenameExtension), importPath)
	generateServices(g, c, pkg)
	return nil
}

// generatePreamble writes the header, the package doc (once, in tools.hoot.go) and the
// package clause.
func generatePreamble(g *protogen.GeneratedFile, c *catalog, pkg protogen.GoPackageName, doc bool) {
	g.P("// Code generated by protoc-gen-hoot. DO NOT EDIT.")
	g.P("// Source: ", c.file.Desc.Path())
	g.P()
	if doc {
		wrapComment(g, "", "Package "+string(pkg)+" holds what protoc-gen-hoot generates for the "+
			string(c.file.Desc.Package())+" schema: the gateway's tool table and the worker's handler interfaces with their dispatch.")
	}
	g.P("package ", pkg)
	g.P()
}

// goString returns s as a Go string literal: a raw one when it reads better and is exact.
func goString(s string) string {
	raw := true
	for _, r := range s {
		if r == '`' || r == '\r' || r == '\n' || r == '\ufeff' {
			raw = false
			break
		}
	}
	if raw && s != "" {
		return "`" + s + "`"
	}
	return strconv.Quote(s)
}

func formatUint(n uint64) string { return strconv.FormatUint(n, 10) }
