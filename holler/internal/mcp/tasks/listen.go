package tasks

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
)

// Task status notifications. A client that declares the extension may ask a
// subscriptions/listen stream for notifications/tasks about the tasks it names in the filter's
// taskIds; each notification carries the task as tasks/get would show it then. The stream
// serves the member through Listen. Nothing is kept beyond the stream: it reads the tasks' jobs
// through the job tools, as tasks/get does, so any gateway serves it.

const (
	// Notification is the method of a task's status notification.
	Notification = "notifications/tasks"
	// ListenMember is the member of a subscriptions/listen filter that names tasks.
	ListenMember = "taskIds"
)

// MaxListen bounds the tasks one stream follows.
const MaxListen = 100

// listenPoll is how often a stream reads the jobs of the tasks it follows.
const listenPoll = time.Second

// Listen serves the filter member taskIds of one subscriptions/listen stream, opened by caller:
// value is its JSON value, and the stream's notifications stop when base ends. It honours the ids of tasks this server made (others are left out of the
// acknowledgement), and sends each its status now and whenever it changes, until every one has
// ended or the stream stops.
func (ts *Tasks) Listen(base context.Context, caller *hootv1.Caller, value json.RawMessage, notify func(method string, params map[string]any)) (honoured any, stop func(), problem string) {
	var ids []string
	if json.Unmarshal(value, &ids) != nil {
		return nil, nil, "must be a list of task ids (strings)"
	}
	if len(ids) > MaxListen {
		return nil, nil, "names more than 100 tasks; open another stream for the rest"
	}
	jobs := make(map[string]string) // task id -> job id
	agreed := []string{}
	for _, id := range ids {
		if job, ok := ts.ids.JobOfTask(id); ok && jobs[id] == "" {
			jobs[id] = job
			agreed = append(agreed, id)
		}
	}
	if len(jobs) == 0 {
		return agreed, nil, ""
	}
	ctx, cancel := context.WithCancel(base)
	// The stream reads the tasks as the caller that opened it: another caller's are unknown.
	var wg sync.WaitGroup
	wg.Go(func() { ts.follow(ctx, caller, jobs, notify) })
	return agreed, func() { cancel(); wg.Wait() }, ""
}

// follow sends notify the status of each task of jobs when it is first read and whenever
// it changes, until all have ended or ctx ends.
func (ts *Tasks) follow(ctx context.Context, caller *hootv1.Caller, jobs map[string]string, notify func(method string, params map[string]any)) {
	last := make(map[string]string, len(jobs))
	tick := time.NewTicker(listenPoll)
	defer tick.Stop()
	for {
		for taskID, jobID := range jobs {
			cctx, cancel := context.WithTimeout(ctx, ts.timeout)
			job, r := ts.Job(cctx, caller, nil, hootv1.TaskRole_TASK_ROLE_GET, jobID, taskID, nil)
			cancel()
			if ctx.Err() != nil {
				return
			}
			if r != nil {
				if r.Error != nil && r.Error.Code == jsonrpc.CodeInvalidParams {
					delete(jobs, taskID) // no longer kept
				}
				continue
			}
			t := ts.Detailed(taskID, job)
			if t.Status == last[taskID] {
				continue
			}
			last[taskID] = t.Status
			notify(Notification, notificationParams(t))
			switch t.Status {
			case Completed, Failed, Cancelled:
				delete(jobs, taskID)
			}
		}
		if len(jobs) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// notificationParams returns t as the params of notifications/tasks: the task as tasks/get shows it,
// without the result's resultType.
func notificationParams(t Task) map[string]any {
	b, _ := json.Marshal(t) // a Task always encodes
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	delete(m, "resultType")
	return m
}
