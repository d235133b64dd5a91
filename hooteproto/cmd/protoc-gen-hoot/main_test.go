package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"github.com/hootenanny/hoot/hooteproto/cmd/protoc-gen-hoot/internal/genhoot"
	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/pluginpb"
)

var update = flag.Bool("update", false, "rewrite the golden files under internal/testdata")

const (
	testdataDir = "internal/testdata"
	// The schema and the generated code of the repository, relative to this package.
	schemaDir = "../../../proto"
	genDir    = "../../../gen"
)

// TestMain lets a test run this binary as the plugin itself, the way buf runs it.
func TestMain(m *testing.M) {
	if os.Getenv("PROTOC_GEN_HOOT_AS_PLUGIN") == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// compile parses and links the named .proto files, found in dirs, and returns them and every
// file they import as FileDescriptorProtos, each after the files it imports.
func compile(t *testing.T, dirs []string, names ...string) []*descriptorpb.FileDescriptorProto {
	t.Helper()
	return compileWith(t, &protocompile.SourceResolver{ImportPaths: dirs}, names...)
}

// compileWith is compile with the sources found by r.
func compileWith(t *testing.T, r protocompile.Resolver, names ...string) []*descriptorpb.FileDescriptorProto {
	t.Helper()
	c := protocompile.Compiler{
		Resolver:       protocompile.WithStandardImports(r),
		SourceInfoMode: protocompile.SourceInfoStandard,
	}
	files, err := c.Compile(context.Background(), names...)
	if err != nil {
		t.Fatalf("compile %v: %v", names, err)
	}
	var out []*descriptorpb.FileDescriptorProto
	seen := make(map[string]bool)
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) {
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		imports := fd.Imports()
		for i := 0; i < imports.Len(); i++ {
			add(imports.Get(i).FileDescriptor)
		}
		if r, ok := fd.(linker.Result); ok {
			out = append(out, r.FileDescriptorProto())
		} else {
			out = append(out, protodesc.ToFileDescriptorProto(fd))
		}
	}
	for _, f := range files {
		add(f)
	}
	return out
}

// newRequest returns the request buf would send to generate the named files.
func newRequest(files []*descriptorpb.FileDescriptorProto, param string, names ...string) *pluginpb.CodeGeneratorRequest {
	return &pluginpb.CodeGeneratorRequest{
		FileToGenerate: names,
		Parameter:      proto.String(param),
		ProtoFile:      files,
	}
}

// generate runs the plugin on req in this process, as main does.
func generate(t *testing.T, req *pluginpb.CodeGeneratorRequest) *pluginpb.CodeGeneratorResponse {
	t.Helper()
	// Go through the wire form, so that the options are read back with the linked extension
	// types, as they are when buf sends the request.
	b, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	req = new(pluginpb.CodeGeneratorRequest)
	if err := proto.Unmarshal(b, req); err != nil {
		t.Fatal(err)
	}
	flags, opts := params()
	plugin, err := protogen.Options{ParamFunc: flags.Set}.New(req)
	if err != nil {
		t.Fatal(err)
	}
	if err := run(plugin, *opts); err != nil {
		plugin.Error(err)
	}
	return plugin.Response()
}

// generateCase generates the test case in internal/testdata/<name>/<name>.proto.
func generateCase(t *testing.T, name, param string) *pluginpb.CodeGeneratorResponse {
	t.Helper()
	file := name + ".proto"
	files := compile(t, []string{filepath.Join(testdataDir, name), schemaDir}, file)
	return generate(t, newRequest(files, param, file))
}

// realSchemaFiles returns the names of the repository's .proto files.
func realSchemaFiles(t *testing.T) []string {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(schemaDir, "hoot", "v1", "*.proto"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no schema under %s: %v", schemaDir, err)
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i], _ = filepath.Rel(schemaDir, p)
		names[i] = filepath.ToSlash(names[i])
	}
	return names
}

