package upstream

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"google.golang.org/protobuf/proto"
)

// Defaults of a [Config].
const (
	DefaultTimeout    = 20 * time.Second
	DefaultMaxRetries = 2
	// DefaultBackoff is the wait before the first retry; it doubles for the second.
	DefaultBackoff = 200 * time.Millisecond
	// MaxBackoff bounds any wait between attempts, a Retry-After header's included.
	MaxBackoff = 2 * time.Second
)

// An Adapter checks (or adjusts) a call of a method whose implementation is adapter before it
// goes upstream. A non-nil error refuses the call with POLICY_DENIED and the error's text.
type Adapter func(req proto.Message) error

// A Config says how a [Client] reaches its upstream and what it may send there.
type Config struct {
	// Name is the upstream's name ("eth").
	Name string
	// URL is the upstream's JSON-RPC endpoint (http or https). Empty, every call answers
	// UPSTREAM_URL_REQUIRED with Hint.
	URL string
	// Hint says how to give the URL, for the error of a call made without one.
	Hint     string
	Manifest *Manifest
	Codec    Codec
	// Adapters are the checks of the methods whose implementation is adapter.
	Adapters map[string]Adapter
	// Timeout bounds a call, its retries included (default DefaultTimeout).
	Timeout time.Duration
	// MaxRetries bounds the retries of a transient fault (default DefaultMaxRetries; negative
	// for none).
	MaxRetries int
	// Backoff is the wait before the first retry (default DefaultBackoff).
	Backoff time.Duration
	// MaxResponseBytes bounds an answer (default DefaultMaxResponseBytes).
	MaxResponseBytes int64
	// Transport sends the requests (default: a transport of its own, without proxies from the
	// environment).
	Transport http.RoundTripper
	Logger    *slog.Logger
}

// A Client calls one upstream's methods through the manifest's policy.
type Client struct {
	cfg      Config
	endpoint string // the URL without credentials, for results and logs
	http     *http.Client
	ids      atomic.Int64
}

// New returns a client for cfg. A URL that is given must be http or https with a host.
func New(cfg Config) (*Client, error) {
	if cfg.Manifest == nil {
		return nil, errors.New("upstream: a Config needs a Manifest")
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = DefaultMaxRetries
	}
	if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.Backoff <= 0 {
		cfg.Backoff = DefaultBackoff
	}
	if cfg.MaxResponseBytes <= 0 {
		cfg.MaxResponseBytes = DefaultMaxResponseBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Client{cfg: cfg}
	if cfg.URL != "" {
		u, err := url.Parse(cfg.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			// The URL may hold a key: the error does not repeat it.
			return nil, fmt.Errorf("upstream %s: the URL must be http:// or https:// with a host, such as http://127.0.0.1:8545", cfg.Name)
		}
		c.endpoint = Redact(u)
	}
	rt := cfg.Transport
	if rt == nil {
		rt = &http.Transport{
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second}).DialContext,
			MaxIdleConnsPerHost:   8,
			IdleConnTimeout:       90 * time.Second,
			ResponseHeaderTimeout: cfg.Timeout,
		}
	}
	// Redirects are not followed: a JSON-RPC endpoint has no reason to send one, and a
	// redirect could carry the call (and its credentials) elsewhere.
	c.http = &http.Client{Transport: rt, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return c, nil
}

// Endpoint is the upstream's URL without credentials, path or query ("" when none is set).
func (c *Client) Endpoint() string { return c.endpoint }

// Redact returns u as it may be shown: scheme and host, and "/…" for a path or query, which
// may hold a key (many providers put it there); user information is left out.
func Redact(u *url.URL) string {
	s := u.Scheme + "://" + u.Host
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		s += "/…"
	}
	return s
}

