package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/hootenanny/hoot/hooteproto/hoottrace"
	"go.opentelemetry.io/otel/trace"
)

// startTraces sets up tracing as the OTEL_* environment asks: it returns the provider (nil when
// tracing is off) and the function that sends the last spans on the way out.
func startTraces(ctx context.Context, logger *slog.Logger) (trace.TracerProvider, func(), error) {
	tp, shutdown, err := hoottrace.Setup(ctx, "holler")
	if err != nil {
		return nil, nil, fmt.Errorf("traces: %w (check OTEL_EXPORTER_OTLP_ENDPOINT and the other OTEL_EXPORTER_OTLP_* variables)", err)
	}
	if tp != nil {
		logger.Info("sending traces over OTLP/HTTP")
	}
	return tp, func() { hoottrace.Shutdown(ctx, shutdown, logger) }, nil
}
