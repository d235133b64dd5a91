package upstream_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/upstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// codec has the shapes of the messages these tests use, as handler_gen.go lists them for the
// service.
var codec = upstream.Codec{Shapes: map[protoreflect.FullName]upstream.Shape{
	"hoot.v1.EthBlockTransactionsItem": upstream.ShapeUnion,
	"hoot.v1.EthFilterAddress":         upstream.ShapeUnion,
	"hoot.v1.EthFilterAddressArray":    upstream.ShapeList,
	"hoot.v1.EthFilterTopicsItem":      upstream.ShapeUnion,
	"hoot.v1.EthFilterTopicsItemArray": upstream.ShapeList,
	"hoot.v1.EthSyncingStatus":         upstream.ShapeUnion,
}}

func encode(t *testing.T, req proto.Message) string {
	t.Helper()
	params, err := codec.EncodeParams(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(params)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestEncodeParams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		req  proto.Message
		want string
	}{
		{"optional left out at the end", &hootv1.EthGetBalanceRequest{Address: "0xab"}, `["0xab"]`},
		{"optional set", &hootv1.EthGetBalanceRequest{Address: "0xab", Block: proto.String("0x1")}, `["0xab","0x1"]`},
		{"required bool false is sent", &hootv1.EthGetBlockByNumberRequest{Block: "latest"}, `["latest",false]`},
		{"no params", &hootv1.EthBlockNumberRequest{}, `[]`},
		{"object with JSON names", &hootv1.EthEstimateGasRequest{Transaction: &hootv1.EthGenericTransaction{From: "0x1", To: "0x2", Value: "0x3"}},
			`[{"from":"0x1","to":"0x2","value":"0x3"}]`},
		{"unions and a wildcard", &hootv1.EthGetLogsRequest{Filter: &hootv1.EthFilter{
			Address: &hootv1.EthFilterAddress{List: &hootv1.EthFilterAddressArray{Items: []string{"0xa", "0xb"}}},
			Topics:  []*hootv1.EthFilterTopicsItem{{}, {Text: proto.String("0xt")}},
		}}, `[{"address":["0xa","0xb"],"topics":[null,"0xt"]}]`},
	}
	for _, tc := range tests {
		if got := encode(t, tc.req); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func decode(t *testing.T, res proto.Message, body string) ([]string, error) {
	t.Helper()
	v, err := upstream.ParseJSON([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	m := res.ProtoReflect()
	unknown, _, err := codec.DecodeField(m, m.Descriptor().Fields().ByName("result"), v, "result")
	return unknown, err
}

func TestDecodeBlock(t *testing.T) {
	t.Parallel()
	res := &hootv1.EthGetBlockByNumberResult{}
	unknown, err := decode(t, res, `{"number":"0x2","hash":"0xh","transactions":["0xt1",{"hash":"0xt2","nonce":"0x0","brandNew":1}],
		"withdrawals":[],"extra":null,"future":{"x":1}}`)
	if err != nil {
		t.Fatal(err)
	}
	b := res.GetResult()
	if b.GetNumber() != "0x2" || len(b.GetTransactions()) != 2 || b.GetTransactions()[0].GetText() != "0xt1" ||
		b.GetTransactions()[1].GetObject().GetHash() != "0xt2" {
		t.Errorf("block %v", b)
	}
	if strings.Join(unknown, " ") != "result.future result.transactions[1].brandNew" {
		t.Errorf("unknown %v", unknown)
	}
	// null is an absent result: a block that does not exist.
	res = &hootv1.EthGetBlockByNumberResult{}
	if _, err := decode(t, res, `null`); err != nil || res.Result != nil {
		t.Errorf("null: %v %v", res, err)
	}
}

func TestDecodeRefusesWhatTheSchemaDoesNot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		res        proto.Message
		body, want string
	}{
		{&hootv1.EthGetBlockByNumberResult{}, `"0x1"`, "result: want an object, got a string"},
		{&hootv1.EthGetBlockByNumberResult{}, `{"transactions":[true]}`, "result.transactions[0]: want one of a string or an object, got true or false"},
		{&hootv1.EthGetBlockByNumberResult{}, `{"transactions":[null]}`, "null in a list"},
		{&hootv1.EthGetBlockByNumberResult{}, `{"uncles":"0x1"}`, "result.uncles: want a list"},
		{&hootv1.EthAccountsResult{}, `[1]`, "result[0]: want a string, got a number"},
		{&hootv1.EthSyncingResult{}, `"yes"`, "want one of"},
	}
	for _, tc := range tests {
		if _, err := decode(t, tc.res, tc.body); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.body, err, tc.want)
		}
	}
}

func TestParseJSONBounds(t *testing.T) {
	t.Parallel()
	if _, err := upstream.ParseJSON([]byte(strings.Repeat("[", upstream.MaxDepth) + strings.Repeat("]", upstream.MaxDepth))); err != nil {
		t.Errorf("at the depth limit: %v", err)
	}
	if _, err := upstream.ParseJSON([]byte(strings.Repeat("[", upstream.MaxDepth+1) + strings.Repeat("]", upstream.MaxDepth+1))); err != upstream.ErrTooDeep {
		t.Errorf("past the depth limit: %v", err)
	}
	for _, bad := range []string{``, `{`, `[1,]`, `{"a":1}{}`, `{"a" 1}`, `nul`} {
		if _, err := upstream.ParseJSON([]byte(bad)); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
}

// FuzzDecodeAnswer feeds arbitrary bytes to the decoder of upstream answers, into the message
// with the most shapes (a block, with unions of transactions): it must return a result or an
// error, never panic, and a result must encode back to JSON.
func FuzzDecodeAnswer(f *testing.F) {
	for _, seed := range []string{
		`{"number":"0x2","transactions":["0xt1",{"hash":"0xt2"}],"withdrawals":[{"index":"0x1"}]}`,
		`null`, `"0x1"`, `[[[[]]]]`, `{"transactions":[1.5e400]}`, `{"uncles":["0x1",null]}`,
		`{"a":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`, `{"number":7}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) > 1<<16 {
			return
		}
		v, err := upstream.ParseJSON(b)
		if err != nil {
			return
		}
		res := &hootv1.EthGetBlockByNumberResult{}
		m := res.ProtoReflect()
		if _, _, err := codec.DecodeField(m, m.Descriptor().Fields().ByName("result"), v, "result"); err != nil {
			return
		}
		if res.Result != nil {
			if _, err := codec.EncodeParams(&hootv1.EthGetBlockByNumberRequest{}); err != nil {
				t.Fatal(err)
			}
			if _, err := proto.Marshal(res); err != nil {
				t.Fatalf("a decoded result does not marshal: %v", err)
			}
		}
	})
}

func TestValueOf(t *testing.T) {
	t.Parallel()
	v, err := upstream.ParseJSON([]byte(`{"a":[1e400,"x",true,null,{"b":123456789012345678901234567890}]}`))
	if err != nil {
		t.Fatal(err)
	}
	uv, err := upstream.ValueOf(v)
	if err != nil {
		t.Fatal(err)
	}
	l := uv.GetObjectValue().GetFields()["a"].GetListValue().GetValues()
	if len(l) != 5 || l[0].GetNumberValue() != "1e400" || l[1].GetStringValue() != "x" || !l[2].GetBoolValue() || !l[3].GetNullValue() ||
		l[4].GetObjectValue().GetFields()["b"].GetNumberValue() != "123456789012345678901234567890" {
		t.Errorf("%v", uv)
	}
	if _, err := upstream.ValueOf(math.Inf(1)); err == nil {
		t.Error("infinity became a JSON number")
	}
}