// Call calls method with the typed req, fills the field "result" of res from the upstream's
// answer, and returns the envelope of the call. Policy decides first: a call it refuses never
// opens a connection.
func (c *Client) Call(ctx context.Context, method string, req, res proto.Message) *hootv1.UpstreamCall {
	start := time.Now()
	call := &hootv1.UpstreamCall{Upstream: c.cfg.Name, Method: method}
	defer func() {
		call.DurationMs = float64(time.Since(start).Microseconds()) / 1000
		c.log(call)
	}()
	row, ok := c.cfg.Manifest.Row(method)
	if !ok {
		c.deny(call, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_METHOD_NOT_IN_MANIFEST,
			fmt.Sprintf("%s is not in the manifest of upstream %s", method, c.cfg.Name),
			notInManifestHint(method, c.cfg.Manifest))
		return call
	}
	call.Policy = &hootv1.UpstreamPolicy{
		Tier: string(row.Tier), Implementation: string(row.Implementation), Enabled: row.Enabled,
		RequiresConfirmation: row.RequiresConfirmation, Retry: row.Retry,
	}
	switch {
	case !row.Enabled:
		c.deny(call, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_METHOD_DISABLED,
			fmt.Sprintf("%s is disabled in the manifest of upstream %s", method, c.cfg.Name),
			"an operator enables it by setting enabled to true in its row of the manifest")
		return call
	case row.Implementation == ImplDeny:
		c.deny(call, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_POLICY_DENIED,
			fmt.Sprintf("the manifest of upstream %s denies %s: %s", c.cfg.Name, method, row.Notes),
			"this method is not served; use another tool of the "+c.cfg.Name+" service")
		return call
	case row.Implementation == ImplAdapter:
		adapt := c.cfg.Adapters[method]
		if adapt == nil {
			c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_DENIED, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_INTERNAL_ERROR,
				fmt.Sprintf("the manifest names an adapter for %s, and the service has none", method), "report this to the operator", false)
			return call
		}
		if err := adapt(req); err != nil {
			c.deny(call, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_POLICY_DENIED, err.Error(), "change the arguments to stay within the limit and call again")
			return call
		}
	}
	call.Policy.Allowed = true
	call.Policy.Reason = fmt.Sprintf("%s is enabled at tier %s (%s)", method, row.Tier, row.Implementation)
	if row.RequiresConfirmation {
		call.Policy.Reason += "; the gateway asks a person to confirm each call"
	}
	if c.endpoint == "" {
		c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_ERROR, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_URL_REQUIRED,
			fmt.Sprintf("no URL is configured for upstream %s, and none is ever guessed", c.cfg.Name), c.cfg.Hint, false)
		return call
	}
	params, err := c.cfg.Codec.EncodeParams(req)
	if err != nil {
		c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_ERROR, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_INVALID_REQUEST,
			"the arguments cannot be sent: "+err.Error(), "fix the argument named and call again", false)
		return call
	}
	c.exchange(ctx, call, row, params, res)
	return call
}

func (c *Client) deny(call *hootv1.UpstreamCall, code hootv1.UpstreamErrorCode, msg, hint string) {
	if call.Policy == nil {
		call.Policy = &hootv1.UpstreamPolicy{}
	}
	call.Policy.Allowed = false
	call.Policy.Reason = msg
	c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_DENIED, code, msg, hint, false)
}

func (c *Client) fail(call *hootv1.UpstreamCall, status hootv1.UpstreamStatus, code hootv1.UpstreamErrorCode, msg, hint string, retryable bool) {
	call.Status = status
	call.Error = &hootv1.UpstreamError{Code: code, Message: msg, Hint: hint, Retryable: retryable}
}

// rpcRequest is a JSON-RPC 2.0 request.
type rpcRequest struct {
	JSONRPC string `json:"jsonrpc"`
	ID      int64  `json:"id"`
	Method  string `json:"method"`
	Params  []any  `json:"params"`
}

