package main

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// TestGeneratedTools checks the committed tool table at run time: every example is accepted
// by protojson and by hooteproto.Validate, Wrap and Unwrap agree with the envelope, and no
// schema holds a union.
func TestGeneratedTools(t *testing.T) {
	t.Parallel()
	if len(hootv1hoot.Tools) == 0 || len(conformancev1hoot.Fixtures) == 0 {
		t.Fatal("no tools, or no fixtures")
	}
	for _, tool := range slices.Concat(hootv1hoot.Tools, conformancev1hoot.Fixtures) {
		t.Run(tool.Name, func(t *testing.T) {
			t.Parallel()
			req := tool.NewRequest()
			if err := protojson.Unmarshal([]byte(tool.Example), req); err != nil {
				t.Fatalf("example %s: %v", tool.Example, err)
			}
			if err := hooteproto.Validate(req); err != nil {
				t.Errorf("example %s: %v", tool.Example, err)
			}
			if err := tool.CheckFields(); err != nil {
				t.Fatal(err)
			}
			p := tool.Wrap(req)
			if p.GetRequest() == nil {
				t.Error("Wrap gave an empty payload")
			}
			// Wrap puts the very request into the payload, in the tool's own member; a fixture's,
			// into the payload that its Envelope's carries.
			pr := p.ProtoReflect()
			if tool.Envelope != nil {
				if got := hooteproto.RequestOf(p); p.GetCarried() == nil || !proto.Equal(got, req) {
					t.Errorf("Wrap gave %v, whose carried request is %v, want %v", p, got, req)
				}
			} else if fd := pr.WhichOneof(pr.Descriptor().Oneofs().ByName("request")); fd == nil || fd.Number() != tool.PayloadField ||
				pr.Get(fd).Message().Interface() != req {
				t.Errorf("Wrap put the request in %v, want member %d holding it", fd, tool.PayloadField)
			}
			if _, ok := tool.Unwrap(&hootv1.Result{}); ok {
				t.Error("Unwrap accepted an empty result")
			}
			if _, ok := tool.Unwrap(&hootv1.Result{Result: &hootv1.Result_Error{Error: &hootv1.ToolError{}}}); ok {
				t.Error("Unwrap accepted a ToolError")
			}
			if !strings.HasPrefix(tool.Usage, tool.Name+"(") {
				t.Errorf("usage %q does not start with the tool's name", tool.Usage)
			}
			for name, schema := range map[string]string{"input": tool.InputSchema, "output": tool.OutputSchema} {
				var v map[string]any
				if err := json.Unmarshal([]byte(schema), &v); err != nil {
					t.Fatalf("%s schema: %v", name, err)
				}
				if v["type"] != "object" {
					t.Errorf("%s schema has type %v, want object", name, v["type"])
				}
				if isFixture(tool.Name) && name == "input" {
					// The fixtures may carry the suite's literal schema, unions included.
					continue
				}
				for _, union := range []string{`"anyOf"`, `"oneOf"`, `"allOf"`} {
					if strings.Contains(schema, union) {
						t.Errorf("%s schema holds %s", name, union)
					}
				}
			}
		})
	}
}

// TestToolFieldsChecked: a table entry whose field numbers name no message member of the
// envelope is refused by CheckFields, which the gateway runs on its table.
func TestToolFieldsChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name            string
		payload, result int32
	}{
		{"no such payload member", 9999, 2},
		{"no such result member", 1, 9999},
		{"unset", 0, 0},
	} {
		tool := hootv1hoot.Tool{Name: "bad", PayloadField: protoreflect.FieldNumber(tc.payload), ResultField: protoreflect.FieldNumber(tc.result)}
		if err := tool.CheckFields(); err == nil || !strings.Contains(err.Error(), `tool "bad"`) {
			t.Errorf("%s: CheckFields() = %v, want an error naming the tool", tc.name, err)
		}
	}
	if hootv1hoot.EchoToolName != "echo" || hootv1hoot.JobStatusToolName != "job_status" {
		t.Errorf("tool name constants: %q, %q", hootv1hoot.EchoToolName, hootv1hoot.JobStatusToolName)
	}
}

// isFixture reports whether the named tool is in conformancev1hoot.Fixtures.
func isFixture(name string) bool {
	return slices.ContainsFunc(conformancev1hoot.Fixtures, func(t hootv1hoot.Tool) bool { return t.Name == name })
}

// TestFixturesApart: the tools of the files marked (hoot.v1.fixtures) are in Fixtures and
// nowhere in Tools, the product's table, every fixture's request is declared in such a file,
// and no message of the product's package is a fixture's.
func TestFixturesApart(t *testing.T) {
	t.Parallel()
	fixtureFiles := map[string]bool{}
	for _, tool := range conformancev1hoot.Fixtures {
		f := tool.NewRequest().ProtoReflect().Descriptor().ParentFile()
		if on, _ := proto.GetExtension(f.Options(), hootv1.E_Fixtures).(bool); !on {
			t.Errorf("fixture %q is declared in %s, which is not marked (hoot.v1.fixtures)", tool.Name, f.Path())
		}
		fixtureFiles[f.Path()] = true
		if f.Package() == hootv1.File_hoot_v1_envelope_proto.Package() {
			t.Errorf("fixture %q is declared in the product's package %s", tool.Name, f.Package())
		}
		if tool.Envelope == nil {
			t.Errorf("fixture %q has no Envelope: it would be wrapped in the product's Payload", tool.Name)
		}
	}
	for _, tool := range hootv1hoot.Tools {
		f := tool.NewRequest().ProtoReflect().Descriptor().ParentFile()
		if on, _ := proto.GetExtension(f.Options(), hootv1.E_Fixtures).(bool); on || isFixture(tool.Name) {
			t.Errorf("tool %q of %s is a fixture, in the product's table", tool.Name, f.Path())
		}
		if strings.HasPrefix(tool.Service, "conformance") {
			t.Errorf("tool %q of service %q is in the product's table", tool.Name, tool.Service)
		}
	}
	for _, want := range []string{"hoot/conformance/v1/conformance.proto", "hoot/conformance/v1/conformance_tasks.proto"} {
		if !fixtureFiles[want] {
			t.Errorf("no fixture from %s", want)
		}
	}
}

