package hooteproto_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
)

// memLedger is a StateLedger in memory, as the worker's database keeps one.
type memLedger struct {
	mu   sync.Mutex
	uses map[string][]byte // key -> attempt
}

func (l *memLedger) UseState(_ context.Context, key, attempt []byte, _ time.Time) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if a, ok := l.uses[string(key)]; ok {
		return bytes.Equal(a, attempt), nil
	}
	if l.uses == nil {
		l.uses = make(map[string][]byte)
	}
	l.uses[string(key)] = append([]byte(nil), attempt...)
	return true, nil
}

// callerEcho answers echo with the principal and tier of the call's caller.
type callerEcho struct{}

func (callerEcho) Echo(ctx context.Context, _ *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	c := hooteproto.CallerFrom(ctx)
	if c == nil {
		return &hootv1.EchoResult{Message: "nobody"}, nil
	}
	return &hootv1.EchoResult{Message: c.GetPrincipal() + "/" + c.GetTier().String()}, nil
}

// TestStateLedger records accepted states through a worker that keeps the ledger: the first
// use is recorded, a second is refused, and without such a worker the broker refuses rather
// than pretend the use was recorded.
func TestStateLedger(t *testing.T) {
	t.Parallel()
	s := startBroker(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	key := bytes.Repeat([]byte{7}, hooteproto.StateKeyBytes)
	exp := time.Now().Add(5 * time.Minute)

	// A worker without a ledger serves its tools only.
	startWorker(t, s, newEchoer("plain"))
	waitLive(t, s.broker, hootv1hoot.SystemServiceName, true)
	if first, err := s.broker.UseState(ctx, key, exp); err == nil || hooteproto.CodeOf(err) != hooteproto.CodeUnavailable || first {
		t.Fatalf("UseState without a ledger worker = %v, %v; want unavailable", first, err)
	}

	ledger := &memLedger{}
	startWorker(t, s, newEchoer("keeper"), hooteproto.WithStateLedger(ledger))
	waitLive(t, s.broker, hooteproto.LedgerService, true)
	if first, err := s.broker.UseState(ctx, key, exp); err != nil || !first {
		t.Fatalf("first UseState = %v, %v; want recorded", first, err)
	}
	if first, err := s.broker.UseState(ctx, key, exp); err != nil || first {
		t.Fatalf("second UseState = %v, %v; want used before", first, err)
	}
	other := bytes.Repeat([]byte{8}, hooteproto.StateKeyBytes)
	if first, err := s.broker.UseState(ctx, other, exp); err != nil || !first {
		t.Fatalf("UseState of another key = %v, %v; want recorded", first, err)
	}
	if _, err := s.broker.UseState(ctx, key[:5], exp); hooteproto.CodeOf(err) != hooteproto.CodeInvalidArgument {
		t.Fatalf("UseState of a short key = %v; want invalid argument", err)
	}
	far := bytes.Repeat([]byte{9}, hooteproto.StateKeyBytes)
	if _, err := s.broker.UseState(ctx, far, time.Now().Add(48*time.Hour)); hooteproto.CodeOf(err) != hooteproto.CodeInvalidArgument {
		t.Fatalf("UseState of a state expiring in two days = %v; want invalid argument", err)
	}
	// A tool call sent to the ledger service is refused: it holds state uses only.
	res, err := s.broker.Call(ctx, hooteproto.Call{Service: hooteproto.LedgerService, Payload: echo("hi")})
	if err != nil || res.GetError().GetCategory() != hootv1.ErrorCategory_ERROR_CATEGORY_VALIDATION {
		t.Fatalf("a payload sent to the ledger = %v, %v; want a validation error", res, err)
	}
}

// TestCallCaller sends the caller with the request: the handler sees it, and a call without one
// sees none.
func TestCallCaller(t *testing.T) {
	t.Parallel()
	s := startBroker(t)
	startSystemWorker(t, s, callerEcho{})
	waitLive(t, s.broker, hootv1hoot.SystemServiceName, true)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := s.broker.Call(ctx, hooteproto.Call{Service: hootv1hoot.SystemServiceName, Payload: echo("x"),
		Caller: &hootv1.Caller{Principal: "token:ann", Tier: hootv1.Tier_TIER_STANDARD}})
	if err != nil || res.GetEcho().GetMessage() != "token:ann/TIER_STANDARD" {
		t.Fatalf("Call with a caller = %v, %v", res, err)
	}
	res, err = s.broker.Call(ctx, hooteproto.Call{Service: hootv1hoot.SystemServiceName, Payload: echo("x")})
	if err != nil || res.GetEcho().GetMessage() != "nobody" {
		t.Fatalf("Call = %v, %v", res, err)
	}
}
