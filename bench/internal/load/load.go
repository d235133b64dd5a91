// Package load drives an MCP server over Streamable HTTP the way a client does, and measures
// throughput and latency; a run with any wrong answer is a failed run. In the legacy era every
// worker goroutine opens a session of its own (initialize, notifications/initialized), then
// sends tools/call echo requests one after another and checks every answer. In the 2026-07-28
// era (Options.Modern) there is no initialize and no session: every tools/call carries the
// protocol version and the client's capabilities in params._meta and the routing headers
// MCP-Protocol-Version, Mcp-Method and Mcp-Name, and is served on its own.
package load

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// ProtocolVersion is the protocol version the client asks for in initialize.
const ProtocolVersion = "2025-11-25"

// ModernProtocolVersion is the protocol version of the stateless era, named in every request.
const ModernProtocolVersion = "2026-07-28"

// The _meta keys and HTTP headers of a 2026-07-28 request.
const (
	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
	headerMethod           = "Mcp-Method"
	headerName             = "Mcp-Name"
)

// Options describe one load run.
type Options struct {
	// URL is the MCP endpoint, such as http://127.0.0.1:8080/mcp.
	URL string
	// Concurrency is the number of clients (sessions in the legacy era), each with one
	// request in flight at a time.
	Concurrency int
	// Modern sends every call as a stateless 2026-07-28 request instead of opening sessions.
	Modern bool
	// Warmup is how long calls run, unmeasured, before the measurement starts.
	Warmup time.Duration
	// Duration is how long the measured calls run. Ignored when Requests is set.
	Duration time.Duration
	// Requests, when positive, is the number of measured calls instead of a duration.
	Requests int
	// Timeout bounds one HTTP request (default 10s).
	Timeout time.Duration
	// MeasureStart and MeasureEnd, when set, are called right when the measured calls begin
	// and right after they end, so that a caller can take its own readings (CPU time, say)
	// over exactly that interval.
	MeasureStart, MeasureEnd func()
}

// Result is what one run measured.
type Result struct {
	URL         string        `json:"url"`
	Concurrency int           `json:"concurrency"`
	Requests    int           `json:"requests"`
	Errors      int           `json:"errors"`
	FirstErrors []string      `json:"first_errors,omitempty"`
	Elapsed     time.Duration `json:"elapsed_ns"`
	RPS         float64       `json:"rps"`
	P50         time.Duration `json:"p50_ns"`
	P90         time.Duration `json:"p90_ns"`
	P99         time.Duration `json:"p99_ns"`
	Max         time.Duration `json:"max_ns"`
	// Latencies are the measured calls' latencies, sorted; kept for merging runs.
	Latencies []time.Duration `json:"-"`
}

// Failed reports whether any call went wrong.
func (r *Result) Failed() bool { return r.Errors > 0 || r.Requests == 0 }

// String is a one-line summary.
func (r *Result) String() string {
	s := fmt.Sprintf("c=%d requests=%d rps=%.0f p50=%s p90=%s p99=%s max=%s errors=%d",
		r.Concurrency, r.Requests, r.RPS, Micros(r.P50), Micros(r.P90), Micros(r.P99), Micros(r.Max), r.Errors)
	if len(r.FirstErrors) > 0 {
		s += " first error: " + r.FirstErrors[0]
	}
	return s
}

// Micros formats d in microseconds.
func Micros(d time.Duration) string {
	return strconv.FormatFloat(float64(d)/float64(time.Microsecond), 'f', 0, 64) + "µs"
}

// Merge combines runs of the same server and concurrency: requests and time add up, and the
// percentiles come from all latencies together.
func Merge(runs ...*Result) *Result {
	if len(runs) == 0 {
		return &Result{}
	}
	m := &Result{URL: runs[0].URL, Concurrency: runs[0].Concurrency}
	for _, r := range runs {
		m.Requests += r.Requests
		m.Errors += r.Errors
		m.FirstErrors = append(m.FirstErrors, r.FirstErrors...)
		m.Elapsed += r.Elapsed
		m.Latencies = append(m.Latencies, r.Latencies...)
	}
	slices.Sort(m.Latencies)
	m.fill()
	return m
}