// exchange sends the request, with retries of transient faults, and reads the answer.
func (c *Client) exchange(ctx context.Context, call *hootv1.UpstreamCall, row Row, params []any, res proto.Message) {
	id := c.ids.Add(1)
	body, err := json.Marshal(rpcRequest{JSONRPC: "2.0", ID: id, Method: call.Method, Params: params})
	if err != nil {
		c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_ERROR, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_INVALID_REQUEST,
			"the arguments cannot be encoded as JSON: "+err.Error(), "fix the arguments and call again", false)
		return
	}
	call.Request = &hootv1.UpstreamRequest{Endpoint: c.endpoint, Id: id, Bytes: int64(len(body))}
	for _, p := range params {
		v, err := ValueOf(p)
		if err != nil {
			c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_ERROR, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_INVALID_REQUEST,
				"the arguments cannot be encoded as JSON: "+err.Error(), "fix the arguments and call again", false)
			call.Request = nil
			return
		}
		call.Request.Params = append(call.Request.Params, v)
	}
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	retries := 0
	if row.Retry {
		retries = c.cfg.MaxRetries
	}
	var (
		status  int
		answer  []byte
		lastErr error
	)
	for attempt := 0; ; attempt++ {
		call.Request.Attempts = int32(attempt + 1)
		var retryAfter time.Duration
		status, answer, retryAfter, lastErr = c.send(ctx, body)
		if ctx.Err() != nil || attempt >= retries || !transient(status, lastErr) {
			break
		}
		wait := c.cfg.Backoff << attempt
		if retryAfter > 0 {
			wait = retryAfter
		}
		wait = min(wait, MaxBackoff)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
		case <-t.C:
		}
		if ctx.Err() != nil {
			break
		}
	}
	// An answer that came is read even when the time ran out just after it.
	if lastErr != nil && (errors.Is(ctx.Err(), context.DeadlineExceeded) || errors.Is(lastErr, context.DeadlineExceeded)) {
		c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_TIMEOUT, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_TIMEOUT,
			fmt.Sprintf("upstream %s did not answer %s within %s", c.cfg.Name, call.Method, c.cfg.Timeout),
			"the node may be busy or stalled; call again later", true)
		return
	}
	if lastErr != nil {
		c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_ERROR, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_TRANSPORT_ERROR,
			fmt.Sprintf("upstream %s at %s could not be reached: %s", c.cfg.Name, c.endpoint, describe(lastErr)),
			"check that the node runs and listens there; the operator sets its URL with --upstream", transient(0, lastErr))
		return
	}
	call.Response = &hootv1.UpstreamResponse{HttpStatus: int32(status), Bytes: int64(len(answer))}
	if status != http.StatusOK {
		// Some servers answer a JSON-RPC error with an HTTP error status (400, 500): the
		// upstream's error is kept as such.
		if a, err := parseAnswer(answer); err == nil && a.hasErr {
			c.decode(call, id, answer, res)
			return
		}
		c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_ERROR, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_TRANSPORT_ERROR,
			fmt.Sprintf("upstream %s answered HTTP %d", c.cfg.Name, status),
			"the node refused or failed the request; call again later, or ask the operator", transient(status, nil))
		return
	}
	c.decode(call, id, answer, res)
}

// send makes one attempt. It returns the HTTP status and body, or the error that kept it from
// getting one, and the wait a Retry-After header asks for.
func (c *Client) send(ctx context.Context, body []byte) (int, []byte, time.Duration, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return 0, nil, 0, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(hreq)
	if err != nil {
		return 0, nil, 0, err
	}
	defer resp.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(resp.Body, c.cfg.MaxResponseBytes+1))
	if err != nil {
		return 0, nil, 0, err
	}
	if int64(len(answer)) > c.cfg.MaxResponseBytes {
		return 0, nil, 0, fmt.Errorf("the answer is larger than %d bytes", c.cfg.MaxResponseBytes)
	}
	var retryAfter time.Duration
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s >= 0 {
		retryAfter = time.Duration(s) * time.Second
	}
	return resp.StatusCode, answer, retryAfter, nil
}

// transient reports whether a fault may pass: a reset connection, or HTTP 429, 502, 503 or 504.
func transient(status int, err error) bool {
	if err != nil {
		return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.ErrUnexpectedEOF) ||
			(errors.Is(err, io.EOF) && !errors.Is(err, context.Canceled))
	}
	switch status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return true
	}
	return false
}

// describe says what went wrong without the URL, which net/http's errors repeat and which may
// hold credentials.
func describe(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return err.Error()
}

// rpcAnswer is a JSON-RPC 2.0 response.
type rpcAnswer struct {
	id      any
	result  any
	hasRes  bool
	errCode int64
	errMsg  string
	errData any
	hasErr  bool
}