func generateRealSchema(t *testing.T) *pluginpb.CodeGeneratorResponse {
	t.Helper()
	names := realSchemaFiles(t)
	return generate(t, newRequest(compile(t, []string{schemaDir}, names...), "paths=source_relative", names...))
}

// checkGolden compares got with the golden file at path, or rewrites it under -update.
func checkGolden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from what the plugin generates (run go test -update if the change is intended):\n%s",
			path, firstDifference(string(want), string(got)))
	}
}

// firstDifference shows the first line where want and got differ.
func firstDifference(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\nwant: %s\n got: %s", i+1, wl, gl)
		}
	}
	return "(the same lines; the files differ in their line ends)"
}

// schemaReport extracts from a generated tools.hoot.go the name, usage, example and schemas of
// every tool, with the schemas indented, for golden files that read well in a diff.
func schemaReport(t *testing.T, tools string) []byte {
	t.Helper()
	field := regexp.MustCompile(`(?m)^\t\t(Name|Usage|Example|InputSchema|OutputSchema):\s+(.*),$`)
	var b bytes.Buffer
	for _, m := range field.FindAllStringSubmatch(tools, -1) {
		key, lit := m[1], m[2]
		val := unquote(t, lit)
		switch key {
		case "Name":
			fmt.Fprintf(&b, "== %s\n", val)
		case "Usage", "Example":
			fmt.Fprintf(&b, "%s: %s\n", strings.ToLower(key), val)
		default:
			if !json.Valid([]byte(val)) {
				t.Errorf("%s is not JSON: %s", key, val)
				continue
			}
			var out bytes.Buffer
			_ = json.Indent(&out, []byte(val), "", "  ")
			fmt.Fprintf(&b, "%s:\n%s\n", strings.ToLower(key[:1])+key[1:], out.String())
		}
	}
	return b.Bytes()
}

func unquote(t *testing.T, lit string) string {
	t.Helper()
	if strings.HasPrefix(lit, "`") {
		return strings.Trim(lit, "`")
	}
	var s string
	if err := json.Unmarshal([]byte(lit), &s); err != nil {
		t.Fatalf("unquote %s: %v", lit, err)
	}
	return s
}

func fileNamed(rsp *pluginpb.CodeGeneratorResponse, suffix string) *pluginpb.CodeGeneratorResponse_File {
	for _, f := range rsp.GetFile() {
		if strings.HasSuffix(f.GetName(), suffix) {
			return f
		}
	}
	return nil
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"kinds", "minimal"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rsp := generateCase(t, name, "paths=source_relative")
			if rsp.Error != nil {
				t.Fatalf("refused: %s", rsp.GetError())
			}
			if len(rsp.GetFile()) != 2 {
				t.Fatalf("got %d files, want tools and services", len(rsp.GetFile()))
			}
			for _, f := range rsp.GetFile() {
				checkGolden(t, filepath.Join(testdataDir, name, "gen", f.GetName()+".golden"), []byte(f.GetContent()))
			}
			tools := fileNamed(rsp, "/tools.hoot.go")
			checkGolden(t, filepath.Join(testdataDir, name, "schemas.golden"), schemaReport(t, tools.GetContent()))
		})
	}
}

func TestRealSchema(t *testing.T) {
	t.Parallel()
	rsp := generateRealSchema(t)
	if rsp.Error != nil {
		t.Fatalf("refused: %s", rsp.GetError())
	}
	tools := fileNamed(rsp, "hootv1hoot/tools.hoot.go")
	if tools == nil {
		t.Fatalf("no tools.hoot.go among %d files", len(rsp.GetFile()))
	}
	checkGolden(t, filepath.Join(testdataDir, "hoot_v1", "schemas.golden"), schemaReport(t, tools.GetContent()))
}

