package hooteproto_test

import (
	"context"
	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"
	"slices"
	"testing"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
)

// dynamicTool is a service of one tool, for a worker that offers and withdraws it.
type dynamicTool struct{}

func (dynamicTool) TestDynamicTool(context.Context, *conformancev1.ConformanceDynamicToolRequest) (*conformancev1.ConformanceContentResult, error) {
	return &conformancev1.ConformanceContentResult{}, nil
}

// TestOfferWithdrawsAndOffers: a worker's Offer changes the services its gateway sees live,
// over the same connection, and a withdrawn service takes no calls. A second gateway, served
// by a second loop sharing the Offer, sees the same changes.
func TestOfferWithdrawsAndOffers(t *testing.T) {
	t.Parallel()
	s := startBroker(t)
	conn := s.dial(t)
	offer := hooteproto.NewOffer(conformancev1hoot.ConformanceDynamicToolServiceName)
	w, err := hooteproto.NewWorker(conn, []hootv1hoot.Service{
		hootv1hoot.NewSystemService(newEchoer("w1")),
		conformancev1hoot.NewConformanceDynamicToolService(dynamicTool{}),
	}, hooteproto.WithHeartbeat(hb, liveness), hooteproto.WithOffer(offer))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; conn.Close() })
	other := startBroker(t)
	conn2 := other.dial(t)
	w2, err := hooteproto.NewWorker(conn2, []hootv1hoot.Service{
		hootv1hoot.NewSystemService(newEchoer("w1")),
		conformancev1hoot.NewConformanceDynamicToolService(dynamicTool{}),
	}, hooteproto.WithHeartbeat(hb, liveness), hooteproto.WithOffer(offer))
	if err != nil {
		t.Fatal(err)
	}
	done2 := make(chan struct{})
	go func() { defer close(done2); _ = w2.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done2; conn2.Close() })

	dyn := conformancev1hoot.ConformanceDynamicToolServiceName
	waitLive(t, s.broker, "system", true)
	if slices.Contains(s.broker.Services(), dyn) {
		t.Fatalf("a withdrawn service is live: %v", s.broker.Services())
	}
	if !offer.Toggle(dyn) {
		t.Fatal("Toggle of a withdrawn service did not offer it")
	}
	waitLive(t, s.broker, dyn, true)
	waitLive(t, other.broker, dyn, true)
	cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer ccancel()
	p := fixturePayload(&conformancev1.Payload{Request: &conformancev1.Payload_TestDynamicTool{TestDynamicTool: &conformancev1.ConformanceDynamicToolRequest{}}})
	if res, err := s.broker.Call(cctx, hooteproto.Call{Service: dyn, Payload: p}); err != nil || res.GetError() != nil {
		t.Fatalf("call of the offered service = %v, %v", res, err)
	}
	offer.Set(dyn, false)
	waitLive(t, s.broker, dyn, false)
	waitLive(t, other.broker, dyn, false)
	waitLive(t, s.broker, "system", true)
	if offer.Offered(dyn) {
		t.Fatal("Offered after Set(false)")
	}
}
