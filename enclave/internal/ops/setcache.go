package ops

import (
	"container/list"
	"sync"
)

// policySetCacheBytes bounds the policy sets kept decoded, counted as three
// times their encoded size (decoded policies take more room).
const policySetCacheBytes = 64 << 20

// setCache keeps verified, decoded sets (policy sets, guardrail sets) by
// the digest of their MAC message, least recently used first out, so a
// request that presents the same set again costs a SHA-256 instead of a
// key-store MAC and a decode. Safe for concurrent use.
type setCache[T any] struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	lru      *list.List // of *setCacheEntry[T], most recent first
	m        map[[32]byte]*list.Element
}

type setCacheEntry[T any] struct {
	digest [32]byte
	set    T
	size   int
}

func newSetCache[T any](maxBytes int) *setCache[T] {
	return &setCache[T]{maxBytes: maxBytes, lru: list.New(), m: make(map[[32]byte]*list.Element)}
}

func (c *setCache[T]) get(digest [32]byte) (T, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[digest]
	if !ok {
		var zero T
		return zero, false
	}
	c.lru.MoveToFront(el)
	return el.Value.(*setCacheEntry[T]).set, true
}

// put adds s under digest, its encoding being encodedLen bytes, evicting
// the least recently used sets until it fits. A set larger than the whole
// cache is not kept.
func (c *setCache[T]) put(digest [32]byte, s T, encodedLen int) {
	size := 3*encodedLen + 256
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[digest]; ok {
		return
	}
	for c.bytes+size > c.maxBytes {
		last := c.lru.Back()
		e := last.Value.(*setCacheEntry[T])
		c.lru.Remove(last)
		delete(c.m, e.digest)
		c.bytes -= e.size
	}
	c.m[digest] = c.lru.PushFront(&setCacheEntry[T]{digest: digest, set: s, size: size})
	c.bytes += size
}

// len reports the number of cached sets.
func (c *setCache[T]) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
