package systemservice

import (
	"context"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

func TestEchoThroughDispatch(t *testing.T) {
	t.Parallel()
	svc := hootv1hoot.NewSystemService(New("w1"))
	res, err := svc.Dispatch(context.Background(), &hootv1.Payload{Request: &hootv1.Payload_Echo{Echo: &hootv1.EchoRequest{Message: "héllo\n"}}})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.GetEcho(); got.GetMessage() != "héllo\n" || got.GetWorker() != "w1" {
		t.Fatalf("echo = %v", got)
	}
}
