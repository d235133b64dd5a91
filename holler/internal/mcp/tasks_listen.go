package mcp

import (
	"context"
	"encoding/json"
	"sync"
	"time"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/holler/internal/mcp/jsonrpc"
)

// Task status notifications of the 2026-07-28 extension. A client that declares the extension
// may ask a subscriptions/listen stream for notifications/tasks about the tasks it names in the
// filter's taskIds; each notification carries the task as tasks/get would show it then. The
// stream serves the member through openTaskListen, which the server registers as a listen
// extension for "taskIds". Nothing is kept beyond the stream: it reads the tasks' jobs through
// the job tools, as tasks/get does, so any gateway serves it.

const (
	notifyTasks = "notifications/tasks"
	// listenTaskIDs is the member of a subscriptions/listen filter that names tasks.
	listenTaskIDs = "taskIds"
	// methodSubscriptionsListen is subscriptions/listen, whose filter may ask for task
	// notifications.
	methodSubscriptionsListen = "subscriptions/listen"
)

// maxListenTasks bounds the tasks one stream follows.
const maxListenTasks = 100

// taskListenPoll is how often a stream reads the jobs of the tasks it follows.
const taskListenPoll = time.Second

// asksForTasks reports whether a subscriptions/listen request's params ask for taskIds.
func asksForTasks(params json.RawMessage) bool {
	var p struct {
		Notifications map[string]json.RawMessage `json:"notifications"`
	}
	return json.Unmarshal(params, &p) == nil && p.Notifications[listenTaskIDs] != nil
}

// openTaskListen serves the filter member taskIds of one subscriptions/listen stream: value is
// its JSON value. It honours the ids of tasks this server made (others are left out of the
// acknowledgement), and sends each its status now and whenever it changes, until every one has
// ended or the stream stops.
func (s *Server) openTaskListen(rctx context.Context, value json.RawMessage, notify func(method string, params map[string]any)) (honoured any, stop func(), problem string) {
	var ids []string
	if json.Unmarshal(value, &ids) != nil {
		return nil, nil, "must be a list of task ids (strings)"
	}
	if len(ids) > maxListenTasks {
		return nil, nil, "names more than 100 tasks; open another stream for the rest"
	}
	jobs := make(map[string]string) // task id -> job id
	agreed := []string{}
	for _, id := range ids {
		if job, ok := s.states.JobOfTask(id); ok && jobs[id] == "" {
			jobs[id] = job
			agreed = append(agreed, id)
		}
	}
	if len(jobs) == 0 {
		return agreed, nil, ""
	}
	ctx, cancel := context.WithCancel(s.base)
	// The stream reads the tasks as the caller that opened it: another caller's are unknown.
	caller := callerOf(rctx)
	var wg sync.WaitGroup
	wg.Go(func() { s.followTasks(ctx, caller, jobs, notify) })
	return agreed, func() { cancel(); wg.Wait() }, ""
}

// followTasks sends notify the status of each task of jobs when it is first read and whenever
// it changes, until all have ended or ctx ends.
func (s *Server) followTasks(ctx context.Context, caller *hootv1.Caller, jobs map[string]string, notify func(method string, params map[string]any)) {
	last := make(map[string]string, len(jobs))
	tick := time.NewTicker(taskListenPoll)
	defer tick.Stop()
	for {
		for taskID, jobID := range jobs {
			cctx, cancel := context.WithTimeout(ctx, s.cfg.CallTimeout)
			job, r := s.callTaskTool(cctx, caller, nil, hootv1.TaskRole_TASK_ROLE_GET, jobID, taskID, nil)
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
			t := s.detailedTask(taskID, job)
			if t.Status == last[taskID] {
				continue
			}
			last[taskID] = t.Status
			notify(notifyTasks, taskNotificationParams(t))
			switch t.Status {
			case taskCompleted, taskFailed, taskCancelled:
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

// taskNotificationParams returns t as the params of notifications/tasks: the task as tasks/get shows it,
// without the result's resultType.
func taskNotificationParams(t taskResult) map[string]any {
	b, _ := json.Marshal(t) // a taskResult always encodes
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	delete(m, "resultType")
	return m
}
