package zmqtransport

import "container/list"

// Defaults of the peer guard.
const (
	// DefaultMaxMalformed is how many malformed frames a peer may send before it is banned.
	DefaultMaxMalformed = 3
	// guardCapacity bounds how many peers the guard remembers, banned or with strikes; the
	// least recently heard of is forgotten first.
	guardCapacity = 1024
)

// A peerGuard decides, on the router side, which peers' frames are read. A peer that sends more
// than maxMalformed malformed frames, or a single frame over the size limit, is banned: its
// further frames are dropped unread. ZeroMQ gives no way to close one peer's connection on a
// ROUTER, so a ban is by routing identity, which ZeroMQ gives each new connection afresh. Only
// the owner goroutine uses it.
type peerGuard struct {
	maxMalformed int
	strikes      *lru[int]      // malformed frames so far, by peer
	banned       *lru[struct{}] // banned peers
}

func newPeerGuard(maxMalformed int) *peerGuard {
	return &peerGuard{maxMalformed: maxMalformed, strikes: newLRU[int](guardCapacity), banned: newLRU[struct{}](guardCapacity)}
}

// isBanned reports whether peer is banned, and keeps a banned peer that is still sending among
// the remembered.
func (g *peerGuard) isBanned(peer string) bool {
	_, ok := g.banned.get(peer)
	return ok
}

// strike records a malformed frame from peer and reports whether that bans it.
func (g *peerGuard) strike(peer string) bool {
	n, _ := g.strikes.get(peer)
	n++
	if n > g.maxMalformed {
		g.ban(peer)
		return true
	}
	g.strikes.put(peer, n)
	return false
}

func (g *peerGuard) ban(peer string) {
	g.strikes.remove(peer)
	g.banned.put(peer, struct{}{})
}

// lru is a map of bounded size that forgets its least recently used key when full.
type lru[V any] struct {
	max   int
	order *list.List // of *lruEntry[V], most recent first
	items map[string]*list.Element
}

type lruEntry[V any] struct {
	key   string
	value V
}

func newLRU[V any](max int) *lru[V] {
	return &lru[V]{max: max, order: list.New(), items: make(map[string]*list.Element)}
}

func (c *lru[V]) get(key string) (V, bool) {
	e, ok := c.items[key]
	if !ok {
		var zero V
		return zero, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*lruEntry[V]).value, true
}

func (c *lru[V]) put(key string, value V) {
	if e, ok := c.items[key]; ok {
		e.Value.(*lruEntry[V]).value = value
		c.order.MoveToFront(e)
		return
	}
	c.items[key] = c.order.PushFront(&lruEntry[V]{key: key, value: value})
	if c.order.Len() > c.max {
		oldest := c.order.Back()
		c.order.Remove(oldest)
		delete(c.items, oldest.Value.(*lruEntry[V]).key)
	}
}

func (c *lru[V]) remove(key string) {
	if e, ok := c.items[key]; ok {
		c.order.Remove(e)
		delete(c.items, key)
	}
}

func (c *lru[V]) len() int { return c.order.Len() }
