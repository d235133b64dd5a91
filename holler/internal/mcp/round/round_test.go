package round

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/reqstate"
)

func elicit(key, message string) *hootv1.ClientRequest {
	return &hootv1.ClientRequest{Key: key, Request: &hootv1.ClientRequest_Elicitation{Elicitation: &hootv1.ElicitationRequest{Message: message}}}
}

func forms(method string) bool { return method == questions.MethodElicit }

// TestRoundTrip asks a question on a first call, which ends the round with an input_required
// result, and answers it on the retry with the state that result carries: the retry's round
// answers the same question at once and ends with nothing pending.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	signer, err := reqstate.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	req := &hootv1.EchoRequest{Message: "hi"}
	first, err := Open(signer, "tools/call", "echo", "token:alice", req, forms, json.RawMessage(`{"name":"echo"}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := first.Ask(context.Background(), elicit("q", "Sure?")); err == nil || !strings.Contains(err.Error(), "awaited") {
		t.Fatalf("first ask: %v", err)
	}
	if _, err := first.Ask(context.Background(), elicit("q", "Something else?")); err == nil || !strings.Contains(err.Error(), "two different questions") {
		t.Errorf("two questions under one key: %v", err)
	}
	end := first.End(false)
	if !end.Pending || end.Err != nil || len(end.Asks.InputRequests) != 1 || end.Asks.RequestState == "" {
		t.Fatalf("end of the first round: %+v", end)
	}
	if _, err := first.Ask(context.Background(), elicit("late", "Late?")); err == nil {
		t.Error("a question after the end was taken")
	}

	retry := json.RawMessage(`{"name":"echo","requestState":"` + end.Asks.RequestState + `","inputResponses":{"q":{"action":"accept","content":{}}}}`)
	second, err := Open(signer, "tools/call", "echo", "token:alice", req, forms, retry)
	if err != nil {
		t.Fatal(err)
	}
	a, err := second.Ask(context.Background(), elicit("q", "Sure?"))
	if err != nil || a.GetElicitation().GetAction() != hootv1.ElicitationAction_ELICITATION_ACTION_ACCEPT {
		t.Fatalf("answer on the retry: %v, %v", a, err)
	}
	if end := second.End(false); end.Pending || end.Malformed != nil || end.Missing != nil {
		t.Errorf("end of the answered round: %+v", end)
	}

	// The state is bound to its caller and arguments.
	if _, err := Open(signer, "tools/call", "echo", "token:mallory", req, forms, retry); err == nil {
		t.Error("another caller's retry was opened")
	}
	if _, err := Open(signer, "tools/call", "echo", "token:alice", &hootv1.EchoRequest{Message: "other"}, forms, retry); err == nil {
		t.Error("a retry with other arguments was opened")
	}
}

// TestRoundMissingCapability checks that a question the client cannot answer is refused, and
// that the round ends with the missing capability only when the call failed.
func TestRoundMissingCapability(t *testing.T) {
	t.Parallel()
	signer, _ := reqstate.New(nil)
	r, err := Open(signer, "tools/call", "echo", "", &hootv1.EchoRequest{}, func(string) bool { return false }, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Ask(context.Background(), elicit("q", "Sure?")); err == nil || !strings.Contains(err.Error(), MetaClientCapabilities) {
		t.Fatalf("ask without the capability: %v", err)
	}
	if end := r.End(true); end.Missing == nil || end.Pending {
		t.Errorf("end after a failed call: %+v", end)
	}
}

// TestRoundMalformedAnswer checks that an answer of the wrong shape ends the round with the
// member to fix.
func TestRoundMalformedAnswer(t *testing.T) {
	t.Parallel()
	signer, _ := reqstate.New(nil)
	r, err := Open(signer, "tools/call", "echo", "", &hootv1.EchoRequest{}, forms, json.RawMessage(`{"inputResponses":{"q":{"action":7}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Ask(context.Background(), elicit("q", "Sure?")); err == nil {
		t.Fatal("a malformed answer was taken")
	}
	end := r.End(false)
	var m *questions.Malformed
	if !errors.As(error(end.Malformed), &m) || m.Field != "params.inputResponses.q" {
		t.Errorf("end: %+v", end)
	}
}
