package main

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

// TestGeneratedTools checks the committed tool table at run time: every example is accepted
// by protojson and by hooteproto.Validate, Wrap and Unwrap agree with the envelope, and no
// schema holds a union.
func TestGeneratedTools(t *testing.T) {
	t.Parallel()
	if len(hootv1hoot.Tools) == 0 {
		t.Fatal("no tools")
	}
	for _, tool := range hootv1hoot.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			t.Parallel()
			req := tool.NewRequest()
			if err := protojson.Unmarshal([]byte(tool.Example), req); err != nil {
				t.Fatalf("example %s: %v", tool.Example, err)
			}
			if err := hooteproto.Validate(req); err != nil {
				t.Errorf("example %s: %v", tool.Example, err)
			}
			p := tool.Wrap(req)
			if p.GetRequest() == nil {
				t.Error("Wrap gave an empty payload")
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
				if tool.Service == "conformance" && name == "input" {
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
		if tool.Name == "echo" {
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