// fill computes the rate and the percentiles from Requests, Elapsed and sorted Latencies.
func (r *Result) fill() {
	if r.Elapsed > 0 {
		r.RPS = float64(r.Requests) / r.Elapsed.Seconds()
	}
	r.P50 = percentile(r.Latencies, 50)
	r.P90 = percentile(r.Latencies, 90)
	r.P99 = percentile(r.Latencies, 99)
	if n := len(r.Latencies); n > 0 {
		r.Max = r.Latencies[n-1]
	}
}

// percentile returns the p-th percentile of sorted (nearest rank).
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := (len(sorted)*p + 99) / 100 // ceil(n*p/100), a rank from 1
	return sorted[max(i-1, 0)]
}

// NewClient returns an HTTP client whose keep-alive connections suffice for concurrency
// requests at once.
func NewClient(concurrency int, timeout time.Duration) *http.Client {
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	idle := 2*concurrency + 4
	return &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			MaxIdleConns:        idle,
			MaxIdleConnsPerHost: idle,
			IdleConnTimeout:     90 * time.Second,
			DisableCompression:  true,
			ForceAttemptHTTP2:   false,
		},
	}
}

// Run runs one load against opts.URL. It returns an error when the sessions cannot be set up;
// errors of single calls are counted in the Result.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if opts.Concurrency < 1 {
		opts.Concurrency = 1
	}
	if opts.Duration <= 0 && opts.Requests <= 0 {
		opts.Duration = 5 * time.Second
	}
	client := NewClient(opts.Concurrency, opts.Timeout)
	defer client.CloseIdleConnections()

	sessions := make([]*Session, opts.Concurrency)
	for i := range sessions {
		name := fmt.Sprintf("load-%d", i)
		if opts.Modern {
			sessions[i] = OpenModern(client, opts.URL, name)
			continue
		}
		s, err := Open(ctx, client, opts.URL, name)
		if err != nil {
			return nil, fmt.Errorf("session %d: %w", i, err)
		}
		sessions[i] = s
	}
	defer func() {
		for _, s := range sessions {
			s.Close(context.Background())
		}
	}()

	var errs errorLog
	if opts.Warmup > 0 {
		drive(ctx, sessions, time.Now().Add(opts.Warmup), 0, &errs, false)
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		errs = errorLog{} // warm-up failures are not the measurement's, but are worth a look
	}
	var deadline time.Time
	if opts.Requests <= 0 {
		deadline = time.Now().Add(opts.Duration)
	}
	if opts.MeasureStart != nil {
		opts.MeasureStart()
	}
	start := time.Now()
	lat := drive(ctx, sessions, deadline, opts.Requests, &errs, true)
	elapsed := time.Since(start)
	if opts.MeasureEnd != nil {
		opts.MeasureEnd()
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}

	r := &Result{URL: opts.URL, Concurrency: opts.Concurrency, Elapsed: elapsed, Errors: int(errs.n.Load()), FirstErrors: errs.first()}
	for _, l := range lat {
		r.Latencies = append(r.Latencies, l...)
	}
	r.Requests = len(r.Latencies)
	slices.Sort(r.Latencies)
	r.fill()
	return r, nil
}

// drive runs every session until the deadline passes or, with a zero deadline, until count
// calls have been started. It returns each session's latencies when record is set.
func drive(ctx context.Context, sessions []*Session, deadline time.Time, count int, errs *errorLog, record bool) [][]time.Duration {
	lat := make([][]time.Duration, len(sessions))
	var started atomic.Int64
	var wg sync.WaitGroup
	for i, s := range sessions {
		if record {
			lat[i] = make([]time.Duration, 0, 1<<14)
		}
		wg.Go(func() {
			for ctx.Err() == nil {
				if deadline.IsZero() {
					if started.Add(1) > int64(count) {
						return
					}
				} else if !time.Now().Before(deadline) {
					return
				}
				t0 := time.Now()
				err := s.Echo(ctx)
				d := time.Since(t0)
				if err != nil {
					if ctx.Err() != nil {
						return
					}
					errs.add(err)
					continue
				}
				if record {
					lat[i] = append(lat[i], d)
				}
			}
		})
	}
	wg.Wait()
	return lat
}

// errorLog counts errors and keeps the first few.
type errorLog struct {
	n    atomic.Int64
	mu   sync.Mutex
	some []string
}

func (e *errorLog) add(err error) {
	if e.n.Add(1) <= 5 {
		e.mu.Lock()
		e.some = append(e.some, err.Error())
		e.mu.Unlock()
	}
}

