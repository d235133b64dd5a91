package hooteproto

import (
	"slices"
	"sync"
)

// An Offer says which of a worker's services it offers its gateways now. A worker is built
// with the services it can serve; an Offer lets it withdraw some of them for a while and offer
// them again, without a new connection: each [Worker] that shares the Offer (one per gateway)
// announces READY again with the services offered, the gateways' lists of live services
// change, and MCP clients hear that the lists of tools, prompts and resources changed. A
// withdrawn service takes no calls. The zero value is not usable; use [NewOffer].
type Offer struct {
	mu        sync.Mutex
	withdrawn map[string]bool
	changed   chan struct{} // closed at the next change
}

// NewOffer returns an Offer that withholds the services named in withdrawn and offers all
// others.
func NewOffer(withdrawn ...string) *Offer {
	o := &Offer{withdrawn: make(map[string]bool), changed: make(chan struct{})}
	for _, s := range withdrawn {
		o.withdrawn[s] = true
	}
	return o
}

// Offered reports whether service is offered now.
func (o *Offer) Offered(service string) bool {
	if o == nil {
		return true
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return !o.withdrawn[service]
}

// Set offers service when on is true and withdraws it otherwise.
func (o *Offer) Set(service string, on bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.setLocked(service, on)
}

// Toggle withdraws service if it is offered and offers it if it is withdrawn, and reports
// whether it is offered afterwards.
func (o *Offer) Toggle(service string) (offered bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	on := o.withdrawn[service]
	o.setLocked(service, on)
	return on
}

func (o *Offer) setLocked(service string, on bool) {
	if o.withdrawn[service] == !on {
		return
	}
	if on {
		delete(o.withdrawn, service)
	} else {
		o.withdrawn[service] = true
	}
	close(o.changed)
	o.changed = make(chan struct{})
}

// Changed returns a channel that is closed at the next change.
func (o *Offer) Changed() <-chan struct{} {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.changed
}

// filter returns the names in services that are offered now, in their order.
func (o *Offer) filter(services []string) []string {
	if o == nil {
		return services
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return slices.DeleteFunc(slices.Clone(services), func(s string) bool { return o.withdrawn[s] })
}

// WithOffer makes a worker offer its gateways only the services that o offers, and announce
// again when that changes. Workers of one process share one Offer.
func WithOffer(o *Offer) WorkerOption {
	return workerOption(func(c *workerConfig) { c.offer = o })
}
