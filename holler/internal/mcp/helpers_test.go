package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// rpcResponse is a JSON-RPC response as a test reads it.
type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *struct {
		Code    int            `json:"code"`
		Message string         `json:"message"`
		Data    map[string]any `json:"data"`
	} `json:"error"`
}

// toolResult is a CallToolResult as a test reads it.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent map[string]any `json:"structuredContent"`
	IsError           bool           `json:"isError"`
}

// text returns the text of the result's content blocks.
func (r *toolResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		b.WriteString(c.Text)
	}
	return b.String()
}

// toolResultOf decodes the result of a tools/call response.
func toolResultOf(t *testing.T, r rpcResponse) toolResult {
	t.Helper()
	return resultOf[toolResult](t, r)
}

// resultOf decodes the result of a tools/call response into a T, failing the test on an error
// response.
func resultOf[T any](t *testing.T, r rpcResponse) T {
	t.Helper()
	var v T
	if r.Error != nil {
		t.Fatalf("tools/call failed: %d %s %v", r.Error.Code, r.Error.Message, r.Error.Data)
	}
	if err := json.Unmarshal(r.Result, &v); err != nil {
		t.Fatalf("decoding the tool result %s: %v", r.Result, err)
	}
	return v
}

// httpReply is one HTTP answer as a test reads it: the status, the headers, and the JSON-RPC
// messages of the body (one for JSON, any number for an event stream).
type httpAnswer struct {
	status   int
	header   http.Header
	body     []byte
	messages []rpcResponse
}

// last returns the last JSON-RPC message of the answer.
func (a *httpAnswer) last(t *testing.T) rpcResponse {
	t.Helper()
	if len(a.messages) == 0 {
		t.Fatalf("no JSON-RPC message in the answer (status %d, body %q)", a.status, a.body)
	}
	return a.messages[len(a.messages)-1]
}

// mcpHTTP is a raw Streamable HTTP client for tests.
type mcpHTTP struct {
	t   *testing.T
	url string
	// client is the test server's own: http.DefaultClient's idle connections are closed by
	// every other test server's Close, which breaks a request of a test running alongside.
	client  *http.Client
	session string
	// accept is the Accept header; empty means both JSON and event streams.
	accept string
	// stream holds the messages of the last callAnswering's stream other than its response
	// and the questions it answered.
	stream []rpcResponse
}

func newMCPHTTP(t *testing.T, s *Server) *mcpHTTP {
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return &mcpHTTP{t: t, url: ts.URL, client: ts.Client()}
}

// post sends body by POST with the session header and the given extra headers.
func (c *mcpHTTP) post(body string, header map[string]string) *httpAnswer {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodPost, c.url, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	accept := c.accept
	if accept == "" {
		accept = "application/json, text/event-stream"
	}
	req.Header.Set("Accept", accept)
	if c.session != "" {
		req.Header.Set(headerSessionID, c.session)
	}
	for k, v := range header {
		if v == "" {
			req.Header.Del(k)
		} else {
			req.Header.Set(k, v)
		}
	}
	return c.do(req)
}

// do sends req and reads the whole answer.
func (c *mcpHTTP) do(req *http.Request) *httpAnswer {
	c.t.Helper()
	resp, err := c.client.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	a := &httpAnswer{status: resp.StatusCode, header: resp.Header, body: body}
	switch ct := resp.Header.Get("Content-Type"); {
	case strings.HasPrefix(ct, "text/event-stream"):
		a.messages = parseSSE(c.t, body)
	case strings.HasPrefix(ct, "application/json") && len(body) > 0:
		var r rpcResponse
		if err := json.Unmarshal(body, &r); err != nil {
			c.t.Fatalf("answer is not JSON-RPC: %v: %q", err, body)
		}
		a.messages = []rpcResponse{r}
	}
	return a
}

// parseSSE reads the JSON-RPC messages of an event stream.
func parseSSE(t *testing.T, body []byte) []rpcResponse {
	t.Helper()
	var out []rpcResponse
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "" {
			// Not data, or a priming event: an id without a message.
			continue
		}
		var r rpcResponse
		if err := json.Unmarshal([]byte(data), &r); err != nil {
			t.Fatalf("event is not JSON-RPC: %v: %q", err, data)
		}
		out = append(out, r)
	}
	return out
}

// initialize starts a session with protocol version v and sends notifications/initialized.
func (c *mcpHTTP) initialize(v string) {
	c.t.Helper()
	c.initializeWith(v, `{}`)
}

// initializeWith starts a session with protocol version v in which the client declares the
// capabilities caps (a JSON object), and sends notifications/initialized.
func (c *mcpHTTP) initializeWith(v, caps string) {
	c.t.Helper()
	a := c.post(fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":%s,"clientInfo":{"name":"test","version":"0"}}}`, v, caps), nil)
	if a.status != http.StatusOK {
		c.t.Fatalf("initialize: status %d: %s", a.status, a.body)
	}
	c.session = a.header.Get(headerSessionID)
	if c.session == "" {
		c.t.Fatalf("initialize: no %s header", headerSessionID)
	}
	if a := c.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, nil); a.status != http.StatusAccepted {
		c.t.Fatalf("notifications/initialized: status %d: %s", a.status, a.body)
	}
}

// call sends a request and returns its response, which must come with status 200.
func (c *mcpHTTP) call(id int, method string, params any) rpcResponse {
	c.t.Helper()
	a := c.post(request(id, method, params), nil)
	if a.status != http.StatusOK {
		c.t.Fatalf("%s: status %d: %s", method, a.status, a.body)
	}
	return a.last(c.t)
}

// initializeRequest returns an initialize request for protocol version v.
func initializeRequest(v string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"test","version":"0"}}}`, v)
}

// request returns a JSON-RPC request.
func request(id int, method string, params any) string {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// dataKeys returns the keys of an error's data that tests check, as a set.
func hasKeys(data map[string]any, keys ...string) []string {
	var missing []string
	for _, k := range keys {
		if _, ok := data[k]; !ok {
			missing = append(missing, k)
		}
	}
	return missing
}
