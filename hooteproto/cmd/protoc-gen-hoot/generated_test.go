package main

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

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
	if len(hootv1hoot.Tools) == 0 || len(hootv1hoot.Fixtures) == 0 {
		t.Fatal("no tools, or no fixtures")
	}
	for _, tool := range slices.Concat(hootv1hoot.Tools, hootv1hoot.Fixtures) {
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
			// Wrap puts the very request into the payload, in the tool's own member.
			pr := p.ProtoReflect()
			if fd := pr.WhichOneof(pr.Descriptor().Oneofs().ByName("request")); fd == nil || fd.Number() != tool.PayloadField ||
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

// isFixture reports whether the named tool is in hootv1hoot.Fixtures.
func isFixture(name string) bool {
	return slices.ContainsFunc(hootv1hoot.Fixtures, func(t hootv1hoot.Tool) bool { return t.Name == name })
}

// TestFixturesApart: the tools of the files marked (hoot.v1.fixtures) are in Fixtures and
// nowhere in Tools, the product's table, and every fixture's request is declared in such a file.
func TestFixturesApart(t *testing.T) {
	t.Parallel()
	fixtureFiles := map[string]bool{}
	for _, tool := range hootv1hoot.Fixtures {
		f := tool.NewRequest().ProtoReflect().Descriptor().ParentFile()
		if on, _ := proto.GetExtension(f.Options(), hootv1.E_Fixtures).(bool); !on {
			t.Errorf("fixture %q is declared in %s, which is not marked (hoot.v1.fixtures)", tool.Name, f.Path())
		}
		fixtureFiles[f.Path()] = true
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
	for _, want := range []string{"hoot/v1/conformance.proto", "hoot/v1/conformance_tasks.proto"} {
		if !fixtureFiles[want] {
			t.Errorf("no fixture from %s", want)
		}
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
