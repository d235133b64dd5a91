package hooteproto

import (
	"log/slog"
	"time"

	"github.com/hootenanny/hoot/gen/hoot/v1/hootv1hoot"
)

// A BrokerOption configures a [Broker].
type BrokerOption interface {
	applyBroker(*brokerConfig)
}

// A WorkerOption configures a [Worker].
type WorkerOption interface {
	applyWorker(*workerConfig)
}

// An Option configures both sides of the wire alike, a [Broker] and a [Worker]: the heartbeat,
// the logger and the body limit. Options that concern one side only are a BrokerOption or a
// WorkerOption, so that handing one to the other side does not compile.
type Option interface {
	BrokerOption
	WorkerOption
}

// Defaults of the options.
const (
	DefaultHeartbeatInterval = 2500 * time.Millisecond
	DefaultLiveness          = 3
	DefaultCapacity          = 64
	DefaultQueue             = 1024
	DefaultDrainTimeout      = 10 * time.Second
)

// wireConfig is what both sides take: an Option sets it.
type wireConfig struct {
	heartbeat time.Duration
	liveness  int
	logger    *slog.Logger
	maxBody   int
}

// brokerConfig is a Broker's configuration.
type brokerConfig struct {
	wireConfig
	queue int
}

// workerConfig is a Worker's configuration.
type workerConfig struct {
	wireConfig
	capacity int
	name     string
	drain    time.Duration
	offer    *Offer
	// jobs runs the calls a caller wants run as jobs (asjob.go); nil refuses them.
	jobs      hootv1hoot.JobStarter
	serveHook ServeHook
	// ledger records the requestStates gateways accepted (ledger.go); nil serves no ledger.
	ledger StateLedger
}

func newWireConfig() wireConfig {
	return wireConfig{heartbeat: DefaultHeartbeatInterval, liveness: DefaultLiveness, maxBody: DefaultMaxBody}
}

func (c *wireConfig) fill() {
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
}

func newBrokerConfig(opts []BrokerOption) brokerConfig {
	c := brokerConfig{wireConfig: newWireConfig(), queue: DefaultQueue}
	for _, o := range opts {
		if o != nil {
			o.applyBroker(&c)
		}
	}
	c.fill()
	return c
}

func newWorkerConfig(opts []WorkerOption) workerConfig {
	c := workerConfig{wireConfig: newWireConfig(), capacity: DefaultCapacity, drain: DefaultDrainTimeout}
	for _, o := range opts {
		if o != nil {
			o.applyWorker(&c)
		}
	}
	c.fill()
	return c
}

// silence returns how long a peer may stay silent before it counts as gone.
func (c *wireConfig) silence() time.Duration { return c.heartbeat * time.Duration(c.liveness) }

// wireOption is an Option: it sets what both sides take.
type wireOption func(*wireConfig)

func (f wireOption) applyBroker(c *brokerConfig) { f(&c.wireConfig) }
func (f wireOption) applyWorker(c *workerConfig) { f(&c.wireConfig) }

type brokerOption func(*brokerConfig)

func (f brokerOption) applyBroker(c *brokerConfig) { f(c) }

type workerOption func(*workerConfig)

func (f workerOption) applyWorker(c *workerConfig) { f(c) }

// WithHeartbeat sets how often each side says it is alive and after how many missed
// heartbeats the other side counts as gone (defaults: 2.5s and 3). Non-positive values keep
// the default.
func WithHeartbeat(interval time.Duration, liveness int) Option {
	return wireOption(func(c *wireConfig) {
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
	return wireOption(func(c *wireConfig) { c.logger = l })
}

// WithMaxBody sets the largest protobuf body a side encodes (default DefaultMaxBody): the
// broker's requests, the worker's results. A result larger than that becomes an error that says
// so.
func WithMaxBody(n int) Option {
	return wireOption(func(c *wireConfig) {
		if n > 0 {
			c.maxBody = n
		}
	})
}

// WithCapacity sets how many requests a worker runs at once (default 64). The worker announces
// it, and the broker sends no more than that.
func WithCapacity(n int) WorkerOption {
	return workerOption(func(c *workerConfig) {
		if n > 0 {
			c.capacity = n
		}
	})
}

// WithName sets the name a worker announces, for logs (default: host and process id).
func WithName(name string) WorkerOption {
	return workerOption(func(c *workerConfig) { c.name = name })
}

// WithQueue sets how many calls may wait in the broker for a busy service before further calls
// fail at once as overloaded (default 1024). Zero or less keeps the default.
func WithQueue(n int) BrokerOption {
	return brokerOption(func(c *brokerConfig) {
		if n > 0 {
			c.queue = n
		}
	})
}

// WithDrainTimeout sets how long a stopping worker lets running calls finish before it cancels
// them (default 10s). Zero or less keeps the default.
func WithDrainTimeout(d time.Duration) WorkerOption {
	return workerOption(func(c *workerConfig) {
		if d > 0 {
			c.drain = d
		}
	})
}
