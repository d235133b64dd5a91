package ethservice_test

import (
	"bytes"
	"context"
	"log/slog"
	"math/big"
	"os"
	"strings"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/ethservice"
	"github.com/hootenanny/hoot/hootenanny/internal/upstream"
	"google.golang.org/protobuf/proto"
)

// The agent stories against a real node: geth --dev, which tools/testservers.sh starts (make
// test runs the tests under it) and names in HOOT_TEST_GETH.

func gethService(t *testing.T, logs *bytes.Buffer) *ethservice.Service {
	t.Helper()
	url := os.Getenv("HOOT_TEST_GETH")
	if url == "" {
		if os.Getenv("HOOT_FLEET_TESTS") == "required" {
			t.Fatal("HOOT_TEST_GETH is not set, and HOOT_FLEET_TESTS requires the test servers")
		}
		t.Skip("HOOT_TEST_GETH is not set: run the tests under tools/testservers.sh (make test does), which starts geth --dev")
	}
	cfg := ethservice.Config{URL: url}
	if logs != nil {
		cfg.Logger = slog.New(slog.NewTextHandler(logs, nil))
	}
	s, err := ethservice.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func ok(t *testing.T, call *hootv1.UpstreamCall) {
	t.Helper()
	if call.GetStatus() != hootv1.UpstreamStatus_UPSTREAM_STATUS_OK {
		t.Fatalf("%s: %v", call.GetMethod(), call)
	}
}

func hexInt(t *testing.T, s string) *big.Int {
	t.Helper()
	n, good := new(big.Int).SetString(strings.TrimPrefix(s, "0x"), 16)
	if !good || !strings.HasPrefix(s, "0x") {
		t.Fatalf("%q is not a hex quantity", s)
	}
	return n
}

func devAccount(t *testing.T, s *ethservice.Service) string {
	t.Helper()
	acc, err := s.EthAccounts(context.Background(), &hootv1.EthAccountsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, acc.Call)
	if len(acc.Result) == 0 {
		t.Fatal("geth --dev has no account")
	}
	return acc.Result[0]
}

// An agent reads the dev account's balance and the latest block.
func TestGethReadBalanceAndBlock(t *testing.T) {
	t.Parallel()
	s := gethService(t, nil)
	ctx := context.Background()
	dev := devAccount(t, s)
	bal, err := s.EthGetBalance(ctx, &hootv1.EthGetBalanceRequest{Address: dev, Block: proto.String("latest")})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, bal.Call)
	if hexInt(t, bal.GetResult()).Sign() <= 0 {
		t.Errorf("the dev account's balance is %s", bal.GetResult())
	}
	if bal.Call.Policy.Tier != "read" || !bal.Call.Policy.Allowed {
		t.Errorf("policy %v", bal.Call.Policy)
	}
	blk, err := s.EthGetBlockByNumber(ctx, &hootv1.EthGetBlockByNumberRequest{Block: "latest", HydratedTransactions: true})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, blk.Call)
	b := blk.GetResult()
	// geth v1.17.10's block fits the API's schema: nothing was dropped (what a node sends
	// beyond the schema would be listed here, not lost silently).
	if u := blk.Call.Response.UnknownFields; len(u) != 0 {
		t.Errorf("properties of geth's block that the schema does not name: %v", u)
	}
	if len(b.GetHash()) != 66 || b.GetNumber() == "" || b.GetGasLimit() == "" || b.GetParentHash() == "" {
		t.Errorf("latest block %v", b)
	}
	// A block by its hash is the same block.
	again, err := s.EthGetBlockByHash(ctx, &hootv1.EthGetBlockByHashRequest{BlockHash: b.GetHash()})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, again.Call)
	if again.GetResult().GetNumber() != b.GetNumber() {
		t.Errorf("block %s by hash has number %s", b.GetNumber(), again.GetResult().GetNumber())
	}
	// A block that does not exist is no result, not an error.
	none, err := s.EthGetBlockByNumber(ctx, &hootv1.EthGetBlockByNumberRequest{Block: "0xffffffff"})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, none.Call)
	if none.Result != nil {
		t.Errorf("block 0xffffffff: %v", none.Result)
	}
}

