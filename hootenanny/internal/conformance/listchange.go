package conformance

import (
	"context"
	"fmt"
	conformancev1 "github.com/hootenanny/hoot/gen/hoot/conformance/v1"
	"github.com/hootenanny/hoot/gen/hoot/conformance/v1/conformancev1hoot"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hooteproto"
)

// The fixtures of MCP 2026-07-28's list changes, per-request log level and custom headers.
//
// A list of tools or prompts changes here the way it changes in a fleet: a service comes or
// goes. test_trigger_tool_change and test_trigger_prompt_change withdraw one of two small
// services through the worker's Offer, or offer it again; the worker announces READY again to
// every gateway it serves, each gateway's list of live services changes, and each tells its
// listening clients that tools/list or prompts/list changed.

// The services the list-change fixtures make come and go.
const (
	DynamicToolService   = "conformance_dynamic_tool"
	DynamicPromptService = "conformance_dynamic_prompt"
)

// Services returns the conformance services, the fixtures and the two dynamic services, with
// offer as the switch of the list-change fixtures. The worker must be given the same offer
// (hooteproto.WithOffer).
func Services(offer *hooteproto.Offer) []hootv1hoot.Service {
	h := Handler{offer: offer}
	return []hootv1hoot.Service{
		conformancev1hoot.NewConformanceService(h),
		conformancev1hoot.NewConformanceDynamicToolService(h),
		conformancev1hoot.NewConformanceDynamicPromptService(h),
	}
}

var (
	_ conformancev1hoot.ConformanceDynamicToolHandler   = Handler{}
	_ conformancev1hoot.ConformanceDynamicPromptHandler = Handler{}
)

// TestLoggingTool logs three messages at level info through the worker's call context; the
// gateway passes on only those the request's log level lets through.
func (Handler) TestLoggingTool(ctx context.Context, _ *conformancev1.ConformanceLoggingToolRequest) (*conformancev1.ConformanceContentResult, error) {
	for _, msg := range []string{"Logging tool started", "Logging tool working", "Logging tool done"} {
		hooteproto.Log(ctx, hootv1.LogLevel_LOG_LEVEL_INFO, msg)
	}
	return blocks(text("Logging tool completed.")), nil
}

// TestTriggerToolChange withdraws the dynamic tool's service or offers it again.
func (h Handler) TestTriggerToolChange(context.Context, *conformancev1.ConformanceTriggerToolChangeRequest) (*conformancev1.ConformanceContentResult, error) {
	return h.toggle(DynamicToolService, "test_dynamic_tool", "tools/list")
}

// TestTriggerPromptChange withdraws the dynamic prompt's service or offers it again.
func (h Handler) TestTriggerPromptChange(context.Context, *conformancev1.ConformanceTriggerPromptChangeRequest) (*conformancev1.ConformanceContentResult, error) {
	return h.toggle(DynamicPromptService, "test_dynamic_prompt", "prompts/list")
}

func (h Handler) toggle(service, entry, list string) (*conformancev1.ConformanceContentResult, error) {
	if h.offer == nil {
		return nil, hooteproto.NewError(hooteproto.CodeUnavailable,
			"this worker serves the conformance fixtures without the switch of its services; start it with --conformance")
	}
	if h.offer.Toggle(service) {
		return blocks(text(fmt.Sprintf("%s is offered again: %s shows %s.", service, list, entry))), nil
	}
	return blocks(text(fmt.Sprintf("%s is withdrawn: %s no longer shows %s.", service, list, entry))), nil
}

// TestDynamicTool answers while its service is offered.
func (Handler) TestDynamicTool(context.Context, *conformancev1.ConformanceDynamicToolRequest) (*conformancev1.ConformanceContentResult, error) {
	return blocks(text("The dynamic tool is here.")), nil
}

// TestDynamicPrompt answers while its service is offered.
func (Handler) TestDynamicPrompt(context.Context, *conformancev1.ConformanceDynamicPromptRequest) (*conformancev1.ConformancePromptResult, error) {
	return prompt(message(text("The dynamic prompt is here."))), nil
}

// TestCustomHeader echoes the arguments that clients mirror into Mcp-Param headers.
func (Handler) TestCustomHeader(_ context.Context, req *conformancev1.ConformanceCustomHeaderRequest) (*conformancev1.ConformanceContentResult, error) {
	return blocks(text(fmt.Sprintf("region=%q priority=%d verbose=%t query=%q",
		req.GetRegion(), req.GetPriority(), req.GetVerbose(), req.GetQuery()))), nil
}
