package tasks

import (
	"encoding/json"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/holler/internal/mcp/rawjson"
)

// The wire of the 2025-11-25 tasks that the server's other methods need: the capability that
// initialize declares, a tool's taskSupport in tools/list, and a tools/call that asks for a task.

// LegacyCapability is the 2025-11-25 server capability tasks.
type LegacyCapability struct {
	List     struct{} `json:"list"`
	Cancel   struct{} `json:"cancel"`
	Requests struct {
		Tools struct {
			Call struct{} `json:"call"`
		} `json:"tools"`
	} `json:"requests"`
}

// LegacyCapabilityOf returns initialize's tasks capability for a session whose task list is
// list: none for a session without tasks.
func LegacyCapabilityOf(list *List) *LegacyCapability {
	if list == nil {
		return nil
	}
	return &LegacyCapability{}
}

// IsLegacyMethod reports whether method is one of the 2025-11-25 tasks methods.
func IsLegacyMethod(method string) bool {
	switch method {
	case MethodGet, MethodResult, MethodList, MethodCancel:
		return true
	}
	return false
}

// Support returns a tool's taskSupport: every tool may run as a task (a job runs as one
// anyway; a tool that answers inline runs as a job when a task is asked of it), and some only
// so.
func Support(t *hootv1hoot.Tool) string {
	if t.TaskRequired {
		return "required"
	}
	return "optional"
}

// AsksForTask reports whether tools/call's params ask for a task (params.task, an object).
func AsksForTask(params json.RawMessage) bool {
	var p struct {
		Task json.RawMessage `json:"task"`
	}
	return json.Unmarshal(params, &p) == nil && rawjson.Kind(p.Task) == "object"
}
