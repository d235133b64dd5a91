package sse

import (
	"sync"
	"sync/atomic"
)

// Why events were dropped, as a Budget's drop hook hears it.
const (
	// DropSession: the log held more events or bytes than its own bounds allow.
	DropSession = "session"
	// DropTotal: the logs of a Budget together held more bytes than it allows.
	DropTotal = "total"
)

// A Budget bounds the bytes of events that many logs hold together. When they would hold more,
// the oldest events of all of them go first, whichever log holds them. A nil *Budget bounds
// nothing.
type Budget struct {
	max    int64
	onDrop func(tag, why string, events, bytes int)

	mu         sync.Mutex
	head, tail *budgetNode
	bytes      int64

	droppedEvents, droppedBytes [2]atomic.Uint64
}

// A budgetNode is one buffered event in the order of all the budget's events.
type budgetNode struct {
	log        *Log
	size       int
	linked     bool
	prev, next *budgetNode
}

// NewBudget returns a Budget of max bytes. onDrop, when not nil, hears of every drop from its
// logs: the log's tag, why (DropSession or DropTotal), and how many events and bytes went. It
// is called with no lock held, on the goroutine that appended.
func NewBudget(max int64, onDrop func(tag, why string, events, bytes int)) *Budget {
	return &Budget{max: max, onDrop: onDrop}
}

// Max returns the budget's bound.
func (b *Budget) Max() int64 { return b.max }

// Bytes returns the bytes its logs hold now.
func (b *Budget) Bytes() int64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.bytes
}

// Dropped returns the events and bytes dropped so far for why (DropSession or DropTotal).
func (b *Budget) Dropped(why string) (events, bytes uint64) {
	if b == nil {
		return 0, 0
	}
	i := dropIndex(why)
	return b.droppedEvents[i].Load(), b.droppedBytes[i].Load()
}

func dropIndex(why string) int {
	if why == DropTotal {
		return 1
	}
	return 0
}

// link puts a new event of size bytes of l at the end of the order. l.mu is held.
func (b *Budget) link(l *Log, size int) *budgetNode {
	nd := &budgetNode{log: l, size: size, linked: true}
	b.mu.Lock()
	nd.prev = b.tail
	if b.tail != nil {
		b.tail.next = nd
	} else {
		b.head = nd
	}
	b.tail = nd
	b.bytes += int64(size)
	b.mu.Unlock()
	return nd
}

// unlink takes nd out of the order, once.
func (b *Budget) unlink(nd *budgetNode) {
	if b == nil || nd == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !nd.linked {
		return
	}
	nd.linked = false
	if nd.prev != nil {
		nd.prev.next = nd.next
	} else {
		b.head = nd.next
	}
	if nd.next != nil {
		nd.next.prev = nd.prev
	} else {
		b.tail = nd.prev
	}
	nd.prev, nd.next, nd.log = nil, nil, nil
	b.bytes -= int64(nd.size)
}

// dropped counts a drop and tells the hook.
func (b *Budget) dropped(tag, why string, events, bytes int) {
	if b == nil || events == 0 {
		return
	}
	i := dropIndex(why)
	b.droppedEvents[i].Add(uint64(events))
	b.droppedBytes[i].Add(uint64(bytes))
	if b.onDrop != nil {
		b.onDrop(tag, why, events, bytes)
	}
}

// enforce drops the oldest events of any log until the logs hold no more than the budget.
// It holds no log's lock: each drop locks the log that holds the event (a log's lock is always
// taken before the budget's).
func (b *Budget) enforce() {
	if b == nil {
		return
	}
	type drop struct{ events, bytes int }
	var drops map[*Log]*drop
	for {
		b.mu.Lock()
		if b.bytes <= b.max || b.head == nil {
			b.mu.Unlock()
			break
		}
		nd := b.head
		l := nd.log
		b.mu.Unlock()
		if l == nil {
			continue // unlinked meanwhile
		}
		if n, ok := l.dropOldest(nd); ok {
			if drops == nil {
				drops = make(map[*Log]*drop)
			}
			d := drops[l]
			if d == nil {
				d = &drop{}
				drops[l] = d
			}
			d.events++
			d.bytes += n
		}
	}
	for l, d := range drops {
		b.dropped(l.tag, DropTotal, d.events, d.bytes)
	}
}