// simpleText serves the conformance service's test_simple_text for TestCarriedDispatch; the
// embedded interface is nil, so any other fixture would panic.
type simpleText struct {
	conformancev1hoot.ConformanceHandler
}

func (simpleText) TestSimpleText(context.Context, *conformancev1.ConformanceSimpleTextRequest) (*conformancev1.ConformanceContentResult, error) {
	return &conformancev1.ConformanceContentResult{Content: []*hootv1.Content{{Block: &hootv1.Content_Text{Text: "carried"}}}}, nil
}

// TestCarriedDispatch: a fixture's call travels in hoot.v1.Payload's carried member, the
// fixture's generated service takes it out and answers in hoot.v1.Result's, and the table's
// Unwrap finds the result there; the product's services refuse it as not served, and a
// carried call to the fixture's service of something else is refused too.
func TestCarriedDispatch(t *testing.T) {
	t.Parallel()
	var tool *hootv1hoot.Tool
	for i := range conformancev1hoot.Fixtures {
		if conformancev1hoot.Fixtures[i].Name == conformancev1hoot.TestSimpleTextToolName {
			tool = &conformancev1hoot.Fixtures[i]
		}
	}
	req := tool.NewRequest()
	if _, ok := req.(*conformancev1.ConformanceSimpleTextRequest); !ok {
		t.Fatalf("NewRequest() = %T", req)
	}
	p := tool.Wrap(req)
	if p.GetCarried() == nil {
		t.Fatalf("Wrap gave %v, want a carried payload", p)
	}
	if got := hooteproto.RequestOf(p); !proto.Equal(got, req) {
		t.Errorf("RequestOf(Wrap(req)) = %v", got)
	}
	svc := conformancev1hoot.NewConformanceService(simpleText{})
	res, err := svc.Dispatch(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	m, ok := tool.Unwrap(res)
	want := &conformancev1.ConformanceContentResult{Content: []*hootv1.Content{{Block: &hootv1.Content_Text{Text: "carried"}}}}
	if !ok || !proto.Equal(m, want) {
		t.Errorf("Unwrap(Dispatch(Wrap(req))) = %v, %v", m, ok)
	}
	if _, err := hootv1hoot.NewSystemService(echoHandler{}).Dispatch(context.Background(), p); !errors.Is(err, hootv1hoot.ErrNotServed) {
		t.Errorf("the system service dispatched a carried call: %v", err)
	}
	if _, err := svc.Dispatch(context.Background(), &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{}}}); !errors.Is(err, hootv1hoot.ErrNotServed) {
		t.Errorf("the conformance service dispatched echo: %v", err)
	}
	other := conformancev1hoot.Fixtures[slices.IndexFunc(conformancev1hoot.Fixtures, func(t hootv1hoot.Tool) bool { return t.Name == "greet" })]
	if _, err := svc.Dispatch(context.Background(), other.Wrap(&conformancev1.ConformanceGreetRequest{Name: "x"})); !errors.Is(err, hootv1hoot.ErrNotServed) {
		t.Errorf("the conformance service dispatched greet, a tool of conformance_tasks: %v", err)
	}
	// A product tool's Unwrap does not take a carried result for its own.
	echo := hootv1hoot.Tools[slices.IndexFunc(hootv1hoot.Tools, func(t hootv1hoot.Tool) bool { return t.Name == hootv1hoot.EchoToolName })]
	if m, ok := echo.Unwrap(res); ok {
		t.Errorf("echo's Unwrap took %v from a fixture's result", m)
	}
}

// echoHandler serves the system service for TestGeneratedDispatch.
type echoHandler struct{}

func (echoHandler) Echo(_ context.Context, r *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	return &hootv1.EchoResult{Message: r.GetMessage()}, nil
}

func TestGeneratedDispatch(t *testing.T) {
	t.Parallel()
	s := hootv1hoot.NewSystemService(echoHandler{})
	if s.Name != hootv1hoot.SystemServiceName {
		t.Errorf("name = %q", s.Name)
	}
	var echo hootv1hoot.Tool
	for _, tool := range hootv1hoot.Tools {
		if tool.Name == hootv1hoot.EchoToolName {
			echo = tool
		}
	}
	res, err := s.Dispatch(context.Background(), echo.Wrap(&hootv1.EchoRequest{Message: "hi"}))
	if err != nil {
		t.Fatal(err)
	}
	m, ok := echo.Unwrap(res)
	if !ok || !proto.Equal(m, &hootv1.EchoResult{Message: "hi"}) {
		t.Errorf("Unwrap(Dispatch(echo hi)) = %v, %v", m, ok)
	}
	_, err = s.Dispatch(context.Background(), &hootv1.Payload{Request: &hootv1.Payload_CasGet{CasGet: &hootv1.CasGetRequest{}}})
	if !errors.Is(err, hootv1hoot.ErrNotServed) {
		t.Errorf("dispatching cas_get to the system service gave %v, want ErrNotServed", err)
	}
}
