package ops

import (
	"container/list"
	"sync"
)

// policySetCacheBytes bounds the policy sets kept decoded, counted as three
// times their encoded size (decoded policies take more room).
const policySetCacheBytes = 64 << 20

// setCache keeps verified, decoded policy sets by the digest of their MAC
// message, least recently used first out, so a request that presents the
// same set again costs a SHA-256 instead of a key-store MAC and a decode.
// Safe for concurrent use.
type setCache struct {
	mu       sync.Mutex
	maxBytes int
	bytes    int
	lru      *list.List // of *setCacheEntry, most recent first
	m        map[[32]byte]*list.Element
}

type setCacheEntry struct {
	set  *sealedSet
	size int
}

func newSetCache(maxBytes int) *setCache {
	return &setCache{maxBytes: maxBytes, lru: list.New(), m: make(map[[32]byte]*list.Element)}
}

func (c *setCache) get(digest [32]byte) *sealedSet {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.m[digest]
	if !ok {
		return nil
	}
	c.lru.MoveToFront(el)
	return el.Value.(*setCacheEntry).set
}

// put adds s, whose encoding is encodedLen bytes, evicting the least
// recently used sets until it fits. A set larger than the whole cache is
// not kept.
func (c *setCache) put(s *sealedSet, encodedLen int) {
	size := 3*encodedLen + 256
	if size > c.maxBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[s.digest]; ok {
		return
	}
	for c.bytes+size > c.maxBytes {
		last := c.lru.Back()
		e := last.Value.(*setCacheEntry)
		c.lru.Remove(last)
		delete(c.m, e.set.digest)
		c.bytes -= e.size
	}
	c.m[s.digest] = c.lru.PushFront(&setCacheEntry{set: s, size: size})
	c.bytes += size
}

// len reports the number of cached sets.
func (c *setCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
