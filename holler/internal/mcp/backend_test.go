package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
)

// fakeBackend dispatches payloads to in-test handlers through the generated services, so the
// path Payload -> typed handler -> Result is the real one. A handler's error becomes a
// ToolError in the Result, as a worker sends it.
type fakeBackend struct {
	services map[string]hootv1hoot.Service
	// override, when set, answers instead of the services.
	override func(ctx context.Context, service string, p *hootv1.Payload) (*hootv1.Result, error)

	calls atomic.Int64
	// started receives a value when a "block" echo starts waiting for its context.
	started chan struct{}
	// ended receives the cause when a "block" or "hold" echo's context ends.
	ended chan error
	// release lets a "hold" echo answer.
	release chan struct{}
}

func newFakeBackend() *fakeBackend {
	b := &fakeBackend{
		services: make(map[string]hootv1hoot.Service),
		started:  make(chan struct{}, 16),
		ended:    make(chan error, 16),
		release:  make(chan struct{}, 16),
	}
	for _, svc := range []hootv1hoot.Service{
		hootv1hoot.NewSystemService(&echoHandler{b: b}),
		hootv1hoot.NewCasService(&memCAS{objects: make(map[string]casObject)}, noJobs{}),
	} {
		b.services[svc.Name] = svc
	}
	return b
}

// progressKey carries the progress callback to the handlers.
type progressKey struct{}

// callKey carries the whole call to the handlers and overrides, which read from it what a
// worker would learn from the request: whether it runs as a job, and who answers its questions.
type callKey struct{}

// callOf returns the call that the fake backend is serving with ctx.
func callOf(ctx context.Context) hooteproto.Call {
	c, _ := ctx.Value(callKey{}).(hooteproto.Call)
	return c
}

func (b *fakeBackend) Call(ctx context.Context, c hooteproto.Call) (*hootv1.Result, error) {
	b.calls.Add(1)
	service, p, onProgress := c.Service, c.Payload, c.Progress
	ctx = context.WithValue(ctx, callKey{}, c)
	// The handlers see the caller, and ask the client, as a worker's do.
	if c.Caller != nil {
		ctx = hooteproto.WithCaller(ctx, c.Caller)
	}
	if c.Ask != nil {
		ctx = hooteproto.WithAsk(ctx, c.Ask)
	}
	if b.override != nil {
		return b.override(ctx, service, p)
	}
	svc, ok := b.services[service]
	if !ok {
		return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "no worker serves "+service)
	}
	if onProgress != nil {
		ctx = context.WithValue(ctx, progressKey{}, onProgress)
	}
	res, err := svc.Dispatch(ctx, p)
	if err != nil {
		return &hootv1.Result{Result: &hootv1.Result_Error{Error: hooteproto.ToolErrorOf(err)}}, nil
	}
	return res, nil
}

// report sends a progress report if the call asked for them.
func report(ctx context.Context, p *hootv1.Progress) {
	if f, ok := ctx.Value(progressKey{}).(func(*hootv1.Progress)); ok {
		f(p)
	}
}

// echoHandler serves echo. Some messages make it behave specially:
//   - "progress": two progress reports before the answer;
//   - "fail": a not-found error with a field, a hint and retry advice;
//   - "busy": an overloaded error, retryable after 2s;
//   - "block": waits until its context ends and fails with the context's error.
type echoHandler struct{ b *fakeBackend }

func (h *echoHandler) Echo(ctx context.Context, r *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	switch r.GetMessage() {
	case "progress":
		report(ctx, &hootv1.Progress{Progress: 1, Total: 2, Message: "halfway"})
		report(ctx, &hootv1.Progress{Progress: 1, Total: 2, Message: "not forward, dropped"})
		report(ctx, &hootv1.Progress{Progress: 2, Total: 2, Message: "done"})
	case "fail":
		return nil, hooteproto.NewError(hooteproto.CodeNotFound, "nothing is stored under that message").
			WithField("message").WithHint("store it first with cas_store")
	case "busy":
		return nil, hooteproto.NewError(hooteproto.CodeOverloaded, "all workers are busy").WithRetryAfter(2 * time.Second)
	case "hold":
		// Reports progress (so the answer becomes an event stream), then waits for the test.
		report(ctx, &hootv1.Progress{Progress: 1, Total: 2, Message: "holding"})
		h.b.started <- struct{}{}
		select {
		case <-h.b.release:
			// A context that ended first wins, so that a test that releases after its
			// context could have ended sees which it was.
			if ctx.Err() != nil {
				h.b.ended <- context.Cause(ctx)
				return nil, ctx.Err()
			}
		case <-ctx.Done():
			h.b.ended <- context.Cause(ctx)
			return nil, ctx.Err()
		}
	case "block":
		h.b.started <- struct{}{}
		<-ctx.Done()
		h.b.ended <- context.Cause(ctx)
		return nil, ctx.Err()
	}
	return &hootv1.EchoResult{Message: r.GetMessage(), Worker: "test-worker"}, nil
}

