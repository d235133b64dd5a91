package e2e

import (
	"context"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/gateway"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The Ethereum wrapper end to end: an MCP client, holler, a hootenanny started with
// --upstream eth=URL, and geth --dev (HOOT_TEST_GETH, from tools/testservers.sh).

func gethURL(t *testing.T) string {
	t.Helper()
	url := os.Getenv("HOOT_TEST_GETH")
	if url == "" {
		if os.Getenv("HOOT_FLEET_TESTS") == "required" {
			t.Fatal("HOOT_TEST_GETH is not set, and HOOT_FLEET_TESTS requires the test servers")
		}
		t.Skip("HOOT_TEST_GETH is not set: run the tests under tools/testservers.sh (make test does), which starts geth --dev")
	}
	return url
}

// ethStack starts a gateway that allows admin tools, whose worker reaches the node at url, and
// connects a client whose user answers every confirmation with accept; asked counts them.
func ethStack(t *testing.T, url string, accept bool, asked *atomic.Int64, questions chan<- string) *caller {
	t.Helper()
	addr := startStackWith(t, func(cfg *gateway.Config) {
		cfg.MaxTier = hootv1.Tier_TIER_ADMIN
		if url != "" {
			cfg.WorkerCommand = append(cfg.WorkerCommand, "--upstream", "eth="+url)
		}
	})
	s := connectHTTPWith(t, addr, &mcp.ClientOptions{ElicitationHandler: func(_ context.Context, r *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked.Add(1)
		select {
		case questions <- r.Params.Message:
		default:
		}
		if !accept {
			return &mcp.ElicitResult{Action: "decline"}, nil
		}
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"confirm": true}}, nil
	}})
	c := newCaller(t, s)
	waitForWorker(t, s)
	return c
}

func status(res map[string]any) string { return toString(obj(res, "call")["status"]) }

func TestEthOverMCP(t *testing.T) {
	t.Parallel()
	url := gethURL(t)
	var asked atomic.Int64
	questions := make(chan string, 4)
	c := ethStack(t, url, true, &asked, questions)

	// Read: the dev account, its balance and the latest block, with no question asked.
	accounts := c.call("eth_accounts", map[string]any{})
	dev := toString(list(accounts["result"])[0])
	if status(accounts) != "UPSTREAM_STATUS_OK" || !strings.HasPrefix(dev, "0x") {
		t.Fatalf("eth_accounts: %v", accounts)
	}
	bal := c.call("eth_get_balance", map[string]any{"address": dev, "block": "latest"})
	if status(bal) != "UPSTREAM_STATUS_OK" || toString(bal["result"]) == "0x0" || toString(bal["result"]) == "" {
		t.Errorf("eth_get_balance: %v", bal)
	}
	blk := c.call("eth_get_block_by_number", map[string]any{"block": "latest", "hydrated_transactions": false})
	if len(toString(obj(blk, "result")["hash"])) != 66 {
		t.Errorf("eth_get_block_by_number: %v", blk)
	}
	if asked.Load() != 0 {
		t.Errorf("reads asked %d questions", asked.Load())
	}

	// Bad arguments are refused by the gateway with the field named, before the worker.
	c.fail("eth_get_balance", map[string]any{"address": "not an address"}, "address")

	// Broadcast: estimated, confirmed by the user, mined, its receipt read.
	tx := map[string]any{"from": dev, "to": "0x000000000000000000000000000000000000c0de", "value": "0x7"}
	gas := toString(c.call("eth_estimate_gas", map[string]any{"transaction": tx})["result"])
	if gas != "0x5208" {
		t.Errorf("estimated %q gas for a transfer, want 0x5208", gas)
	}
	tx["gas"] = gas
	sent := c.call("eth_send_transaction", map[string]any{"transaction": tx})
	hash := toString(sent["result"])
	if status(sent) != "UPSTREAM_STATUS_OK" || len(hash) != 66 || asked.Load() != 1 {
		t.Fatalf("eth_send_transaction: %v (asked %d)", sent, asked.Load())
	}
	if q := <-questions; !strings.Contains(q, "eth_send_transaction") || !strings.Contains(q, "0x000000000000000000000000000000000000c0de") {
		t.Errorf("the person was not shown the exact call: %q", q)
	}
	var receipt map[string]any
	for i := 0; i < 400 && receipt == nil; i++ {
		r := c.call("eth_get_transaction_receipt", map[string]any{"transaction_hash": hash})
		if receipt = obj(r, "result"); receipt == nil {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if toString(receipt["status"]) != "0x1" || toString(receipt["transaction_hash"]) != hash {
		t.Errorf("receipt %v", receipt)
	}
}

// A broadcast the person declines reaches neither the worker nor the node: the dev account's
// nonce does not move.
func TestEthBroadcastDeclinedOverMCP(t *testing.T) {
	t.Parallel()
	url := gethURL(t)
	var asked atomic.Int64
	c := ethStack(t, url, false, &asked, nil)
	dev := toString(list(c.call("eth_accounts", map[string]any{})["result"])[0])
	nonce := func() string {
		return toString(c.call("eth_get_transaction_count", map[string]any{"address": dev, "block": "pending"})["result"])
	}
	before := nonce()
	c.fail("eth_send_transaction", map[string]any{"transaction": map[string]any{"from": dev, "to": dev, "value": "0x1"}}, "declined")
	if asked.Load() != 1 {
		t.Errorf("asked %d times", asked.Load())
	}
	if after := nonce(); after != before {
		t.Errorf("the dev account's nonce moved from %s to %s: the declined transaction was sent", before, after)
	}
}

// Without --upstream, an eth tool says how to give the node's URL, and picks none.
func TestEthWithoutUpstream(t *testing.T) {
	t.Parallel()
	var asked atomic.Int64
	c := ethStack(t, "", true, &asked, nil)
	res := c.call("eth_block_number", map[string]any{})
	e := obj(res, "call", "error")
	if status(res) != "UPSTREAM_STATUS_ERROR" || toString(e["code"]) != "UPSTREAM_ERROR_CODE_UPSTREAM_URL_REQUIRED" ||
		!strings.Contains(toString(e["hint"]), "--upstream eth=") || res["result"] != nil {
		t.Errorf("eth_block_number without an upstream: %v", res)
	}
}