// TestCommittedCode checks that gen/ holds what the plugin generates for the schema today, as
// `make generate` followed by a clean `git status` does in CI.
func TestCommittedCode(t *testing.T) {
	t.Parallel()
	rsp := generateRealSchema(t)
	if rsp.Error != nil {
		t.Fatalf("refused: %s", rsp.GetError())
	}
	want := map[string]bool{"hoot/v1/hootv1hoot/tools.hoot.go": true, "hoot/v1/hootv1hoot/services.hoot.go": true}
	for _, f := range rsp.GetFile() {
		if !want[f.GetName()] {
			t.Errorf("unexpected file %s", f.GetName())
			continue
		}
		delete(want, f.GetName())
		committed, err := os.ReadFile(filepath.Join(genDir, f.GetName()))
		if err != nil {
			t.Errorf("%v: run buf generate", err)
			continue
		}
		if string(committed) != f.GetContent() {
			t.Errorf("gen/%s is not what the plugin generates; run buf generate:\n%s",
				f.GetName(), firstDifference(string(committed), f.GetContent()))
		}
	}
	for name := range want {
		t.Errorf("the plugin did not generate %s", name)
	}
}

// TestAsPlugin runs the test binary as the plugin, with the request on standard input, as buf
// does.
func TestAsPlugin(t *testing.T) {
	t.Parallel()
	names := realSchemaFiles(t)
	req := newRequest(compile(t, []string{schemaDir}, names...), "paths=source_relative,package_suffix=api", names...)
	in, err := proto.Marshal(req)
	if err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "PROTOC_GEN_HOOT_AS_PLUGIN=1")
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("plugin: %v\n%s", err, stderr.String())
	}
	rsp := new(pluginpb.CodeGeneratorResponse)
	if err := proto.Unmarshal(out, rsp); err != nil {
		t.Fatal(err)
	}
	if rsp.Error != nil {
		t.Fatalf("refused: %s", rsp.GetError())
	}
	if rsp.GetSupportedFeatures()&uint64(pluginpb.CodeGeneratorResponse_FEATURE_PROTO3_OPTIONAL) == 0 {
		t.Error("the plugin does not announce proto3 optional support")
	}
	var got []string
	for _, f := range rsp.GetFile() {
		got = append(got, f.GetName())
		if !strings.Contains(f.GetContent(), "\npackage hootv1api\n") {
			t.Errorf("%s is not in package hootv1api", f.GetName())
		}
	}
	slices.Sort(got)
	if want := "hoot/v1/hootv1api/services.hoot.go hoot/v1/hootv1api/tools.hoot.go"; strings.Join(got, " ") != want {
		t.Errorf("files = %v, want %s", got, want)
	}
	if stderr.Len() > 0 {
		t.Errorf("the plugin wrote to standard error: %s", stderr.String())
	}
}

func TestOnlyPayloadFileGenerates(t *testing.T) {
	t.Parallel()
	files := compile(t, []string{schemaDir}, "hoot/v1/cas.proto")
	rsp := generate(t, newRequest(files, "paths=source_relative", "hoot/v1/cas.proto"))
	if rsp.Error != nil || len(rsp.GetFile()) != 0 {
		t.Errorf("cas.proto alone gave %d files and error %q, want nothing", len(rsp.GetFile()), rsp.GetError())
	}
}

func TestBadPackageSuffix(t *testing.T) {
	t.Parallel()
	rsp := generateCase(t, "minimal", "package_suffix=no-dash")
	if !strings.Contains(rsp.GetError(), `package_suffix "no-dash"`) {
		t.Errorf("error = %q, want it to name the bad package_suffix", rsp.GetError())
	}
}

