package jobservice

import (
	"context"
	"errors"
	"fmt"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/internal/jobs"
	"github.com/hootenanny/hoot/hooteproto"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// resumeKey marks the context of a call that is a job taken up again: StartJob puts the job's
// work in the slot it holds instead of starting a job.
type resumeKey struct{}

// Resumer returns the [jobs.Resumer] of the tools that services serve: the jobs of the tools
// declared resumable in the schema are run again from their stored request, dispatched through
// the same generated services as a call, so the work is the tool's own.
func (h *Handler) Resumer(services []hootv1hoot.Service) jobs.Resumer {
	r := resumer{h: h, services: make(map[string]hootv1hoot.Service)}
	for _, s := range services {
		for _, tool := range s.Tools {
			r.services[tool] = s
		}
	}
	return r
}

type resumer struct {
	h        *Handler
	services map[string]hootv1hoot.Service
}

func (r resumer) Resumable(tool string) bool {
	_, served := r.services[tool]
	return served && resumableTools[tool]
}

func (r resumer) Serves(tool string) bool {
	_, served := r.services[tool]
	return served
}

// Resume returns the work of a job of a tool this worker serves. The runner asks only for jobs
// that may run again: of a resumable tool, or that waited for answers and got them.
func (r resumer) Resume(tool string, request []byte) (jobs.Func, error) {
	if !r.Serves(tool) {
		return nil, fmt.Errorf("%s is not a tool of this worker", tool)
	}
	p := new(hootv1.Payload)
	if err := proto.Unmarshal(request, p); err != nil {
		return nil, fmt.Errorf("the stored request does not decode: %w", err)
	}
	if got := toolOf(p); got != tool {
		return nil, fmt.Errorf("the stored request is a call of %q, not of %s", got, tool)
	}
	svc := r.services[tool]
	if requestOptions(p).GetKind() != hootv1.Kind_KIND_JOB {
		// A call of a tool that answers inline, run as a job because its caller asked for a
		// task: its work is the call itself.
		return r.h.work(tool, func(ctx context.Context) (*hootv1.Result, error) {
			return hooteproto.RunInline(ctx, svc, p, r.h.log)
		}), nil
	}
	return func(ctx context.Context, report jobs.ProgressFunc) jobs.Outcome {
		var work jobs.Func
		if _, err := svc.Dispatch(context.WithValue(ctx, resumeKey{}, &work), p); err != nil || work == nil {
			if err == nil {
				err = errors.New("the tool did not start as a job")
			}
			return jobs.Outcome{Failed: true, Message: "the job could not run again: " + err.Error()}
		}
		return work(ctx, report)
	}, nil
}

// toolOf returns the name of the tool p calls, or "".
func toolOf(p *hootv1.Payload) string {
	return requestOptions(p).GetName()
}

// requestOptions returns the options of the tool p calls (a carried schema's tool included, see
// hooteproto.RequestOf), or nil.
func requestOptions(p *hootv1.Payload) *hootv1.ToolOptions {
	m := hooteproto.RequestOf(p)
	if m == nil {
		return nil
	}
	opts, _ := proto.GetExtension(m.ProtoReflect().Descriptor().Options(), hootv1.E_Tool).(*hootv1.ToolOptions)
	return opts
}

func toolOptions(fd protoreflect.FieldDescriptor) *hootv1.ToolOptions {
	if fd.Message() == nil {
		return nil
	}
	opts, _ := proto.GetExtension(fd.Message().Options(), hootv1.E_Tool).(*hootv1.ToolOptions)
	return opts
}

// resumableTools holds the tools of kind JOB that the schema declares resumable.
var resumableTools = func() map[string]bool {
	yes := make(map[string]bool)
	fields := (&hootv1.Payload{}).ProtoReflect().Descriptor().Oneofs().ByName("request").Fields()
	for i := range fields.Len() {
		if o := toolOptions(fields.Get(i)); o.GetResumable() && o.GetKind() == hootv1.Kind_KIND_JOB {
			yes[o.GetName()] = true
		}
	}
	return yes
}()
