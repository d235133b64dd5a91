package hooteproto_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
)

// TestServe drives Serve, the part of a worker that answers one call, without the wire: every
// failure comes back as the Result's error with its code, and a panic is logged.
func TestServe(t *testing.T) {
	svc := hootv1hoot.NewSystemService(newEchoer("here"))
	var logs bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logs, nil))
	ctx := context.Background()
	echo := func(msg string) *hootv1.Payload {
		return &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: msg}}}
	}

	if res := hooteproto.Serve(ctx, svc, echo("hi"), logger); res.GetEcho().GetMessage() != "hi" || res.GetEcho().GetWorker() != "here" {
		t.Fatalf("echo: %v", res)
	}
	for _, c := range []struct {
		name string
		p    *hootv1.Payload
		want hooteproto.Code
	}{
		{"no request", &hootv1.Payload{}, hooteproto.CodeInvalidArgument},
		{"another service's request", &hootv1.Payload{Request: &hootv1.Payload_CasGet{CasGet: &hootv1.CasGetRequest{Hash: strings.Repeat("ab", 32)}}}, hooteproto.CodeUnavailable},
		{"a panicking handler", echo("panic"), hooteproto.CodeInternal},
	} {
		res := hooteproto.Serve(ctx, svc, c.p, logger)
		if got := hooteproto.ErrorFromTool(res.GetError()).Code(); res.GetError() == nil || got != c.want {
			t.Errorf("%s: %v, want an error with code %v", c.name, res, c.want)
		}
	}
	if !strings.Contains(logs.String(), "handler panicked") {
		t.Errorf("the panic was not logged:\n%s", logs.String())
	}
	// A nil logger discards.
	if res := hooteproto.Serve(ctx, svc, echo("panic"), nil); res.GetError() == nil {
		t.Fatalf("panic with a nil logger: %v", res)
	}
}
