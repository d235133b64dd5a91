package hooteproto

import (
	"log/slog"
	"testing"
	"time"
)

// The options of both sides reach both configurations; those of one side reach only its own.
func TestOptionsApart(t *testing.T) {
	logger := slog.New(slog.DiscardHandler)
	shared := []Option{WithHeartbeat(time.Second, 5), WithLogger(logger), WithMaxBody(1 << 10)}
	var bopts []BrokerOption
	var wopts []WorkerOption
	for _, o := range shared {
		bopts, wopts = append(bopts, o), append(wopts, o)
	}
	b := newBrokerConfig(append(bopts, WithQueue(7), nil))
	w := newWorkerConfig(append(wopts, WithCapacity(3), WithName("n"), WithDrainTimeout(time.Minute), nil))
	for side, c := range map[string]wireConfig{"broker": b.wireConfig, "worker": w.wireConfig} {
		if c.heartbeat != time.Second || c.liveness != 5 || c.logger != logger || c.maxBody != 1<<10 || c.silence() != 5*time.Second {
			t.Errorf("%s: shared options not applied: %+v", side, c)
		}
	}
	if b.queue != 7 {
		t.Errorf("broker queue = %d, want 7", b.queue)
	}
	if w.capacity != 3 || w.name != "n" || w.drain != time.Minute {
		t.Errorf("worker options not applied: capacity %d, name %q, drain %v", w.capacity, w.name, w.drain)
	}
}

// Without options, and with values that make no sense, each side keeps its defaults.
func TestOptionDefaults(t *testing.T) {
	b := newBrokerConfig([]BrokerOption{WithQueue(0), WithHeartbeat(-1, 0), WithMaxBody(-5)})
	w := newWorkerConfig([]WorkerOption{WithCapacity(-1), WithDrainTimeout(0)})
	if b.queue != DefaultQueue || b.heartbeat != DefaultHeartbeatInterval || b.liveness != DefaultLiveness || b.maxBody != DefaultMaxBody || b.logger == nil {
		t.Errorf("broker defaults: %+v", b)
	}
	if w.capacity != DefaultCapacity || w.drain != DefaultDrainTimeout || w.heartbeat != DefaultHeartbeatInterval || w.logger == nil {
		t.Errorf("worker defaults: %+v", w)
	}
}
