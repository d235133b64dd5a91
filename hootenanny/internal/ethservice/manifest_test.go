package ethservice_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/internal/ethservice"
	"github.com/hootenanny/hoot/hootenanny/internal/openrpc"
	"github.com/hootenanny/hoot/hootenanny/internal/upstream"
)

// TestManifestCoversInventory is the coverage check: every method of the inventory has a row,
// and every row names a method of the inventory.
func TestManifestCoversInventory(t *testing.T) {
	t.Parallel()
	inv, err := ethservice.Inventory()
	if err != nil {
		t.Fatal(err)
	}
	m, err := ethservice.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(inv.Methods) < 80 {
		t.Fatalf("the inventory has %d methods; the execution API defines more than 80", len(inv.Methods))
	}
	missing, unknown := upstream.Coverage(inv, m)
	if len(missing) > 0 {
		t.Errorf("methods of inventory.json without a row in manifest.csv: %v", missing)
	}
	if len(unknown) > 0 {
		t.Errorf("rows of manifest.csv that name no method of inventory.json: %v", unknown)
	}
}

// specDir is the execution API's description, when this machine has it (it sits beside the
// repository, see the README); the inventory is checked against it.
func specDir() string {
	if d := os.Getenv("HOOT_ETH_SPEC"); d != "" {
		return d
	}
	for _, d := range []string{"../../../../shared/upstreams/ethereum-execution-apis/src", "../../../../../shared/upstreams/ethereum-execution-apis/src"} {
		if _, err := os.Stat(filepath.Join(d, "eth")); err == nil {
			return d
		}
	}
	return ""
}

// TestInventoryIsFresh checks that inventory.json lists exactly the methods of the API's
// description, so that a refreshed description cannot leave a method out of the manifest.
func TestInventoryIsFresh(t *testing.T) {
	t.Parallel()
	dir := specDir()
	if dir == "" {
		t.Skip("the execution API's description is not on this machine (set HOOT_ETH_SPEC to its src/)")
	}
	spec, err := openrpc.Load(dir, []string{"eth", "debug", "txpool", "testing", "engine/openrpc/methods"}, []string{"schemas", "engine/openrpc/schemas"})
	if err != nil {
		t.Fatal(err)
	}
	inv, err := ethservice.Inventory()
	if err != nil {
		t.Fatal(err)
	}
	var want, got []string
	for _, m := range spec.Methods {
		want = append(want, m.Name)
	}
	for _, m := range inv.Methods {
		got = append(got, m.Name)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("inventory.json is stale: run make upstream-eth\n got %v\nwant %v", got, want)
	}
}

// TestToolsFollowTheManifest checks the generated tool table against the manifest: a tool for
// each served method and none for the others, with the tier and the confirmation the row's tier
// maps onto.
func TestToolsFollowTheManifest(t *testing.T) {
	t.Parallel()
	m, err := ethservice.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	tools := map[string]hootv1hoot.Tool{}
	for _, tool := range hootv1hoot.Tools {
		if tool.Service == "eth" {
			tools[tool.Title] = tool
		}
	}
	wantTier := map[upstream.Tier]hootv1.Tier{
		upstream.TierRead: hootv1.Tier_TIER_BASIC, upstream.TierLocalSensitive: hootv1.Tier_TIER_STANDARD,
		upstream.TierBroadcast: hootv1.Tier_TIER_ADMIN, upstream.TierOperator: hootv1.Tier_TIER_OPERATOR,
	}
	served := 0
	for _, method := range m.Methods() {
		row, _ := m.Row(method)
		tool, has := tools[method]
		if has != row.Served() {
			t.Errorf("%s: served %v, has a tool %v (run make upstream-eth after changing the manifest)", method, row.Served(), has)
			continue
		}
		if !has {
			continue
		}
		served++
		if tool.Tier != wantTier[row.Tier] || tool.Confirm != row.RequiresConfirmation {
			t.Errorf("%s: tool tier %v confirm %v; row tier %s requires_confirmation %v", method, tool.Tier, tool.Confirm, row.Tier, row.RequiresConfirmation)
		}
		if (row.Tier == upstream.TierBroadcast) != tool.Annotations.Destructive || (row.Tier == upstream.TierRead) != tool.Annotations.ReadOnly {
			t.Errorf("%s: annotations %+v for tier %s", method, tool.Annotations, row.Tier)
		}
	}
	if served != len(tools) || served < 40 {
		t.Errorf("%d served methods, %d eth tools", served, len(tools))
	}
	for _, name := range []string{"eth_sendTransaction", "eth_sendRawTransaction"} {
		if tool := tools[name]; !tool.Confirm || tool.Tier != hootv1.Tier_TIER_ADMIN {
			t.Errorf("%s: a broadcast must be admin and confirmed: %+v", name, tool)
		}
	}
}

// An upstream that answers 503 twice, then succeeds, through the generated handler.
func TestServiceRetriesThrough503(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) <= 2 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":"0x539"}`))
	}))
	defer srv.Close()
	s, err := ethservice.New(ethservice.Config{URL: srv.URL, Backoff: 1})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.EthChainId(context.Background(), &hootv1.EthChainIdRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if res.GetResult() != "0x539" || res.Call.Request.Attempts != 3 || n.Load() != 3 {
		t.Errorf("chain id %q after %d attempts (%d requests)", res.GetResult(), res.Call.GetRequest().GetAttempts(), n.Load())
	}
}

// Without a URL, a tool says how to give one, and nothing is dialled.
func TestServiceWithoutURL(t *testing.T) {
	t.Parallel()
	s, err := ethservice.New(ethservice.Config{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := s.EthBlockNumber(context.Background(), &hootv1.EthBlockNumberRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Call.GetError().GetCode() != hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_URL_REQUIRED ||
		!strings.Contains(res.Call.GetError().GetHint(), "--upstream eth=") || !strings.Contains(res.Call.GetError().GetHint(), "HOOTENANNY_UPSTREAM") {
		t.Errorf("without a URL: %v", res.Call)
	}
}

// eth_feeHistory is an adapter: a block count above the bound is refused before the network.
func TestFeeHistoryBound(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{"oldestBlock":"0x1","baseFeePerGas":["0x1"],"gasUsedRatio":[0.5]}}`))
	}))
	defer srv.Close()
	s, err := ethservice.New(ethservice.Config{URL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	big, err := s.EthFeeHistory(context.Background(), &hootv1.EthFeeHistoryRequest{BlockCount: "0x401", NewestBlock: "latest"})
	if err != nil {
		t.Fatal(err)
	}
	if big.Call.GetError().GetCode() != hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_POLICY_DENIED || n.Load() != 0 {
		t.Errorf("1025 blocks: %v (%d requests)", big.Call, n.Load())
	}
	fine, err := s.EthFeeHistory(context.Background(), &hootv1.EthFeeHistoryRequest{BlockCount: "0x400", NewestBlock: "latest"})
	if err != nil {
		t.Fatal(err)
	}
	if fine.Call.GetStatus() != hootv1.UpstreamStatus_UPSTREAM_STATUS_OK || fine.GetResult().GetOldestBlock() != "0x1" ||
		len(fine.GetResult().GetGasUsedRatio()) != 1 || n.Load() != 1 {
		t.Errorf("1024 blocks: %v", fine)
	}
}