func (e *errorLog) first() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.some)
}

// A Session is one MCP session over Streamable HTTP, or, in the 2026-07-28 era, one client
// whose requests stand alone. It is used by one goroutine at a time.
type Session struct {
	client   *http.Client
	url      string
	name     string
	id       string // Mcp-Session-Id, empty when the server keeps no sessions
	protocol string // the negotiated protocol version
	modern   bool   // every request is a stateless 2026-07-28 one
	seq      int64
	body     []byte
	resp     bytes.Buffer
}

// Open initializes a session: initialize, then notifications/initialized.
func Open(ctx context.Context, client *http.Client, url, name string) (*Session, error) {
	s := &Session{client: client, url: url, name: name}
	init := fmt.Sprintf(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":%q,"capabilities":{},"clientInfo":{"name":"hoot-bench-load","version":"1"}}}`, ProtocolVersion)
	var res struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	hdr, err := s.request(ctx, []byte(init), "initialize", "0", &res)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	if res.ProtocolVersion == "" {
		return nil, errors.New("initialize: the result names no protocolVersion")
	}
	s.protocol = res.ProtocolVersion
	s.id = hdr.Get("Mcp-Session-Id")
	status, _, body, err := s.post(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`), "notifications/initialized")
	if err != nil {
		return nil, fmt.Errorf("notifications/initialized: %w", err)
	}
	if status != http.StatusAccepted && status != http.StatusOK {
		return nil, fmt.Errorf("notifications/initialized: status %d: %.200s", status, body)
	}
	return s, nil
}

// OpenModern returns a client of the 2026-07-28 era. It sends nothing: that era has no
// initialize, and every request says itself which version it speaks.
func OpenModern(client *http.Client, url, name string) *Session {
	return &Session{client: client, url: url, name: name, protocol: ModernProtocolVersion, modern: true}
}

// Close ends the session with DELETE, when the server named one.
func (s *Session) Close(ctx context.Context) {
	if s.id == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, s.url, nil)
	if err != nil {
		return
	}
	s.headers(req, "")
	if resp, err := s.client.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// echoResult is the part of a tools/call echo result that is checked.
type echoResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent struct {
		Message string `json:"message"`
		Worker  string `json:"worker"`
	} `json:"structuredContent"`
	IsError bool `json:"isError"`
	// ResultType is "complete" for every finished result of the 2026-07-28 era.
	ResultType string `json:"resultType"`
}

// Echo calls the echo tool with a message of its own and checks that the answer is a correct
// result for that message.
func (s *Session) Echo(ctx context.Context) error {
	s.seq++
	id := strconv.FormatInt(s.seq, 10)
	msg := s.name + "-" + id
	s.body = appendEchoCall(s.body[:0], id, msg, s.modern)
	var res echoResult
	if _, err := s.request(ctx, s.body, "tools/call", id, &res); err != nil {
		return err
	}
	return checkEcho(&res, msg, s.modern)
}

// appendEchoCall appends the JSON-RPC request of tools/call echo with the given id and message
// (both plain ASCII, without quotes or backslashes); a modern one carries the _meta that the
// 2026-07-28 era requires of every request.
func appendEchoCall(b []byte, id, msg string, modern bool) []byte {
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"method":"tools/call","params":{"name":"echo","arguments":{"message":"`...)
	b = append(b, msg...)
	b = append(b, `"}`...)
	if modern {
		b = append(b, `,"_meta":{"`+metaProtocolVersion+`":"`+ModernProtocolVersion+`","`+metaClientCapabilities+`":{}}`...)
	}
	return append(b, `}}`...)
}

// checkEcho checks a tools/call echo result for the message msg. Every era's answer must be a
// result, not a tool error, that returns the message in structuredContent and has a text
// content; a modern one must also say resultType "complete" and carry in its text the JSON
// of the structured content, the message included.
func checkEcho(res *echoResult, msg string, modern bool) error {
	switch {
	case res.IsError:
		return fmt.Errorf("echo %s: isError: %+v", msg, res.Content)
	case res.StructuredContent.Message != msg:
		return fmt.Errorf("echo %s: structuredContent.message = %q", msg, res.StructuredContent.Message)
	case len(res.Content) == 0 || res.Content[0].Type != "text" || res.Content[0].Text == "":
		return fmt.Errorf("echo %s: no text content: %+v", msg, res.Content)
	}
	if !modern {
		return nil
	}
	if res.ResultType != "complete" {
		return fmt.Errorf("echo %s: resultType = %q, want \"complete\"", msg, res.ResultType)
	}
	var text struct {
		Message string `json:"message"`
	}
	if err := json.Unmarshal([]byte(res.Content[0].Text), &text); err != nil || text.Message != msg {
		return fmt.Errorf("echo %s: the text does not return the message: %.200q", msg, res.Content[0].Text)
	}
	return nil
}

// headers sets the headers every message carries. A modern client names no session; method
// is the message's method, which a modern request repeats in Mcp-Method (and, for
// tools/call, which only echo is, the tool in Mcp-Name).
func (s *Session) headers(req *http.Request, method string) {
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
	}
	if s.protocol != "" {
		req.Header.Set("MCP-Protocol-Version", s.protocol)
	}
	if s.modern && method != "" {
		req.Header.Set(headerMethod, method)
		if method == "tools/call" {
			req.Header.Set(headerName, "echo")
		}
	}
}