// An agent estimates a transfer from the dev account, sends it (a person has confirmed it at
// the gateway: the tool is confirm-only), waits until it is mined and reads its receipt.
func TestGethEstimateSendAndReceipt(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := gethService(t, &logs)
	ctx := context.Background()
	dev := devAccount(t, s)
	to := "0x000000000000000000000000000000000000beef"
	before, err := s.EthGetBalance(ctx, &hootv1.EthGetBalanceRequest{Address: to})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, before.Call)
	tx := &hootv1.EthGenericTransaction{From: dev, To: to, Value: "0x2a"}
	est, err := s.EthEstimateGas(ctx, &hootv1.EthEstimateGasRequest{Transaction: tx})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, est.Call)
	if hexInt(t, est.GetResult()).Int64() != 21000 {
		t.Errorf("a plain transfer is estimated at %s gas, want 21000 (0x5208)", est.GetResult())
	}
	tx.Gas = est.GetResult()
	sent, err := s.EthSendTransaction(ctx, &hootv1.EthSendTransactionRequest{Transaction: tx})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, sent.Call)
	if sent.Call.Policy.Tier != "broadcast" || !sent.Call.Policy.RequiresConfirmation || sent.Call.Policy.Retry || sent.Call.Request.Attempts != 1 {
		t.Errorf("the broadcast's policy %v, attempts %d", sent.Call.Policy, sent.Call.Request.Attempts)
	}
	hash := sent.GetResult()
	if len(hash) != 66 {
		t.Fatalf("transaction hash %q", hash)
	}
	// geth --dev seals a block as soon as the transaction arrives; the receipt is there once it
	// has (and once a fresh node has indexed its chain). The loop asks for the receipt itself,
	// a bounded number of times.
	var receipt *hootv1.EthReceiptInfo
	for i := 0; i < 400 && receipt == nil; i++ {
		r, err := s.EthGetTransactionReceipt(ctx, &hootv1.EthGetTransactionReceiptRequest{TransactionHash: hash})
		if err != nil {
			t.Fatal(err)
		}
		if r.Call.GetResponse().GetError().GetMessage() == "transaction indexing is in progress" {
			// A fresh node indexes its chain at start; the receipt is not there yet.
			time.Sleep(10 * time.Millisecond)
			continue
		}
		ok(t, r.Call)
		if receipt = r.GetResult(); receipt == nil {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if receipt == nil {
		t.Fatal("the transaction was not mined")
	}
	if receipt.GetStatus() != "0x1" || receipt.GetTransactionHash() != hash || !strings.EqualFold(receipt.GetFrom(), dev) ||
		hexInt(t, receipt.GetGasUsed()).Int64() != 21000 || receipt.GetBlockNumber() == "" {
		t.Errorf("receipt %v", receipt)
	}
	after, err := s.EthGetBalance(ctx, &hootv1.EthGetBalanceRequest{Address: to})
	if err != nil {
		t.Fatal(err)
	}
	ok(t, after.Call)
	if d := new(big.Int).Sub(hexInt(t, after.GetResult()), hexInt(t, before.GetResult())); d.Int64() != 42 {
		t.Errorf("the recipient gained %s wei, want 42", d)
	}
	if !strings.Contains(logs.String(), "method=eth_sendTransaction status=OK") {
		t.Errorf("no log line of the broadcast:\n%s", logs.String())
	}
}

// The node's own JSON-RPC error is carried through: a transfer from an account without funds.
func TestGethRemoteErrorCarriedThrough(t *testing.T) {
	t.Parallel()
	s := gethService(t, nil)
	res, err := s.EthEstimateGas(context.Background(), &hootv1.EthEstimateGasRequest{Transaction: &hootv1.EthGenericTransaction{
		From: "0x00000000000000000000000000000000000dead1", To: "0x000000000000000000000000000000000000beef", Value: "0xde0b6b3a7640000",
	}})
	if err != nil {
		t.Fatal(err)
	}
	c := res.Call
	if c.GetStatus() != hootv1.UpstreamStatus_UPSTREAM_STATUS_ERROR || c.GetError().GetCode() != hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_REMOTE_ERROR ||
		c.GetResponse().GetError().GetCode() == 0 || !strings.Contains(c.GetResponse().GetError().GetMessage(), "insufficient funds") || res.Result != nil {
		t.Errorf("estimate without funds: %v", c)
	}
}

// A broadcast the operator's manifest has turned off never reaches the node.
func TestGethDisabledBroadcast(t *testing.T) {
	t.Parallel()
	url := os.Getenv("HOOT_TEST_GETH")
	if url == "" {
		gethService(t, nil) // skips or fails as the environment says
	}
	m := strings.Replace(string(manifestCSV(t)), "eth_sendTransaction,broadcast,true,", "eth_sendTransaction,broadcast,false,", 1)
	manifest, err := upstream.ParseManifest(strings.NewReader(m))
	if err != nil {
		t.Fatal(err)
	}
	s, err := ethservice.New(ethservice.Config{URL: url, Manifest: manifest})
	if err != nil {
		t.Fatal(err)
	}
	sent, err := s.EthSendTransaction(context.Background(), &hootv1.EthSendTransactionRequest{Transaction: &hootv1.EthGenericTransaction{
		From: "0x00000000000000000000000000000000000dead1", To: "0x000000000000000000000000000000000000beef", Value: "0x1"}})
	if err != nil {
		t.Fatal(err)
	}
	if sent.Call.Status != hootv1.UpstreamStatus_UPSTREAM_STATUS_DENIED || sent.Call.Error.Code != hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_METHOD_DISABLED ||
		sent.Call.Request != nil {
		t.Errorf("a disabled broadcast: %v", sent.Call)
	}
}

func manifestCSV(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("manifest.csv")
	if err != nil {
		t.Fatal(err)
	}
	return b
}
