package sessions

import (
	"context"
	"errors"
	"testing"

	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/loglevel"
	"github.com/hootenanny/hoot/holler/internal/mcp/questions"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
)

type recorder struct{ got []string }

func (r *recorder) Notify(n *jsonrpc.Notification) { r.got = append(r.got, n.Method) }

func TestSessionLifecycle(t *testing.T) {
	s := NewSession("s1")
	out := &recorder{}
	s.Out = out
	if s.IsInitialized() || s.ProtocolVersion() != era.Latest {
		t.Fatalf("a new session: initialized %v, version %q", s.IsInitialized(), s.ProtocolVersion())
	}
	s.Push(&jsonrpc.Notification{Method: "before"})
	list := &tasks.List{}
	if !s.Initialize(era.V20250618, Capabilities{Roots: true}, list) {
		t.Fatal("the first initialize was refused")
	}
	if s.Initialize(era.V20251125, Capabilities{}, nil) {
		t.Fatal("a second initialize was taken")
	}
	if s.ProtocolVersion() != era.V20250618 || !s.Caps().Roots || s.TaskList() != list {
		t.Errorf("after initialize: %q %+v %v", s.ProtocolVersion(), s.Caps(), s.TaskList())
	}
	s.Push(&jsonrpc.Notification{Method: "after"})
	if len(out.got) != 1 || out.got[0] != "after" {
		t.Errorf("pushed %v, want only what came after initialize", out.got)
	}
	if s.Passes(loglevel.Debug) || !s.Passes(loglevel.Info) {
		t.Error("the default level lets debug through or holds info back")
	}
	s.SetLogLevel(loglevel.Error)
	if s.Passes(loglevel.Warning) {
		t.Error("warning passes a session at error")
	}
}

func TestSessionRequests(t *testing.T) {
	s := NewSession("s2")
	ctx, done, err := s.Begin(context.Background(), "1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Begin(context.Background(), "1", nil); !errors.Is(err, ErrDuplicateID) {
		t.Errorf("a second request with id 1: %v", err)
	}
	if _, idle := s.IdleSince(); idle {
		t.Error("a session with a request in flight is idle")
	}
	if !s.Cancel("1") || !errors.Is(context.Cause(ctx), ErrCancelledByClient) {
		t.Errorf("cancel: cause %v", context.Cause(ctx))
	}
	done()
	if _, idle := s.IdleSince(); !idle {
		t.Error("a session without requests is not idle")
	}
	ctx2, _, err := s.Begin(context.Background(), "2", nil)
	if err != nil {
		t.Fatal(err)
	}
	s.End()
	if !s.HasEnded() || !errors.Is(context.Cause(ctx2), ErrEnded) {
		t.Errorf("end: ended %v, cause %v", s.HasEnded(), context.Cause(ctx2))
	}
	if _, _, err := s.Begin(context.Background(), "3", nil); !errors.Is(err, ErrEnded) {
		t.Errorf("a request after the end: %v", err)
	}
}

func TestReadCapabilities(t *testing.T) {
	for _, c := range []struct {
		raw, version string
		want         Capabilities
	}{
		{`{"elicitation":{}}`, era.V20250618, Capabilities{ElicitForm: true}},
		{`{"elicitation":{}}`, era.V20250326, Capabilities{}},
		{`{"elicitation":{"url":{}}}`, era.V20251125, Capabilities{ElicitURL: true}},
		{`{"sampling":{},"roots":{}}`, era.V20251125, Capabilities{Sampling: true, Roots: true}},
		{`not json`, era.V20251125, Capabilities{}},
	} {
		if got := ReadCapabilities([]byte(c.raw), c.version); got != c.want {
			t.Errorf("ReadCapabilities(%s, %s) = %+v, want %+v", c.raw, c.version, got, c.want)
		}
	}
	if !(Capabilities{Sampling: true}).CanAnswer(questions.MethodCreateMessage) || (Capabilities{}).CanAnswer(questions.MethodElicit) {
		t.Error("CanAnswer does not follow the capabilities")
	}
}