// newPost returns the POST of one message whose method is method.
func (s *Session) newPost(ctx context.Context, body []byte, method string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	s.headers(req, method)
	return req, nil
}

// post sends one message, whose method is method, and reads the whole answer into s.resp.
func (s *Session) post(ctx context.Context, body []byte, method string) (status int, header http.Header, answer []byte, err error) {
	req, err := s.newPost(ctx, body, method)
	if err != nil {
		return 0, nil, nil, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, nil, nil, err
	}
	defer resp.Body.Close()
	s.resp.Reset()
	if _, err := s.resp.ReadFrom(resp.Body); err != nil {
		return 0, nil, nil, fmt.Errorf("reading the answer: %w", err)
	}
	return resp.StatusCode, resp.Header, s.resp.Bytes(), nil
}

// rpcAnswer is a JSON-RPC response.
type rpcAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// request sends a JSON-RPC request of the given method and id and decodes its result into
// out. The answer may be JSON or an event stream whose events include the response.
func (s *Session) request(ctx context.Context, body []byte, method, id string, out any) (http.Header, error) {
	status, header, answer, err := s.post(ctx, body, method)
	if err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, fmt.Errorf("status %d: %.300s", status, answer)
	}
	mt, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	var msg []byte
	switch mt {
	case "application/json":
		msg = answer
	case "text/event-stream":
		msg, err = responseEvent(answer, id)
		if err != nil {
			return nil, err
		}
	default:
		return nil, fmt.Errorf("unexpected Content-Type %q: %.200s", header.Get("Content-Type"), answer)
	}
	var a rpcAnswer
	if err := json.Unmarshal(msg, &a); err != nil {
		return nil, fmt.Errorf("answer is not JSON-RPC: %v: %.200s", err, msg)
	}
	if string(a.ID) != id {
		return nil, fmt.Errorf("answer has id %s, want %s", a.ID, id)
	}
	if a.Error != nil {
		return nil, fmt.Errorf("error %d: %s", a.Error.Code, a.Error.Message)
	}
	if err := json.Unmarshal(a.Result, out); err != nil {
		return nil, fmt.Errorf("decoding the result: %v: %.200s", err, a.Result)
	}
	return header, nil
}

// responseEvent finds, in an event stream, the data of the event that is the response with
// the given id; notifications before it are skipped.
func responseEvent(stream []byte, id string) ([]byte, error) {
	sc := bufio.NewScanner(bytes.NewReader(stream))
	sc.Buffer(nil, 16<<20)
	var data []byte
	check := func() []byte {
		defer func() { data = data[:0] }()
		if len(data) == 0 {
			return nil
		}
		var probe struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(data, &probe) != nil || probe.Method != "" || string(probe.ID) != id {
			return nil
		}
		return slices.Clone(data)
	}
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			if m := check(); m != nil {
				return m, nil
			}
			continue
		}
		if v, ok := strings.CutPrefix(line, "data:"); ok {
			if len(data) > 0 {
				data = append(data, '\n')
			}
			data = append(data, strings.TrimPrefix(v, " ")...)
		}
	}
	if m := check(); m != nil {
		return m, nil
	}
	return nil, fmt.Errorf("the event stream holds no response with id %s: %.200s", id, stream)
}
