// Package queryservice serves the tool of the "query" service, artifact_query, with a graph
// engine over the artifact store and the jobs.
package queryservice

import (
	"context"
	"errors"
	"log/slog"

	hootv1 "github.com/hootenanny/hoot/gen/hoot/v1"
	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
	"github.com/hootenanny/hoot/hootenanny/internal/graph"
	"github.com/hootenanny/hoot/hootenanny/internal/outage"
	"github.com/hootenanny/hoot/hooteproto"
)

// A Handler serves artifact_query.
type Handler struct {
	engine *graph.Engine
	log    *slog.Logger
}

var _ hootv1hoot.QueryHandler = (*Handler)(nil)

// New returns a Handler over engine. A nil logger means slog.Default().
func New(engine *graph.Engine, log *slog.Logger) *Handler {
	if log == nil {
		log = slog.Default()
	}
	return &Handler{engine: engine, log: log}
}

// ArtifactQuery answers a GraphQL query.
func (h *Handler) ArtifactQuery(ctx context.Context, req *hootv1.ArtifactQueryRequest) (*hootv1.ArtifactQueryResult, error) {
	res, err := h.engine.Query(ctx, req.GetQuery(), req.GetOperationName(), req.GetVariables())
	if err == nil {
		return res, nil
	}
	if e := (*hooteproto.Error)(nil); errors.As(err, &e) {
		return nil, e
	}
	if ctx.Err() != nil {
		return nil, hooteproto.AsError(ctx.Err())
	}
	if e := outage.Error("the query", err); e != nil {
		h.log.Warn("queryservice: the query failed", "err", err)
		return nil, e
	}
	h.log.Error("queryservice: the query failed", "err", err)
	return nil, hooteproto.NewError(hooteproto.CodeInternal, "reading the artifacts failed inside the worker").
		WithHint("this is a fault in the server, not in the call; if it keeps happening, tell the server's operator")
}
