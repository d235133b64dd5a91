package hooteproto_test

import (
	"context"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
)

// asker is a system service whose echo logs, then asks the client to sample with its message,
// and answers with what the client said.
type asker struct{}

func (asker) Echo(ctx context.Context, req *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	hooteproto.Log(ctx, hootv1.LogLevel_LOG_LEVEL_WARNING, "asking")
	res, err := hooteproto.AskClient(ctx, &hootv1.ClientRequest{Request: &hootv1.ClientRequest_Sampling{Sampling: &hootv1.SamplingRequest{
		Messages: []*hootv1.SamplingMessage{{Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: req.GetMessage()}}}},
	}}})
	if err != nil {
		return nil, err
	}
	if te := res.GetError(); te != nil {
		return &hootv1.EchoResult{Message: "refused: " + te.GetMessage()}, nil
	}
	return &hootv1.EchoResult{Message: res.GetSampling().GetContent().GetText()}, nil
}

// startSystemWorker connects a worker serving the system service with h to the broker of s,
// and stops it when the test ends.
func startSystemWorker(t *testing.T, s *stack, h hootv1hoot.SystemHandler) {
	t.Helper()
	conn := s.dial(t)
	w, err := hooteproto.NewWorker(conn, []hootv1hoot.Service{hootv1hoot.NewSystemService(h)}, hooteproto.WithHeartbeat(hb, liveness))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = w.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done; conn.Close() })
}

func TestWireAskClientAndLog(t *testing.T) {
	t.Parallel()
	s := startBroker(t)
	startSystemWorker(t, s, asker{})
	waitLive(t, s.broker, "system", true)

	tests := []struct {
		name  string
		asker hooteproto.ClientAsker
		want  string
	}{
		{"answered", func(_ context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
			text := req.GetSampling().GetMessages()[0].GetContent().GetText()
			return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Sampling{Sampling: &hootv1.SamplingResult{
				Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: "model says " + text}},
			}}}, nil
		}, "model says hi"},
		{"failed", func(context.Context, *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
			return nil, hooteproto.NewError(hooteproto.CodeUnavailable, "no model")
		}, "refused: no model"},
		{"no asker", nil, "refused: this call's client cannot be asked anything"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			var mu sync.Mutex
			var logs []*hootv1.LogEntry
			res, err := s.broker.Call(ctx, hooteproto.Call{Service: hootv1hoot.SystemServiceName, Payload: echo("hi"), Ask: tc.asker, Progress: func(p *hootv1.Progress) {
				mu.Lock()
				defer mu.Unlock()
				if p.GetLog() != nil {
					logs = append(logs, p.GetLog())
				}
			}})
			if err != nil {
				t.Fatal(err)
			}
			if got := res.GetEcho().GetMessage(); got != tc.want {
				t.Fatalf("echo = %q, want %q", got, tc.want)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(logs) != 1 || logs[0].GetMessage() != "asking" || logs[0].GetLevel() != hootv1.LogLevel_LOG_LEVEL_WARNING || logs[0].GetLogger() != "system" {
				t.Fatalf("logs = %v, want one warning \"asking\" from system", logs)
			}
		})
	}
}

func TestAskClientOutsideARequest(t *testing.T) {
	t.Parallel()
	if _, err := hooteproto.AskClient(context.Background(), &hootv1.ClientRequest{}); hooteproto.AsError(err).Code() != hooteproto.CodeUnavailable {
		t.Fatalf("err = %v, want unavailable", err)
	}
	hooteproto.Log(context.Background(), hootv1.LogLevel_LOG_LEVEL_INFO, "nobody hears this")
}
