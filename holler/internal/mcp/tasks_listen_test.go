package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/era"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/tasks"
)

// TestTaskListen: a listen stream's taskIds follow the tasks this server made, each notified
// with its status now and on every change, until it ends.
func TestTaskListen(t *testing.T) {
	t.Parallel()
	jt := newJobTable()
	s, err := NewServer(&Config{Backend: jt.backend(), MaxTier: hootv1.Tier_TIER_STANDARD})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	c := newMCPHTTP(t, s)
	taskID := createTask(t, c, 1, "slow_compute", map[string]any{"seconds": 60})["taskId"].(string)

	var mu sync.Mutex
	var got []map[string]any
	arrived := make(chan struct{}, 1) // wakes waitFor after each notification
	notify := func(method string, params map[string]any) {
		if method != tasks.Notification {
			t.Errorf("notified %s", method)
		}
		mu.Lock()
		got = append(got, params)
		mu.Unlock()
		select {
		case arrived <- struct{}{}:
		default: // a wake-up is pending already
		}
	}
	waitFor := func(n int) map[string]any {
		t.Helper()
		timeout := time.After(5 * time.Second)
		for {
			mu.Lock()
			have := len(got)
			if have >= n {
				p := got[n-1]
				mu.Unlock()
				return p
			}
			mu.Unlock()
			select {
			case <-arrived:
			case <-timeout:
				t.Fatalf("%d notifications, want %d", have, n)
			}
		}
	}
	raw, _ := json.Marshal([]string{taskID, "not-a-task", taskID})
	honoured, stop, problem := s.openTaskListen(context.Background(), raw, notify)
	if problem != "" || stop == nil {
		t.Fatalf("openTaskListen: %q", problem)
	}
	if ids, _ := honoured.([]string); len(ids) != 1 || ids[0] != taskID {
		t.Errorf("honoured %v, want only the task this server made", honoured)
	}
	if p := waitFor(1); p["taskId"] != taskID || p["status"] != tasks.Working || p["resultType"] != nil {
		t.Errorf("first notification = %v", p)
	}
	taskAnswer(t, "tasks/cancel", c.taskCall(2, methodTasksCancel, taskID, nil))
	if p := waitFor(2); p["status"] != tasks.Cancelled {
		t.Errorf("notification after the cancel = %v", p)
	}
	stop()
	mu.Lock()
	n := len(got)
	mu.Unlock()
	if n != 2 {
		t.Errorf("%d notifications, want 2 (working, cancelled)", n)
	}

	for _, bad := range []string{`5`, `"x"`, `[` + strings.Repeat(`"a",`, tasks.MaxListen) + `"a"]`} {
		if _, _, problem := s.openTaskListen(context.Background(), json.RawMessage(bad), notify); problem == "" {
			t.Errorf("openTaskListen(%.20s...) accepted it", bad)
		}
	}
	// Asking for task notifications without declaring the extension is -32021.
	if f := s.checkTaskCapability(&message{Message: jsonrpc.Message{ID: json.RawMessage(`3`), Method: methodSubscriptionsListen, Params: json.RawMessage(`{"notifications":{"taskIds":["x"]}}`)}}, json.RawMessage(`{}`)); f == nil || f.resp.Error.Code != era.CodeMissingCapability {
		t.Errorf("listen for taskIds without the extension = %+v", f)
	}
}
