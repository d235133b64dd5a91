package hooteproto

import (
	"log/slog"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

// An Option configures a [Broker] or a [Worker]. Options that concern only one of them are
// ignored by the other.
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// Defaults of the options.
const (
	DefaultHeartbeatInterval = 2500 * time.Millisecond
	DefaultLiveness          = 3
	DefaultCapacity          = 64
	DefaultQueue             = 1024
	DefaultDrainTimeout      = 10 * time.Second
)

type config struct {
	heartbeat time.Duration
	liveness  int
	logger    *slog.Logger
	capacity  int
	name      string
	maxBody   int
	queue     int
	drain     time.Duration
	offer     *Offer
	// jobs runs the calls a caller wants run as jobs (asjob.go); nil refuses them.
	jobs      hootv1hoot.JobStarter
	serveHook ServeHook
	// ledger records the requestStates gateways accepted (ledger.go); nil serves no ledger.
	ledger StateLedger
}

func newConfig(opts []Option) config {
	c := config{
		heartbeat: DefaultHeartbeatInterval,
		liveness:  DefaultLiveness,
		capacity:  DefaultCapacity,
		maxBody:   DefaultMaxBody,
		queue:     DefaultQueue,
		drain:     DefaultDrainTimeout,
	}
	for _, o := range opts {
		o.apply(&c)
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// silence returns how long a peer may stay silent before it counts as gone.
func (c *config) silence() time.Duration { return c.heartbeat * time.Duration(c.liveness) }

// WithHeartbeat sets how often each side says it is alive and after how many missed
// heartbeats the other side counts as gone (defaults: 2.5s and 3). Non-positive values keep
// the default.
func WithHeartbeat(interval time.Duration, liveness int) Option {
	return optionFunc(func(c *config) {
		if interval > 0 {
			c.heartbeat = interval
		}
		if liveness > 0 {
			c.liveness = liveness
		}
	})
}

// WithLogger sets the logger for reports about peers and faults (default: discard).
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) { c.logger = l })
}

// WithCapacity sets how many requests a worker runs at once (default 64). The worker announces
// it, and the broker sends no more than that.
func WithCapacity(n int) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.capacity = n
		}
	})
}

// WithName sets the name a worker announces, for logs (default: host and process id).
func WithName(name string) Option {
	return optionFunc(func(c *config) { c.name = name })
}

// WithMaxBody sets the largest protobuf body a side encodes (default DefaultMaxBody). A result
// larger than that becomes an error that says so.
func WithMaxBody(n int) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.maxBody = n
		}
	})
}

// WithQueue sets how many calls may wait in the broker for a busy service before further calls
// fail at once as overloaded (default 1024). Zero or less keeps the default.
func WithQueue(n int) Option {
	return optionFunc(func(c *config) {
		if n > 0 {
			c.queue = n
		}
	})
}

// WithDrainTimeout sets how long a stopping worker lets running calls finish before it cancels
// them (default 10s). Zero or less keeps the default.
func WithDrainTimeout(d time.Duration) Option {
	return optionFunc(func(c *config) {
		if d > 0 {
			c.drain = d
		}
	})
}