// TestStaleOptions checks the warning for a plugin built with older options than the schema
// has, which happens on the first buf generate after options.proto changes.
func TestStaleOptions(t *testing.T) {
	t.Parallel()
	options, err := os.ReadFile(filepath.Join(schemaDir, "hoot", "v1", "options.proto"))
	if err != nil {
		t.Fatal(err)
	}
	minimal, err := os.ReadFile(filepath.Join(testdataDir, "minimal", "minimal.proto"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		options string
		stale   bool
	}{
		{"same", string(options), false},
		{"new rule", strings.Replace(string(options), "message FieldRules {", "message FieldRules {\n  bool unique_items = 99;", 1), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			files := compileWith(t, &protocompile.SourceResolver{Accessor: protocompile.SourceAccessorFromMap(map[string]string{
				"hoot/v1/options.proto": tc.options,
				"minimal.proto":         string(minimal),
			})}, "minimal.proto")
			plugin, err := protogen.Options{}.New(newRequest(files, "", "minimal.proto"))
			if err != nil {
				t.Fatal(err)
			}
			got := genhoot.StaleOptions(plugin)
			if (got != "") != tc.stale {
				t.Errorf("StaleOptions = %q, want stale %v", got, tc.stale)
			}
		})
	}
}

// toolSchemas returns the input and output schemas of the named tool in a generated
// tools.hoot.go, decoded.
func toolSchemas(t *testing.T, tools, name string) (input, output map[string]any) {
	t.Helper()
	field := regexp.MustCompile(`(?m)^\t\t(Name|InputSchema|OutputSchema):\s+(.*),$`)
	var current string
	for _, m := range field.FindAllStringSubmatch(tools, -1) {
		val := unquote(t, m[2])
		if m[1] == "Name" {
			current = val
			continue
		}
		if current != name {
			continue
		}
		var v map[string]any
		if err := json.Unmarshal([]byte(val), &v); err != nil {
			t.Fatalf("%s %s: %v", name, m[1], err)
		}
		if m[1] == "InputSchema" {
			input = v
		} else {
			output = v
		}
	}
	if input == nil || output == nil {
		t.Fatalf("no schemas for tool %q", name)
	}
	return input, output
}

// TestNestedMessageIsADef checks that a message held by a field is written once under the
// root's $defs and referred to with $ref from every field that holds it, and that every
// schema declares its dialect.
func TestNestedMessageIsADef(t *testing.T) {
	t.Parallel()
	rsp := generateCase(t, "kinds", "paths=source_relative")
	if rsp.Error != nil {
		t.Fatalf("refused: %s", rsp.GetError())
	}
	in, out := toolSchemas(t, fileNamed(rsp, "/tools.hoot.go").GetContent(), "every_kind")
	for name, s := range map[string]map[string]any{"input": in, "output": out} {
		if s["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
			t.Errorf("%s $schema = %v", name, s["$schema"])
		}
	}
	get := func(v any, path ...string) any {
		for _, p := range path {
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[p]
		}
		return v
	}
	for _, path := range [][]string{
		{"properties", "main"},
		{"properties", "parts", "items"},
		{"properties", "parts_by_name", "additionalProperties"},
	} {
		if got := get(in, append(path, "$ref")...); got != "#/$defs/Part" {
			t.Errorf("%s.$ref = %v, want #/$defs/Part", strings.Join(path, "."), got)
		}
		if got := get(in, append(path, "properties")...); got != nil {
			t.Errorf("%s is inlined: properties %v", strings.Join(path, "."), got)
		}
	}
	if got := get(in, "properties", "main", "description"); got != "The main part." {
		t.Errorf("main's description = %v: the field's comment belongs beside its $ref", got)
	}
	defs, _ := in["$defs"].(map[string]any)
	if len(defs) != 1 {
		t.Fatalf("$defs = %v, want Part alone", defs)
	}
	part := get(defs, "Part")
	if get(part, "additionalProperties") != false || get(part, "properties", "code", "type") != "string" {
		t.Errorf("$defs.Part = %v, want the closed object of Part's fields", part)
	}
	if req, _ := get(part, "required").([]any); len(req) != 1 || req[0] != "code" {
		t.Errorf("$defs.Part.required = %v, want [code]", get(part, "required"))
	}

	// A result that holds itself refers to its root.
	_, out = toolSchemas(t, fileNamed(rsp, "/tools.hoot.go").GetContent(), "plant")
	if got := get(out, "properties", "children", "items", "$ref"); got != "#" {
		t.Errorf("plant's children.items.$ref = %v, want #", got)
	}
}
