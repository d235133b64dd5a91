package main

import (
	"strings"
	"testing"

	"github.com/hootenanny/hoot/hootenanny/internal/openrpc"
	"github.com/hootenanny/hoot/hootenanny/internal/upstream"
)

func TestNames(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"eth_getBalance": "eth_get_balance", "Storage slot": "storage_slot", "chainID": "chain_id",
		"debug_getRawBlock": "debug_get_raw_block", "engine_newPayloadV4": "engine_new_payload_v4", "yParity": "y_parity",
		"1559": "n_1559",
	} {
		if got := snake(in); got != want {
			t.Errorf("snake(%q) = %q, want %q", in, got, want)
		}
	}
	if got := camel("eth_getBlockByNumber"); got != "EthGetBlockByNumber" {
		t.Errorf("camel: %q", got)
	}
	if got := lowerCamel("owner_id"); got != "ownerId" {
		t.Errorf("lowerCamel: %q", got)
	}
}

// TestGenerate maps a small description: a union of strings, a list of a union of a string and
// an object, a property that is always null, a list of lists, a map of lists, the example and
// pattern of a parameter, a JSON name that differs from protoc's, and a disabled method.
func TestGenerate(t *testing.T) {
	t.Parallel()
	spec, err := openrpc.Load("testdata/spec", []string{"methods"}, []string{"schemas"})
	if err != nil {
		t.Fatal(err)
	}
	m, err := upstream.ParseManifest(strings.NewReader("method,tier,enabled,implementation,requires_confirmation,retry,notes\n" +
		"demo_getThing,read,true,proxy,false,true,\ndemo_send,broadcast,false,proxy,true,false,\n"))
	if err != nil {
		t.Fatal(err)
	}
	g := newGenerator(spec, m, upstreamConfig{prefix: "Demo", service: "demo", payloadBase: 100, source: "test"})
	// demo_getThing sorts first, yet keeps the number its lock gives it.
	g.numbers = assignNumbers(spec, map[string]int{"demo_send": 100, "demo_getThing": 101}, 100)
	protoText, goText, members, err := g.generate()
	if err != nil {
		t.Fatal(err)
	}
	p := string(protoText)
	for _, want := range []string{
		"message DemoGetThingRequest {",
		`name: "demo_get_thing"`, "tier: TIER_BASIC", "read_only: true",
		`string thing_id = 1 [(hoot.v1.field) = {`, `pattern: "^0x(0|[1-9a-f][0-9a-f]*)$"`, `example: "0x7"`,
		"optional string block = 2 [(hoot.v1.field) = {max_length: 262146}];",
		`string owner_id = 1 [json_name = "ownerID"];`,
		"repeated DemoThingPartsItem parts = 2;",
		"message DemoThingPartsItem {\n  // When the value is a string.\n  optional string text = 1;",
		"DemoPart object = 2;",
		"repeated DemoThingGridItem grid = 3;",
		"message DemoThingGridItem {\n  repeated int64 items = 1;\n}",
		"  DemoThing result = 2;",
	} {
		if !strings.Contains(p, want) {
			t.Errorf("the .proto lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "gone") || strings.Contains(p, "demo_send") || strings.Contains(p, "DemoSendRequest") {
		t.Errorf("the .proto has a null property or a method that is not served:\n%s", p)
	}
	g2 := string(goText)
	for _, want := range []string{
		`func (s *Service) DemoGetThing(ctx context.Context, req *hootv1.DemoGetThingRequest) (*hootv1.DemoGetThingResult, error) {`,
		`s.client.Call(ctx, "demo_getThing", req, res)`,
		`"hoot.v1.DemoThingPartsItem": upstream.ShapeUnion,`,
		`"hoot.v1.DemoThingGridItem":  upstream.ShapeList,`,
	} {
		if !strings.Contains(g2, want) {
			t.Errorf("the Go lacks %q:\n%s", want, g2)
		}
	}
	if len(members[0]) != 1 || members[0][0] != "    DemoGetThingRequest demo_get_thing = 101;\n" || members[1][0] != "    DemoGetThingResult demo_get_thing = 101;\n" {
		t.Errorf("members %q", members)
	}
}

func TestReplaceMembers(t *testing.T) {
	t.Parallel()
	env := "oneof request {\n    // BEGIN upstream x request (written by hootenanny/cmd/upstreamgen)\n    Old old = 1;\n    // END upstream x request\n}\n" +
		"oneof result {\n    // BEGIN upstream x result (written by hootenanny/cmd/upstreamgen)\n    // END upstream x result\n}\n"
	out, err := replaceMembers([]byte(env), "x", [2][]string{{"    A a = 9;\n"}, {"    B a = 9;\n"}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "Old") || !strings.Contains(string(out), "A a = 9") || !strings.Contains(string(out), "B a = 9") {
		t.Errorf("%s", out)
	}
	if _, err := replaceMembers([]byte("no markers"), "x", [2][]string{}); err == nil || !strings.Contains(err.Error(), "BEGIN upstream x request") {
		t.Errorf("without markers: %v", err)
	}
}

func TestAssignNumbers(t *testing.T) {
	t.Parallel()
	spec := &openrpc.Spec{Methods: []*openrpc.Method{{Name: "a_new"}, {Name: "b_old"}, {Name: "c_new"}}}
	got := assignNumbers(spec, map[string]int{"b_old": 2005, "gone": 2009}, 2000)
	if got["b_old"] != 2005 || got["a_new"] != 2010 || got["c_new"] != 2011 {
		t.Errorf("%v: the lock's numbers are kept, new methods come after the highest, a gone method's is not reused", got)
	}
	if n := assignNumbers(spec, map[string]int{}, 2000); n["a_new"] != 2000 || n["c_new"] != 2002 {
		t.Errorf("without a lock: %v", n)
	}
}
