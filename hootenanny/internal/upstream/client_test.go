package upstream_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/hootenanny/internal/upstream"
	"google.golang.org/protobuf/encoding/prototext"
	"google.golang.org/protobuf/proto"
)

const testManifest = `method,tier,enabled,implementation,requires_confirmation,retry,notes
eth_getBalance,read,true,proxy,false,true,
eth_blockNumber,read,true,proxy,false,true,
eth_getBlockByNumber,read,true,proxy,false,true,
eth_sendTransaction,broadcast,true,proxy,true,false,never retried
eth_sendRawTransaction,broadcast,true,proxy,true,true,retried on purpose
eth_coinbase,local-sensitive,false,proxy,false,true,off here
eth_sign,local-sensitive,true,deny,false,false,signs with the node's keys
eth_feeHistory,read,true,adapter,false,true,bounded
`

// node is a fake upstream on loopback that counts the requests it gets and answers each with
// what answer returns.
type node struct {
	srv      *httptest.Server
	requests atomic.Int64
	bodies   chan []byte
}

func newNode(t testing.TB, answer func(n int64, w http.ResponseWriter, r *http.Request, req map[string]any)) *node {
	t.Helper()
	nd := &node{bodies: make(chan []byte, 16)}
	nd.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := nd.requests.Add(1)
		b, _ := io.ReadAll(r.Body)
		select {
		case nd.bodies <- b:
		default:
		}
		var req map[string]any
		_ = json.Unmarshal(b, &req)
		answer(n, w, r, req)
	}))
	t.Cleanup(nd.srv.Close)
	return nd
}

func result(w http.ResponseWriter, req map[string]any, result string) {
	id, _ := json.Marshal(req["id"])
	w.Header().Set("Content-Type", "application/json")
	io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+result+`}`)
}

func newClient(t testing.TB, url string, edit func(*upstream.Config)) *upstream.Client {
	t.Helper()
	m, err := upstream.ParseManifest(strings.NewReader(testManifest))
	if err != nil {
		t.Fatal(err)
	}
	cfg := upstream.Config{
		Name: "eth", URL: url, Hint: "give --upstream eth=URL", Manifest: m,
		Backoff: time.Millisecond,
		Adapters: map[string]upstream.Adapter{"eth_feeHistory": func(req proto.Message) error {
			if req.(*hootv1.EthFeeHistoryRequest).GetBlockCount() != "0x1" {
				return errString("block_count: at most 0x1 here")
			}
			return nil
		}},
	}
	if edit != nil {
		edit(&cfg)
	}
	c, err := upstream.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type errString string

func (e errString) Error() string { return string(e) }

// TestAttackDeniedCallsNeverReachTheUpstream: whatever the policy refuses (a method not in the
// manifest, a disabled one, a deny row, an adapter's check) opens no connection: the fake node
// counts its requests.
func TestAttackDeniedCallsNeverReachTheUpstream(t *testing.T) {
	t.Parallel()
	nd := newNode(t, func(_ int64, w http.ResponseWriter, _ *http.Request, req map[string]any) { result(w, req, `"0x1"`) })
	c := newClient(t, nd.srv.URL, nil)
	tests := []struct {
		name   string
		method string
		req    proto.Message
		res    proto.Message
		status hootv1.UpstreamStatus
		code   hootv1.UpstreamErrorCode
		hint   string
	}{
		{"not in the manifest", "eth_getBalanse", &hootv1.EthGetBalanceRequest{Address: "0x1"}, &hootv1.EthGetBalanceResult{},
			hootv1.UpstreamStatus_UPSTREAM_STATUS_DENIED, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_METHOD_NOT_IN_MANIFEST, "did you mean eth_getBalance"},
		{"disabled", "eth_coinbase", &hootv1.EthCoinbaseRequest{}, &hootv1.EthCoinbaseResult{},
			hootv1.UpstreamStatus_UPSTREAM_STATUS_DENIED, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_METHOD_DISABLED, "enabled to true"},
		{"denied", "eth_sign", &hootv1.EthBlockNumberRequest{}, &hootv1.EthBlockNumberResult{},
			hootv1.UpstreamStatus_UPSTREAM_STATUS_DENIED, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_POLICY_DENIED, "not served"},
		{"refused by its adapter", "eth_feeHistory", &hootv1.EthFeeHistoryRequest{BlockCount: "0x400", NewestBlock: "latest"}, &hootv1.EthFeeHistoryResult{},
			hootv1.UpstreamStatus_UPSTREAM_STATUS_DENIED, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_POLICY_DENIED, "within the limit"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			call := c.Call(context.Background(), tc.method, tc.req, tc.res)
			if call.Status != tc.status || call.GetError().GetCode() != tc.code {
				t.Fatalf("status %v, error %v; want %v, %v", call.Status, call.GetError().GetCode(), tc.status, tc.code)
			}
			if !strings.Contains(call.GetError().GetHint(), tc.hint) {
				t.Errorf("hint %q lacks %q", call.GetError().GetHint(), tc.hint)
			}
			if call.GetPolicy().GetAllowed() || call.Request != nil || call.Response != nil {
				t.Errorf("a denied call records an exchange: %v", call)
			}
		})
	}
	// The adapter lets a call within its limit through.
	if call := c.Call(context.Background(), "eth_feeHistory", &hootv1.EthFeeHistoryRequest{BlockCount: "0x1", NewestBlock: "latest"}, &hootv1.EthFeeHistoryResult{}); call.GetError().GetCode() == hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_POLICY_DENIED {
		t.Errorf("the adapter refused a call within its limit: %v", call.GetError())
	}
	if n := nd.requests.Load(); n != 1 {
		t.Errorf("the upstream got %d requests, want only the one of the allowed call", n)
	}
}