func parseAnswer(b []byte) (*rpcAnswer, error) {
	v, err := ParseJSON(b)
	if err != nil {
		return nil, fmt.Errorf("the answer is not JSON: %w", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the answer is %s, not a JSON-RPC response object", kindOf(v))
	}
	if obj["jsonrpc"] != "2.0" {
		return nil, errors.New(`the answer lacks "jsonrpc": "2.0"`)
	}
	a := &rpcAnswer{id: obj["id"]}
	a.result, a.hasRes = obj["result"]
	if e, ok := obj["error"]; ok && e != nil {
		eo, ok := e.(map[string]any)
		if !ok {
			return nil, errors.New("the answer's error is not an object")
		}
		code, ok := eo["code"].(json.Number)
		if !ok {
			return nil, errors.New("the answer's error has no integer code")
		}
		if a.errCode, err = code.Int64(); err != nil {
			return nil, errors.New("the answer's error has no integer code")
		}
		a.errMsg, _ = eo["message"].(string)
		a.errData = eo["data"]
		a.hasErr = true
	}
	if a.hasErr == a.hasRes {
		return nil, errors.New("the answer must have exactly one of result and error")
	}
	return a, nil
}

func (c *Client) decode(call *hootv1.UpstreamCall, id int64, body []byte, res proto.Message) {
	a, err := parseAnswer(body)
	if err != nil {
		c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_ERROR, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_TRANSPORT_ERROR,
			fmt.Sprintf("upstream %s answered with something that is not JSON-RPC: %s", c.cfg.Name, err),
			"check that the URL is the node's JSON-RPC endpoint", false)
		return
	}
	if n, ok := a.id.(json.Number); !ok || n.String() != strconv.FormatInt(id, 10) {
		c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_ERROR, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_TRANSPORT_ERROR,
			fmt.Sprintf("upstream %s answered with id %v to the request with id %d", c.cfg.Name, a.id, id),
			"check that the URL is the node's JSON-RPC endpoint", false)
		return
	}
	if a.hasErr {
		re := &hootv1.UpstreamRemoteError{Code: a.errCode, Message: truncate(a.errMsg, 4096)}
		if a.errData != nil {
			if v, err := ValueOf(a.errData); err == nil {
				re.Data = v
			}
		}
		call.Response.Error = re
		c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_ERROR, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_REMOTE_ERROR,
			fmt.Sprintf("upstream %s answered %s with error %d: %s", c.cfg.Name, call.Method, a.errCode, truncate(a.errMsg, 512)),
			"the node refused the call as made; read response.error, change the arguments and call again", false)
		return
	}
	m := res.ProtoReflect()
	fd := m.Descriptor().Fields().ByName("result")
	if fd == nil {
		c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_ERROR, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_INTERNAL_ERROR,
			fmt.Sprintf("%s has no result field", m.Descriptor().FullName()), "report this to the operator", false)
		return
	}
	unknown, more, err := c.cfg.Codec.DecodeField(m, fd, a.result, "result")
	if err != nil {
		m.Clear(fd)
		c.fail(call, hootv1.UpstreamStatus_UPSTREAM_STATUS_ERROR, hootv1.UpstreamErrorCode_UPSTREAM_ERROR_CODE_UPSTREAM_TRANSPORT_ERROR,
			fmt.Sprintf("upstream %s answered %s with a result that does not fit the method's schema: %s", c.cfg.Name, call.Method, err),
			"the node and the API description disagree; tell the operator", false)
		return
	}
	if more > 0 {
		unknown = append(unknown, fmt.Sprintf("(and %d more)", more))
	}
	call.Response.UnknownFields = unknown
	call.Status = hootv1.UpstreamStatus_UPSTREAM_STATUS_OK
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

func (c *Client) log(call *hootv1.UpstreamCall) {
	attrs := []any{"upstream", call.Upstream, "method", call.Method, "status", strings.TrimPrefix(call.Status.String(), "UPSTREAM_STATUS_"),
		"duration_ms", call.DurationMs}
	if call.Request != nil {
		attrs = append(attrs, "endpoint", call.Request.Endpoint, "attempts", call.Request.Attempts)
	}
	if call.Error != nil {
		attrs = append(attrs, "error", strings.TrimPrefix(call.Error.Code.String(), "UPSTREAM_ERROR_CODE_"))
	}
	c.cfg.Logger.Info("upstream call", attrs...)
}

// notInManifestHint names the closest methods of the manifest.
func notInManifestHint(method string, m *Manifest) string {
	var near []string
	lower := strings.ToLower(method)
	for _, name := range m.Methods() {
		if strings.Contains(strings.ToLower(name), lower) || strings.Contains(lower, strings.ToLower(name)) ||
			(len(lower) > 4 && strings.HasPrefix(strings.ToLower(name), lower[:len(lower)*2/3])) {
			near = append(near, name)
		}
		if len(near) == 5 {
			break
		}
	}
	hint := fmt.Sprintf("the manifest has %d methods; every served one is a tool named after it in snake_case (tools/list shows them)", len(m.Methods()))
	if len(near) > 0 {
		hint = "did you mean " + strings.Join(near, ", ") + "? " + hint
	}
	return hint
}
