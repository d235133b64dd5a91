// Package ethservice serves the Ethereum execution API as typed tools: each method the manifest
// serves is a tool whose request and result are generated from the method's schema in the API's
// OpenRPC description (hootenanny/cmd/upstreamgen writes handler_gen.go, eth.proto and
// inventory.json), and every call goes through the manifest's policy (package upstream) before
// anything reaches the node.
package ethservice

import (
	"bytes"
	_ "embed"
	"fmt"
	"log/slog"
	"math/big"
	"net/http"
	"strings"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/internal/upstream"
	"google.golang.org/protobuf/proto"
)

// Name is the upstream's name, as --upstream NAME=URL gives its URL.
const Name = "eth"

//go:embed manifest.csv
var manifestCSV []byte

//go:embed inventory.json
var inventoryJSON []byte

// Manifest returns the manifest the service is built with.
func Manifest() (*upstream.Manifest, error) {
	return upstream.ParseManifest(bytes.NewReader(manifestCSV))
}

// Inventory returns every method of the API's description.
func Inventory() (*upstream.Inventory, error) { return upstream.ParseInventory(inventoryJSON) }

// URLHint says how to give the node's URL.
const URLHint = "start the worker with --upstream eth=http://127.0.0.1:8545 (the node's JSON-RPC URL), or set HOOTENANNY_UPSTREAM=eth=http://127.0.0.1:8545"

// A Config says where the node is and how long a call may take.
type Config struct {
	// URL is the node's JSON-RPC endpoint; empty, every call answers UPSTREAM_URL_REQUIRED.
	URL string
	// Timeout bounds a call, retries included (default 20 s).
	Timeout time.Duration
	// Manifest replaces the built-in manifest, as an operator's stricter copy (nil: built in).
	Manifest *upstream.Manifest
	// Transport and Backoff are for tests.
	Transport http.RoundTripper
	Backoff   time.Duration
	Logger    *slog.Logger
}

// A Service serves the eth tools.
type Service struct {
	client *upstream.Client
}

var _ hootv1hoot.EthHandler = (*Service)(nil)

// New returns the service for cfg.
func New(cfg Config) (*Service, error) {
	m := cfg.Manifest
	if m == nil {
		var err error
		if m, err = Manifest(); err != nil {
			return nil, err
		}
	}
	c, err := upstream.New(upstream.Config{
		Name: Name, URL: cfg.URL, Hint: URLHint, Manifest: m,
		Codec:     upstream.Codec{Shapes: shapes},
		Adapters:  map[string]upstream.Adapter{"eth_feeHistory": feeHistory},
		Timeout:   cfg.Timeout,
		Backoff:   cfg.Backoff,
		Transport: cfg.Transport,
		Logger:    cfg.Logger,
	})
	if err != nil {
		return nil, err
	}
	return &Service{client: c}, nil
}

// MaxFeeHistoryBlocks bounds eth_feeHistory's block count, so that one call cannot ask a node
// for an unbounded answer.
const MaxFeeHistoryBlocks = 1024

func feeHistory(req proto.Message) error {
	r := req.(*hootv1.EthFeeHistoryRequest)
	n, ok := new(big.Int).SetString(strings.TrimPrefix(r.GetBlockCount(), "0x"), 16)
	if !ok {
		return fmt.Errorf("block_count %q is not a hex number", r.GetBlockCount())
	}
	if n.Cmp(big.NewInt(MaxFeeHistoryBlocks)) > 0 {
		return fmt.Errorf("block_count %s asks for %s blocks; at most %d (0x%x) are served", r.GetBlockCount(), n, MaxFeeHistoryBlocks, MaxFeeHistoryBlocks)
	}
	return nil
}