func TestURLRequired(t *testing.T) {
	t.Parallel()
	c := newClient(t, "", nil)
	call := c.Call(context.Background(), "eth_blockNumber", &hootv1.EthBlockNumberRequest{}, &hootv1.EthBlockNumberResult{})
	if call.GetError().GetCode() != hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_URL_REQUIRED || call.GetError().GetHint() != "give --upstream eth=URL" {
		t.Fatalf("without a URL: %v", call)
	}
	if !strings.Contains(call.GetError().GetMessage(), "none is ever guessed") {
		t.Errorf("message %q", call.GetError().GetMessage())
	}
}

func TestOkCallHasTheWholeEnvelope(t *testing.T) {
	t.Parallel()
	nd := newNode(t, func(_ int64, w http.ResponseWriter, _ *http.Request, req map[string]any) {
		result(w, req, `"0x1bc16d674ec80000"`)
	})
	c := newClient(t, nd.srv.URL, nil)
	res := &hootv1.EthGetBalanceResult{}
	call := c.Call(context.Background(), "eth_getBalance", &hootv1.EthGetBalanceRequest{Address: "0xab", Block: proto.String("latest")}, res)
	if call.Status != hootv1.UpstreamStatus_UPSTREAM_STATUS_OK || res.GetResult() != "0x1bc16d674ec80000" {
		t.Fatalf("call %v, result %q", call, res.GetResult())
	}
	if call.Method != "eth_getBalance" || call.Upstream != "eth" || !call.Policy.Allowed || call.Policy.Tier != "read" ||
		call.Request.Attempts != 1 || call.Response.HttpStatus != 200 || call.DurationMs <= 0 || call.Request.Bytes == 0 {
		t.Errorf("envelope %v", call)
	}
	var sent map[string]any
	if err := json.Unmarshal(<-nd.bodies, &sent); err != nil {
		t.Fatal(err)
	}
	if sent["method"] != "eth_getBalance" || sent["jsonrpc"] != "2.0" {
		t.Errorf("sent %v", sent)
	}
	if p, _ := json.Marshal(sent["params"]); string(p) != `["0xab","latest"]` {
		t.Errorf("params %s", p)
	}
	if len(call.Request.Params) != 2 || call.Request.Params[1].GetStringValue() != "latest" {
		t.Errorf("the envelope's params %v", call.Request.Params)
	}
}

func TestRetriesTransientFaults(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusServiceUnavailable, http.StatusTooManyRequests, http.StatusBadGateway, http.StatusGatewayTimeout} {
		nd := newNode(t, func(n int64, w http.ResponseWriter, _ *http.Request, req map[string]any) {
			if n <= 2 {
				w.Header().Set("Retry-After", "0")
				w.WriteHeader(status)
				return
			}
			result(w, req, `"0x10"`)
		})
		c := newClient(t, nd.srv.URL, nil)
		res := &hootv1.EthBlockNumberResult{}
		call := c.Call(context.Background(), "eth_blockNumber", &hootv1.EthBlockNumberRequest{}, res)
		if call.Status != hootv1.UpstreamStatus_UPSTREAM_STATUS_OK || res.GetResult() != "0x10" || call.Request.Attempts != 3 || nd.requests.Load() != 3 {
			t.Errorf("HTTP %d twice, then ok: %v (upstream saw %d)", status, call, nd.requests.Load())
		}
	}
}

