package hooteproto

import hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"

// A Call is one tool call as the gateway hands it to a Backend or the Broker: what to call, on
// whose behalf, and the ways the running call reaches back to the client. Everything the call
// needs is here; the context given with it carries only its deadline, its cancellation and its
// trace.
type Call struct {
	// Service names the workers' service that serves the tool.
	Service string
	// Payload is the tool's typed request.
	Payload *hootv1.Payload
	// Caller is who the gateway's access control let in, named to the worker in the request
	// (hoot.v1.Request.caller): the worker records it as the owner of a job the call starts, and
	// shows a caller below the admin tier only its own jobs. Nil is a call of a gateway that
	// checks no tokens.
	Caller *hootv1.Caller
	// Progress receives the call's progress reports on the calling goroutine; nil drops them.
	Progress func(*hootv1.Progress)
	// Ask carries the handler's questions for the client (AskClient) to it and returns the
	// answers; nil answers every question with an unavailable error.
	Ask ClientAsker
	// AsJob asks the worker to run a call of a tool that answers inline as a job
	// (hoot.v1.Request.as_job): it answers job_started at once and keeps the tool's answer as the
	// job's result.
	AsJob bool
}
