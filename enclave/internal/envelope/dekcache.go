package envelope

import (
	"container/list"
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"time"

	"github.com/opencustody/ocv/keyvault"
)

// DefaultCacheSize is the number of unwrapped DEKs kept when the caller
// does not choose.
const DefaultCacheSize = 4096

// CacheTTL is how long an unwrapped DEK stays cached after it was unwrapped
// (not after its last use). It bounds how long a key lives in memory; it is
// not what makes crypto-shredding work: every Open served from the cache
// first asks the key store whether the entry's KEK version still exists,
// and drops every entry of that version when it does not.
const CacheTTL = 5 * time.Minute

// cacheKey identifies a wrapped DEK under one KEK version:
// SHA-256(len‖kek id ‖ kek version ‖ wrapped DEK).
type cacheKey [sha256.Size]byte

func makeCacheKey(kekID string, kekVersion uint32, wrapped []byte) cacheKey {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint32(n[:4], uint32(len(kekID)))
	binary.BigEndian.PutUint32(n[4:], kekVersion)
	h.Write(n[:4])
	h.Write([]byte(kekID))
	h.Write(n[4:])
	h.Write(wrapped)
	var k cacheKey
	h.Sum(k[:0])
	return k
}

type cacheEntry struct {
	key     cacheKey
	kek     keyvault.KeyRef // the KEK version that wrapped dek
	dek     [dekSize]byte
	expires time.Time
}

// dekCache is a bounded LRU of unwrapped DEKs with a fixed lifetime per
// entry. It is safe for concurrent use.
//
// Why this is acceptable: the enclave's memory is the trust boundary of
// OCV. A DEK is unwrapped into that memory for every Open anyway; keeping
// up to size of them for at most CacheTTL changes how long a key lives in
// memory that nothing outside the enclave can read, not who can read it.
// It saves one HSM round trip per Open of a hot secret. Evicted and expired
// keys are zeroised; copies made by the AES key schedule are not reachable
// from here and are left to the garbage collector.
type dekCache struct {
	mu    sync.Mutex
	size  int
	ttl   time.Duration
	now   func() time.Time
	lru   *list.List // front = most recently used; values are *cacheEntry
	items map[cacheKey]*list.Element
}

func newDEKCache(size int, ttl time.Duration, now func() time.Time) *dekCache {
	if size <= 0 {
		return nil
	}
	return &dekCache{size: size, ttl: ttl, now: now, lru: list.New(), items: make(map[cacheKey]*list.Element, min(size, 1024))}
}

// get copies a cached DEK into dst and reports whether it was there. A nil
// cache never hits.
func (c *dekCache) get(k cacheKey, dst *[dekSize]byte) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.items[k]
	if !ok {
		return false
	}
	e := el.Value.(*cacheEntry)
	if !c.now().Before(e.expires) {
		c.removeLocked(el)
		return false
	}
	c.lru.MoveToFront(el)
	*dst = e.dek
	return true
}

// put stores a copy of dek, unwrapped with the KEK version kek.
func (c *dekCache) put(k cacheKey, kek keyvault.KeyRef, dek []byte) {
	if c == nil || len(dek) != dekSize {
		return
	}
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.items[k]; ok {
		c.lru.MoveToFront(el)
		return
	}
	e := &cacheEntry{key: k, kek: kek, expires: now.Add(c.ttl)}
	copy(e.dek[:], dek)
	c.items[k] = c.lru.PushFront(e)
	for c.lru.Len() > c.size {
		c.removeLocked(c.lru.Back())
	}
	// Drop expired entries from the cold end; entries used recently but
	// unwrapped long ago expire on their next get.
	for el := c.lru.Back(); el != nil && !now.Before(el.Value.(*cacheEntry).expires); el = c.lru.Back() {
		c.removeLocked(el)
	}
}

// dropKEK zeroises and drops every entry unwrapped with the KEK version
// kek (a KEK that is gone from the key store). It walks the whole cache:
// destruction is rare, and the cache is bounded.
func (c *dekCache) dropKEK(kek keyvault.KeyRef) int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for el := c.lru.Front(); el != nil; {
		next := el.Next()
		if el.Value.(*cacheEntry).kek == kek {
			c.removeLocked(el)
			n++
		}
		el = next
	}
	return n
}

// purge zeroises and drops every entry.
func (c *dekCache) purge() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for el := c.lru.Front(); el != nil; el = c.lru.Front() {
		c.removeLocked(el)
	}
}

// len is the number of entries (for tests).
func (c *dekCache) len() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}

func (c *dekCache) removeLocked(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.items, e.key)
	clear(e.dek[:])
}