func TestRetriesAreBounded(t *testing.T) {
	t.Parallel()
	nd := newNode(t, func(_ int64, w http.ResponseWriter, _ *http.Request, _ map[string]any) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	c := newClient(t, nd.srv.URL, nil)
	call := c.Call(context.Background(), "eth_blockNumber", &hootv1.EthBlockNumberRequest{}, &hootv1.EthBlockNumberResult{})
	if call.GetError().GetCode() != hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_TRANSPORT_ERROR || !call.GetError().GetRetryable() ||
		call.Response.GetHttpStatus() != 503 || nd.requests.Load() != 3 {
		t.Errorf("always 503: %v, upstream saw %d requests (want 1 and 2 retries)", call, nd.requests.Load())
	}
}

func TestNoRetryForBroadcastUnlessTheManifestSays(t *testing.T) {
	t.Parallel()
	nd := newNode(t, func(_ int64, w http.ResponseWriter, _ *http.Request, _ map[string]any) {
		w.WriteHeader(http.StatusServiceUnavailable)
	})
	c := newClient(t, nd.srv.URL, nil)
	call := c.Call(context.Background(), "eth_sendTransaction", &hootv1.EthSendTransactionRequest{Transaction: &hootv1.EthGenericTransaction{}}, &hootv1.EthSendTransactionResult{})
	if call.Request.GetAttempts() != 1 || nd.requests.Load() != 1 {
		t.Errorf("eth_sendTransaction was sent %d times", nd.requests.Load())
	}
	call = c.Call(context.Background(), "eth_sendRawTransaction", &hootv1.EthSendRawTransactionRequest{Transaction: "0x00"}, &hootv1.EthSendRawTransactionResult{})
	if call.Request.GetAttempts() != 3 || nd.requests.Load() != 4 {
		t.Errorf("eth_sendRawTransaction, whose row says retry, was sent %d times", call.Request.GetAttempts())
	}
}

func TestRetriesAResetConnection(t *testing.T) {
	t.Parallel()
	nd := newNode(t, func(n int64, w http.ResponseWriter, _ *http.Request, req map[string]any) {
		if n == 1 {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err != nil {
				return
			}
			// A close with unread data or SO_LINGER 0 sends a reset.
			conn.(*net.TCPConn).SetLinger(0)
			conn.Close()
			return
		}
		result(w, req, `"0x2"`)
	})
	c := newClient(t, nd.srv.URL, nil)
	res := &hootv1.EthBlockNumberResult{}
	call := c.Call(context.Background(), "eth_blockNumber", &hootv1.EthBlockNumberRequest{}, res)
	if call.Status != hootv1.UpstreamStatus_UPSTREAM_STATUS_OK || call.Request.Attempts != 2 {
		t.Errorf("after a reset: %v", call)
	}
}

func TestTimeout(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	nd := newNode(t, func(_ int64, w http.ResponseWriter, r *http.Request, _ map[string]any) {
		// Hangs until the client gives up (or the test ends).
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	defer close(release)
	c := newClient(t, nd.srv.URL, func(cfg *upstream.Config) { cfg.Timeout = 100 * time.Millisecond })
	call := c.Call(context.Background(), "eth_blockNumber", &hootv1.EthBlockNumberRequest{}, &hootv1.EthBlockNumberResult{})
	if call.Status != hootv1.UpstreamStatus_UPSTREAM_STATUS_TIMEOUT || call.GetError().GetCode() != hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_TIMEOUT ||
		!call.GetError().GetRetryable() {
		t.Errorf("a hanging upstream: %v", call)
	}
}

func TestRemoteErrorIsKept(t *testing.T) {
	t.Parallel()
	nd := newNode(t, func(_ int64, w http.ResponseWriter, _ *http.Request, req map[string]any) {
		id, _ := json.Marshal(req["id"])
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":3,"message":"execution reverted","data":"0x08c379a0"}}`)
	})
	c := newClient(t, nd.srv.URL, nil)
	res := &hootv1.EthBlockNumberResult{}
	call := c.Call(context.Background(), "eth_blockNumber", &hootv1.EthBlockNumberRequest{}, res)
	re := call.GetResponse().GetError()
	if call.Status != hootv1.UpstreamStatus_UPSTREAM_STATUS_ERROR || call.GetError().GetCode() != hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_REMOTE_ERROR ||
		re.GetCode() != 3 || re.GetMessage() != "execution reverted" || re.GetData().GetStringValue() != "0x08c379a0" || res.Result != nil {
		t.Errorf("remote error: %v", call)
	}
	if nd.requests.Load() != 1 {
		t.Errorf("a JSON-RPC error was retried")
	}
}

func TestBadAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, body, want string }{
		{"not JSON", `<html>`, "not JSON"},
		{"not an object", `[1]`, "not a JSON-RPC response object"},
		{"no version", `{"id":1,"result":"0x1"}`, `"jsonrpc": "2.0"`},
		{"both", `{"jsonrpc":"2.0","id":1,"result":"0x1","error":{"code":1,"message":"x"}}`, "exactly one"},
		{"another id", `{"jsonrpc":"2.0","id":99,"result":"0x1"}`, "with id 99"},
		{"wrong type", `{"jsonrpc":"2.0","id":1,"result":7}`, "want a string, got a number"},
		{"too deep", `{"jsonrpc":"2.0","id":1,"result":` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + `}`, "nested deeper"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			nd := newNode(t, func(_ int64, w http.ResponseWriter, _ *http.Request, _ map[string]any) { io.WriteString(w, tc.body) })
			c := newClient(t, nd.srv.URL, nil)
			res := &hootv1.EthBlockNumberResult{}
			call := c.Call(context.Background(), "eth_blockNumber", &hootv1.EthBlockNumberRequest{}, res)
			if call.GetError().GetCode() != hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_TRANSPORT_ERROR || !strings.Contains(call.GetError().GetMessage(), tc.want) {
				t.Errorf("%s: %v", tc.body, call.GetError())
			}
			if res.Result != nil {
				t.Errorf("a result was kept from a bad answer")
			}
		})
	}
}

