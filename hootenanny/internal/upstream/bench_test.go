package upstream_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/upstream"
)

// benchBlock is a block as geth --dev answers eth_getBlockByNumber, with ten transactions.
var benchBlock = `{"baseFeePerGas":"0x3b9aca00","blobGasUsed":"0x0","difficulty":"0x0","excessBlobGas":"0x0","extraData":"0x","gasLimit":"0xaf79e0","gasUsed":"0x0",` +
	`"hash":"0x790ac206f4e9d3837e8284a6b81d69d832d6974d10735757ccad8ad35086d6ad","logsBloom":"0x` + strings.Repeat("0", 512) + `","miner":"0x0000000000000000000000000000000000000000",` +
	`"mixHash":"0x` + strings.Repeat("0", 64) + `","nonce":"0x0000000000000000","number":"0x1","parentHash":"0x` + strings.Repeat("1", 64) + `",` +
	`"receiptsRoot":"0x` + strings.Repeat("2", 64) + `","sha3Uncles":"0x` + strings.Repeat("3", 64) + `","size":"0x263","stateRoot":"0x` + strings.Repeat("4", 64) + `",` +
	`"timestamp":"0x0","transactions":[` + strings.TrimSuffix(strings.Repeat(`{"hash":"0x`+strings.Repeat("5", 64)+`","from":"0x71562b71999873db5b286df957af199ec94617f7","to":"0x000000000000000000000000000000000000beef","value":"0x2a","gas":"0x5208","nonce":"0x0","input":"0x","type":"0x2","chainId":"0x539","v":"0x0","r":"0x1","s":"0x2"},`, 10), ",") +
	`],"transactionsRoot":"0x` + strings.Repeat("6", 64) + `","uncles":[],"withdrawals":[],"withdrawalsRoot":"0x` + strings.Repeat("7", 64) + `"}`

// BenchmarkCallBlock measures a whole call through the wrapper to a node on loopback: policy,
// encoding, HTTP, and decoding a block of ten transactions into its typed result.
func BenchmarkCallBlock(b *testing.B) {
	nd := newNode(b, func(_ int64, w http.ResponseWriter, _ *http.Request, req map[string]any) { result(w, req, benchBlock) })
	c := newClient(b, nd.srv.URL, nil)
	b.ReportAllocs()
	b.SetBytes(int64(len(benchBlock)))
	for b.Loop() {
		res := &hootv1.EthGetBlockByNumberResult{}
		call := c.Call(context.Background(), "eth_getBlockByNumber", &hootv1.EthGetBlockByNumberRequest{Block: "latest"}, res)
		if call.Status != hootv1.UpstreamStatus_UPSTREAM_STATUS_OK {
			b.Fatal(call)
		}
	}
}

// BenchmarkDecodeBlock measures the decoder alone: parsing the answer and filling the block.
func BenchmarkDecodeBlock(b *testing.B) {
	body := []byte(benchBlock)
	b.ReportAllocs()
	b.SetBytes(int64(len(body)))
	for b.Loop() {
		v, err := upstream.ParseJSON(body)
		if err != nil {
			b.Fatal(err)
		}
		res := &hootv1.EthGetBlockByNumberResult{}
		m := res.ProtoReflect()
		if _, _, err := codec.DecodeField(m, m.Descriptor().Fields().ByName("result"), v, "result"); err != nil {
			b.Fatal(err)
		}
	}
}