type casObject struct {
	data     []byte
	mimeType string
}

// memCAS is a content-addressed store in memory.
type memCAS struct {
	mu      sync.Mutex
	objects map[string]casObject
}

func (c *memCAS) CasStore(_ context.Context, r *hootv1.CasStoreRequest) (*hootv1.CasStoreResult, error) {
	data := []byte(r.GetContent())
	if r.GetContentBase64() != nil {
		data = r.GetContentBase64()
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	c.mu.Lock()
	defer c.mu.Unlock()
	_, existed := c.objects[hash]
	if !existed {
		c.objects[hash] = casObject{data: data, mimeType: r.GetMimeType()}
	}
	return &hootv1.CasStoreResult{Hash: hash, Size: uint64(len(data)), MimeType: c.objects[hash].mimeType, Existed: existed}, nil
}

func (c *memCAS) CasGet(_ context.Context, r *hootv1.CasGetRequest) (*hootv1.CasGetResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.objects[r.GetHash()]
	if !ok {
		return nil, hooteproto.NewError(hooteproto.CodeNotFound, "no object has this hash").WithField("hash")
	}
	return &hootv1.CasGetResult{Hash: r.GetHash(), MimeType: o.mimeType, Size: uint64(len(o.data)),
		Data: &hootv1.CasGetResult_Content{Content: string(o.data)}}, nil
}

func (c *memCAS) CasInspect(_ context.Context, r *hootv1.CasInspectRequest) (*hootv1.CasInspectResult, error) {
	return nil, errors.New("not used in these tests")
}

func (c *memCAS) CasVerify(context.Context, *hootv1.CasVerifyRequest) (*hootv1.CasVerifyResult, error) {
	return nil, errors.New("not used in these tests")
}

func (c *memCAS) CasObject(_ context.Context, r *hootv1.CasObjectResourceRequest) (*hootv1.CasObjectResourceResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	o, ok := c.objects[r.GetHash()]
	if !ok {
		return nil, hooteproto.NewError(hooteproto.CodeNotFound, "no object has this hash").WithField("hash")
	}
	return &hootv1.CasObjectResourceResult{Contents: []*hootv1.EmbeddedResource{{
		Uri: "hoot://cas/" + r.GetHash(), MimeType: o.mimeType, Contents: &hootv1.EmbeddedResource_Text{Text: string(o.data)},
	}}}, nil
}

// noJobs is the job starter of the fake backend, which runs no jobs.
type noJobs struct{}

func (noJobs) StartJob(context.Context, string, *hootv1.Payload, func(context.Context) (*hootv1.Result, error)) (*hootv1.Result, error) {
	return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "the fake backend runs no jobs")
}

// testTools is the product's tool table and the test fixtures, which many tests call: the
// package's tests serve both wherever a Config leaves Tools nil.
var testTools = slices.Concat(hootv1hoot.Tools, conformancev1hoot.Fixtures)

func init() { defaultTools = testTools }

// newTestServer returns a server over the generated tool table, the fixtures included (see
// testTools), and a fake backend.
func newTestServer(t *testing.T, edit func(*Config)) (*Server, *fakeBackend) {
	t.Helper()
	b := newFakeBackend()
	cfg := &Config{Backend: b, MaxTier: hootv1.Tier_TIER_STANDARD}
	if edit != nil {
		edit(cfg)
	}
	s, err := NewServer(cfg)
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s, b
}