// TestAttackHugeAnswer: an answer larger than the bound is refused, not read into memory.
func TestAttackHugeAnswer(t *testing.T) {
	t.Parallel()
	nd := newNode(t, func(_ int64, w http.ResponseWriter, _ *http.Request, req map[string]any) {
		result(w, req, `"0x`+strings.Repeat("0", 4096)+`"`)
	})
	c := newClient(t, nd.srv.URL, func(cfg *upstream.Config) { cfg.MaxResponseBytes = 1024 })
	call := c.Call(context.Background(), "eth_blockNumber", &hootv1.EthBlockNumberRequest{}, &hootv1.EthBlockNumberResult{})
	if call.GetError().GetCode() != hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_TRANSPORT_ERROR || !strings.Contains(call.GetError().GetMessage(), "larger than 1024") {
		t.Errorf("an answer over the limit: %v", call.GetError())
	}
}

// TestAttackSecretsStayOut gives the upstream a URL with credentials and a key in its path and
// query, and checks that no result, error or log line repeats them, whether the call succeeds
// or cannot reach the node.
func TestAttackSecretsStayOut(t *testing.T) {
	t.Parallel()
	const secret = "s3cr3tKEY"
	nd := newNode(t, func(_ int64, w http.ResponseWriter, r *http.Request, req map[string]any) {
		if u, p, ok := r.BasicAuth(); !ok || u != "user" || p != secret {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		result(w, req, `"0x1"`)
	})
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	up := strings.Replace(nd.srv.URL, "http://", "http://user:"+secret+"@", 1) + "/v3/" + secret + "?apikey=" + secret
	c := newClient(t, up, func(cfg *upstream.Config) { cfg.Logger = logger })
	call := c.Call(context.Background(), "eth_blockNumber", &hootv1.EthBlockNumberRequest{}, &hootv1.EthBlockNumberResult{})
	if call.Status != hootv1.UpstreamStatus_UPSTREAM_STATUS_OK {
		t.Fatalf("the credentials did not reach the node: %v", call)
	}
	// A node that is gone: net/http's errors name the whole URL.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := "http://user:" + secret + "@" + ln.Addr().String() + "/" + secret
	ln.Close()
	c2 := newClient(t, gone, func(cfg *upstream.Config) { cfg.Logger = logger })
	call2 := c2.Call(context.Background(), "eth_blockNumber", &hootv1.EthBlockNumberRequest{}, &hootv1.EthBlockNumberResult{})
	if call2.GetError().GetCode() != hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_TRANSPORT_ERROR {
		t.Fatalf("a node that is gone: %v", call2)
	}
	for _, text := range []string{prototext.Format(call), prototext.Format(call2), logs.String()} {
		if strings.Contains(text, secret) {
			t.Errorf("the secret appears in:\n%s", text)
		}
	}
	if !strings.Contains(call.Request.Endpoint, "127.0.0.1") || !strings.HasSuffix(call.Request.Endpoint, "/…") {
		t.Errorf("endpoint %q", call.Request.Endpoint)
	}
	if _, err := upstream.New(upstream.Config{Name: "eth", URL: "ftp://user:" + secret + "@x", Manifest: &upstream.Manifest{}}); err == nil || strings.Contains(err.Error(), secret) {
		t.Errorf("a bad URL: %v", err)
	}
}

func TestManifestRefusesBadRows(t *testing.T) {
	t.Parallel()
	head := "method,tier,enabled,implementation,requires_confirmation,retry,notes\n"
	tests := []struct{ name, rows, want string }{
		{"bad header", "method,tier\n", "first line"},
		{"bad tier", head + "m,write,true,proxy,false,true,\n", `tier "write"`},
		{"bad implementation", head + "m,read,true,forward,false,true,\n", `implementation "forward"`},
		{"bad bool", head + "m,read,yes,proxy,false,true,\n", `enabled "yes"`},
		{"broadcast unconfirmed", head + "m,broadcast,true,proxy,false,false,\n", "requires_confirmation true"},
		{"duplicate", head + "m,read,true,proxy,false,true,\nm,read,true,proxy,false,true,\n", "has a row already"},
		{"short row", head + "m,read,true\n", "wrong number of fields"},
	}
	for _, tc := range tests {
		if _, err := upstream.ParseManifest(strings.NewReader(tc.rows)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

func TestRemoteErrorWithAnHTTPErrorStatus(t *testing.T) {
	t.Parallel()
	nd := newNode(t, func(_ int64, w http.ResponseWriter, _ *http.Request, req map[string]any) {
		id, _ := json.Marshal(req["id"])
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(id)+`,"error":{"code":-32602,"message":"invalid argument 0"}}`)
	})
	c := newClient(t, nd.srv.URL, nil)
	call := c.Call(context.Background(), "eth_blockNumber", &hootv1.EthBlockNumberRequest{}, &hootv1.EthBlockNumberResult{})
	if call.GetError().GetCode() != hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_REMOTE_ERROR || call.GetResponse().GetError().GetCode() != -32602 ||
		call.GetResponse().GetHttpStatus() != 400 {
		t.Errorf("a JSON-RPC error with HTTP 400: %v", call)
	}
}

// TestAttackRedirectNotFollowed: an upstream (or something in its place) that redirects the
// call elsewhere does not get it sent there, with the credentials of the URL.
func TestAttackRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	elsewhere := newNode(t, func(_ int64, w http.ResponseWriter, _ *http.Request, req map[string]any) { result(w, req, `"0x1"`) })
	nd := newNode(t, func(_ int64, w http.ResponseWriter, r *http.Request, _ map[string]any) {
		http.Redirect(w, r, elsewhere.srv.URL, http.StatusTemporaryRedirect)
	})
	c := newClient(t, strings.Replace(nd.srv.URL, "http://", "http://user:pw@", 1), nil)
	call := c.Call(context.Background(), "eth_blockNumber", &hootv1.EthBlockNumberRequest{}, &hootv1.EthBlockNumberResult{})
	if call.GetError().GetCode() != hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_TRANSPORT_ERROR || call.GetResponse().GetHttpStatus() != 307 {
		t.Errorf("a redirect: %v", call)
	}
	if n := elsewhere.requests.Load(); n != 0 {
		t.Errorf("the redirect was followed: %d requests elsewhere", n)
	}
}
