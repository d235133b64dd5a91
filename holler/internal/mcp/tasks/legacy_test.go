package tasks

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/content"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
	"github.com/hootenanny/hoot/holler/internal/mcp/toolresult"
)

// TestListKeepsTheNewest checks that a session's task list forgets its oldest ids beyond
// MaxListed and lists the newest first.
func TestListKeepsTheNewest(t *testing.T) {
	t.Parallel()
	var l List
	for i := range MaxListed + 5 {
		l.Add(strconv.Itoa(i))
	}
	ids := l.NewestFirst()
	if len(ids) != MaxListed || ids[0] != strconv.Itoa(MaxListed+4) || ids[len(ids)-1] != "5" {
		t.Errorf("%d ids, newest %s, oldest %s", len(ids), ids[0], ids[len(ids)-1])
	}
}

// TestLegacyOf checks that in 2025-11-25 a tool's error fails the task, where the 2026-07-28
// extension completes it with an isError result.
func TestLegacyOf(t *testing.T) {
	t.Parallel()
	ok := Task{TaskID: "t", Status: Completed, Result: &Inlined{Result: toolresult.Result{Content: []content.Block{content.Text("x")}}}}
	bad := Task{TaskID: "t", Status: Completed, Result: &Inlined{Result: toolresult.Result{IsError: true}}}
	if got := LegacyOf(ok).Status; got != Completed {
		t.Errorf("a result: %s", got)
	}
	if got := LegacyOf(bad).Status; got != Failed {
		t.Errorf("a tool's error: %s", got)
	}
}

// TestServeLegacy checks tasks/result of a task that waits for input on a transport that
// cannot ask the client, tasks/cancel of an ended task, and tasks/list's pages and cursor.
func TestServeLegacy(t *testing.T) {
	t.Parallel()
	asking := &hootv1.Job{Id: "ask", Status: hootv1.JobStatus_JOB_STATUS_INPUT_REQUIRED, Questions: map[string]*hootv1.ClientRequest{
		"q-1": {Request: &hootv1.ClientRequest_Elicitation{Elicitation: &hootv1.ElicitationRequest{Message: "Sure?"}}}}}
	done := &hootv1.Job{Id: "ok", Status: hootv1.JobStatus_JOB_STATUS_SUCCEEDED, ToolAnswered: true,
		Result: &hootv1.Result{Result: &hootv1.Result_Echo{Echo: &hootv1.EchoResult{Message: "x"}}}}
	ts, _ := newTasks(asking, done)
	var list List
	for range listPageSize + 1 {
		list.Add("task-ok")
	}
	serve := func(method, params string) *jsonrpc.Response {
		return ts.ServeLegacy(context.Background(), nil, json.RawMessage("1"), method, json.RawMessage(params), &list, nil)
	}
	r := serve(MethodResult, `{"taskId":"task-ask"}`)
	if r.Error == nil || !strings.Contains(r.Error.Message, "cannot ask for") {
		t.Errorf("tasks/result of a waiting task without a way to ask: %+v", r)
	}
	r = serve(MethodCancel, `{"taskId":"task-ok"}`)
	if r.Error == nil || !strings.Contains(r.Error.Message, "the task has ended (completed)") {
		t.Errorf("tasks/cancel of an ended task: %+v", r)
	}
	page := func(r *jsonrpc.Response) (int, string) {
		t.Helper()
		b, err := json.Marshal(r.Result)
		if err != nil || r.Error != nil {
			t.Fatalf("tasks/list: %+v", r)
		}
		var p struct {
			Tasks      []LegacyTask
			NextCursor string
		}
		_ = json.Unmarshal(b, &p)
		return len(p.Tasks), p.NextCursor
	}
	n, next := page(serve(MethodList, `{}`))
	if n != listPageSize || next == "" {
		t.Fatalf("first page: %d tasks, next %q", n, next)
	}
	if n, next = page(serve(MethodList, `{"cursor":"`+next+`"}`)); n != 1 || next != "" {
		t.Errorf("second page: %d tasks, next %q", n, next)
	}
	if r := serve(MethodList, `{"cursor":"-1"}`); r.Error == nil || r.Error.Code != jsonrpc.CodeInvalidParams {
		t.Errorf("a forged cursor: %+v", r)
	}
}
