package hooteproto_test

import (
	"context"
	"strings"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
)

// keyAsker is a system service whose echo asks three questions at once and then one more, and
// answers with the keys the questions reached the client under, then tries keys that are
// refused.
type keyAsker struct{}

func (keyAsker) Echo(ctx context.Context, _ *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	sampling := func(key string) *hootv1.ClientRequest {
		return &hootv1.ClientRequest{Key: key, Request: &hootv1.ClientRequest_Sampling{Sampling: &hootv1.SamplingRequest{}}}
	}
	roots := &hootv1.ClientRequest{Request: &hootv1.ClientRequest_Roots{Roots: &hootv1.RootsRequest{}}}
	all, err := hooteproto.AskClientAll(ctx, sampling(""), sampling("chosen"), roots)
	if err != nil {
		return nil, err
	}
	one, err := hooteproto.AskClient(ctx, sampling(""))
	if err != nil {
		return nil, err
	}
	var keys []string
	for _, r := range append(all, one) {
		keys = append(keys, r.GetSampling().GetContent().GetText())
	}
	out := strings.Join(keys, ",")
	if _, err := hooteproto.AskClientAll(ctx, sampling("same"), sampling("same")); err != nil {
		out += "|" + hooteproto.AsError(err).Message()
	}
	if _, err := hooteproto.AskClient(ctx, sampling("no spaces")); err != nil {
		out += "|" + hooteproto.AsError(err).Message()
	}
	return &hootv1.EchoResult{Message: out}, nil
}

func TestWireAskClientAllKeys(t *testing.T) {
	t.Parallel()
	s := startBroker(t)
	startSystemWorker(t, s, keyAsker{})
	waitLive(t, s.broker, "system", true)

	// The client's answer to each question is the key it was asked under; a roots question is
	// answered as a sampling one here, to carry its key back the same way.
	asker := func(_ context.Context, req *hootv1.ClientRequest) (*hootv1.ClientResponse, error) {
		return &hootv1.ClientResponse{Response: &hootv1.ClientResponse_Sampling{Sampling: &hootv1.SamplingResult{
			Content: &hootv1.Content{Block: &hootv1.Content_Text{Text: req.GetKey()}},
		}}}, nil
	}
	for range 2 { // numbering starts again with every call
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := s.broker.Call(ctx, hooteproto.Call{Service: hootv1hoot.SystemServiceName, Payload: echo("x"), Ask: asker})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(res.GetEcho().GetMessage(), "|")
		if len(parts) != 3 || parts[0] != "ask-1,chosen,ask-2,ask-3" ||
			!strings.Contains(parts[1], `two questions have the key "same"`) || !strings.Contains(parts[2], "not a valid key") {
			t.Fatalf("echo = %q", res.GetEcho().GetMessage())
		}
	}
}

func TestValidAskKey(t *testing.T) {
	t.Parallel()
	for key, want := range map[string]bool{
		"user_name": true, "ask-1": true, "a.b": true, strings.Repeat("k", hooteproto.MaxAskKeyLen): true,
		"": false, "a b": false, "ключ": false, "a/b": false, strings.Repeat("k", hooteproto.MaxAskKeyLen+1): false,
	} {
		if got := hooteproto.ValidAskKey(key); got != want {
			t.Errorf("ValidAskKey(%q) = %v, want %v", key, got, want)
		}
	}
}
