package sessions

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
)

// sent collects what Ask writes, and hands each request's id on.
type sent struct {
	mu  sync.Mutex
	ns  []*jsonrpc.Notification
	ids chan json.RawMessage
}

func (s *sent) Notify(n *jsonrpc.Notification) {
	s.mu.Lock()
	s.ns = append(s.ns, n)
	s.mu.Unlock()
	if n.ID != nil {
		s.ids <- n.ID
	}
}

func TestCallsAnswered(t *testing.T) {
	var c Calls
	sess := NewSession("s")
	out := &sent{ids: make(chan json.RawMessage, 1)}
	type answer struct {
		msg *jsonrpc.Message
		err error
	}
	got := make(chan answer, 1)
	go func() {
		msg, err := c.Ask(context.Background(), sess, out, "roots/list", map[string]any{})
		got <- answer{msg, err}
	}()
	id := <-out.ids
	if c.Deliver("another session", &jsonrpc.Message{ID: id}) {
		t.Fatal("a response from another session was delivered")
	}
	if !c.Deliver("s", &jsonrpc.Message{ID: id, Result: json.RawMessage(`{"roots":[]}`)}) {
		t.Fatal("the response was not delivered")
	}
	if a := <-got; a.err != nil || string(a.msg.Result) != `{"roots":[]}` {
		t.Fatalf("Ask = %+v, %v", a.msg, a.err)
	}
	if c.Deliver("s", &jsonrpc.Message{ID: id}) {
		t.Error("a second response to the same request was delivered")
	}
}

func TestCallsCancelled(t *testing.T) {
	var c Calls
	out := &sent{ids: make(chan json.RawMessage, 1)}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := c.Ask(ctx, NewSession("s"), out, "sampling/createMessage", nil)
		done <- err
	}()
	<-out.ids
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Ask after cancel: %v", err)
	}
	out.mu.Lock()
	defer out.mu.Unlock()
	if len(out.ns) != 2 || out.ns[1].Method != "notifications/cancelled" {
		t.Errorf("sent %d messages, the last %+v; want the request and its cancellation", len(out.ns), out.ns[len(out.ns)-1])
	}
}

// reply is a request's own stream, apart from the session's (as an HTTP POST's answer is).
type reply struct{ sent }

func (*reply) RequestStream() {}

// TestCallsWithdrawnOnSession: when the client itself cancelled the request a question belongs
// to, the withdrawal goes on the session's stream too, since such a client often no longer reads
// the request's; a question given up for another reason, or asked on the session's own stream,
// is withdrawn once.
func TestCallsWithdrawnOnSession(t *testing.T) {
	for _, tc := range []struct {
		name      string
		apart     bool
		cause     error
		onSession bool
	}{
		{"cancelled by the client, on a request's stream", true, ErrCancelledByClient, true},
		{"timed out, on a request's stream", true, context.DeadlineExceeded, false},
		{"cancelled by the client, on the session's stream", false, ErrCancelledByClient, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Calls
			sess := NewSession("s")
			session := &recorder{}
			sess.Out = session
			sess.Initialize(era.V20251125, Capabilities{Sampling: true}, nil)
			var out Notifier
			stream := &reply{sent{ids: make(chan json.RawMessage, 1)}}
			plain := &sent{ids: make(chan json.RawMessage, 1)}
			ids := plain.ids
			out = plain
			if tc.apart {
				out, ids = stream, stream.ids
			}
			ctx, cancel := context.WithCancelCause(context.Background())
			done := make(chan error, 1)
			go func() {
				_, err := c.Ask(ctx, sess, out, "sampling/createMessage", nil)
				done <- err
			}()
			<-ids
			cancel(tc.cause)
			<-done
			withdrawn := len(session.got) == 1 && session.got[0] == "notifications/cancelled"
			if withdrawn != tc.onSession {
				t.Errorf("the session's stream got %v; want the withdrawal there: %v", session.got, tc.onSession)
			}
		})
	}
}
