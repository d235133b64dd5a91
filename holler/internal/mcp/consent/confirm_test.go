package consent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
)

// TestElicitor checks that each answer of the client to elicitation/create becomes the answer
// it means, and that a failure, a malformed answer or an unknown action declines with an error
// that says so, so that nothing runs on an answer that was not given.
func TestElicitor(t *testing.T) {
	t.Parallel()
	q := NewQuestion(&hootv1hoot.Tool{Name: "echo", Tier: hootv1.Tier_TIER_ADMIN}, &hootv1.EchoRequest{Message: "hi"})
	for _, tc := range []struct {
		name             string
		result, failure  string
		err              error
		want             Answer
		wantErr, content string
	}{
		{name: "accept", result: `{"action":"accept","content":{"confirm":true}}`, want: Accepted, content: "confirm"},
		{name: "decline", result: `{"action":"decline"}`, want: Declined},
		{name: "cancel", result: `{"action":"cancel"}`, want: Cancelled},
		{name: "unknown action", result: `{"action":"maybe"}`, want: Declined, wantErr: "unknown action"},
		{name: "malformed", result: `[]`, want: Declined, wantErr: "malformed"},
		{name: "client failed", failure: `{"code":-32601,"message":"no"}`, want: Declined, wantErr: "failed elicitation/create"},
		{name: "no answer", err: context.DeadlineExceeded, want: Declined, wantErr: "deadline"},
	} {
		var asked string
		e := Elicitor{Request: func(_ context.Context, method string, params any) (json.RawMessage, json.RawMessage, error) {
			if el, ok := params.(questions.Elicit); ok {
				asked = method + ": " + el.Message
			}
			var f json.RawMessage
			if tc.failure != "" {
				f = json.RawMessage(tc.failure)
			}
			return json.RawMessage(tc.result), f, tc.err
		}}
		a, content, err := e.Confirm(context.Background(), q)
		if !strings.HasPrefix(asked, questions.MethodElicit+": ") || !strings.Contains(asked, "echo") {
			t.Errorf("%s: asked %q", tc.name, asked)
		}
		if a != tc.want {
			t.Errorf("%s: answer %v, want %v", tc.name, a, tc.want)
		}
		if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.wantErr)
		}
		if tc.err != nil && !errors.Is(err, tc.err) {
			t.Errorf("%s: error %v does not wrap %v", tc.name, err, tc.err)
		}
		if _, ok := content[tc.content]; tc.content != "" && !ok {
			t.Errorf("%s: content %v", tc.name, content)
		}
	}
}
