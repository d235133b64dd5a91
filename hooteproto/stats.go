package hooteproto

import (
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// BrokerStats is what a Broker has seen, for an operator's metrics: the services its live
// workers serve, and counts since it started.
type BrokerStats struct {
	// Services are the services of the live workers, sorted by name.
	Services []ServiceStats
	// WorkersLost counts workers forgotten, by why: "heartbeats" (silent too long),
	// "connection" (their link closed) and "disconnected" (they said goodbye).
	WorkersLost map[string]uint64
	// HeartbeatsMissed counts, over every worker, the heartbeat intervals that passed without a
	// frame from it: a worker that is slow or on its way out.
	HeartbeatsMissed uint64
	// FramesRefused counts frames that arrived whole but were refused: a frame only the gateway
	// may send, a malformed or unacceptable READY, a malformed ASK.
	FramesRefused uint64
}

// ServiceStats describes one service across the live workers that serve it.
type ServiceStats struct {
	Name string
	// Workers is how many live workers serve it; Draining of them take no new calls.
	Workers, Draining int
	// Capacity is how many calls its workers take at once, together; InFlight how many they
	// hold now (a worker's calls count for each service it serves).
	Capacity, InFlight int
	// Queued is how many calls wait for a free worker of the service.
	Queued int
}

// brokerCounters are the Broker's counts since it started.
type brokerCounters struct {
	lostHeartbeats, lostConnection, lostDisconnected atomic.Uint64
	heartbeatsMissed                                 atomic.Uint64
	framesRefused                                    atomic.Uint64
}

// countLost counts a worker forgotten for why, one of the reasons drop is given.
func (c *brokerCounters) countLost(why string) {
	switch why {
	case whySilent:
		c.lostHeartbeats.Add(1)
	case whyLinkClosed:
		c.lostConnection.Add(1)
	case whyDisconnected:
		c.lostDisconnected.Add(1)
	}
}

// Stats returns what the broker has seen so far.
func (b *Broker) Stats() BrokerStats {
	b.mu.Lock()
	by := map[string]*ServiceStats{}
	for _, w := range b.workers {
		for _, s := range w.services {
			st := by[s]
			if st == nil {
				st = &ServiceStats{Name: s}
				by[s] = st
			}
			st.Workers++
			if w.capacity == 0 {
				st.Draining++
			}
			st.Capacity += w.capacity
			st.InFlight += w.inflight
		}
	}
	for _, q := range b.queue {
		st := by[q.service]
		if st == nil {
			st = &ServiceStats{Name: q.service}
			by[q.service] = st
		}
		st.Queued++
	}
	b.mu.Unlock()
	out := BrokerStats{
		WorkersLost: map[string]uint64{
			"heartbeats":   b.counters.lostHeartbeats.Load(),
			"connection":   b.counters.lostConnection.Load(),
			"disconnected": b.counters.lostDisconnected.Load(),
		},
		HeartbeatsMissed: b.counters.heartbeatsMissed.Load(),
		FramesRefused:    b.counters.framesRefused.Load(),
	}
	for _, st := range by {
		out.Services = append(out.Services, *st)
	}
	slices.SortFunc(out.Services, func(a, b ServiceStats) int {
		switch {
		case a.Name < b.Name:
			return -1
		case a.Name > b.Name:
			return 1
		}
		return 0
	})
	return out
}

// missedHeartbeats counts the workers that have been silent for longer than their heartbeat
// interval, at one of the broker's heartbeat ticks.
func (b *Broker) missedHeartbeatsLocked(now time.Time) {
	for _, w := range b.workers {
		if interval := w.silence / time.Duration(max(b.cfg.liveness, 1)); interval > 0 && now.Sub(w.lastSeen) > interval {
			b.counters.heartbeatsMissed.Add(1)
		}
	}
}

// Why a worker is forgotten, as drop logs it and Stats counts it.
const (
	whySilent       = "it stopped sending heartbeats"
	whyLinkClosed   = "its connection closed"
	whyDisconnected = "the worker disconnected"
)

// WorkerStats counts the calls a Worker has answered since it started, by service.
type WorkerStats struct {
	Services []WorkerServiceStats
}

// WorkerServiceStats counts one service's calls: all answered, and those answered with an error.
type WorkerServiceStats struct {
	Name          string
	Calls, Failed uint64
}

// workerStats keeps a Worker's counts; its services are few and fixed, so a map under a lock
// is plenty.
type workerStats struct {
	mu sync.Mutex
	by map[string]*WorkerServiceStats
}

func (s *workerStats) record(service string, failed bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.by == nil {
		s.by = map[string]*WorkerServiceStats{}
	}
	st := s.by[service]
	if st == nil {
		st = &WorkerServiceStats{Name: service}
		s.by[service] = st
	}
	st.Calls++
	if failed {
		st.Failed++
	}
}

// Stats returns the calls the worker has answered so far.
func (w *Worker) Stats() WorkerStats {
	w.stats.mu.Lock()
	defer w.stats.mu.Unlock()
	var out WorkerStats
	for _, st := range w.stats.by {
		out.Services = append(out.Services, *st)
	}
	slices.SortFunc(out.Services, func(a, b WorkerServiceStats) int { return strings.Compare(a.Name, b.Name) })
	return out
}
