// Package systemservice serves the tools of the "system" service: the ones that check and
// measure the path from gateway to worker rather than touch any content.
package systemservice

import (
	"context"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

// A Handler serves the "system" tools for one worker.
type Handler struct {
	name string
}

var _ hootv1hoot.SystemHandler = (*Handler)(nil)

// New returns a Handler for the worker called name.
func New(name string) *Handler { return &Handler{name: name} }

// Echo returns the message unchanged, with the worker's name.
func (h *Handler) Echo(_ context.Context, req *hootv1.EchoRequest) (*hootv1.EchoResult, error) {
	return &hootv1.EchoResult{Message: req.GetMessage(), Worker: h.name}, nil
}
