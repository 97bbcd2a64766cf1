package tokens

import "sync"

// cache remembers verified tokens by SHA-256 of the token: a token with the
// same hash is byte-for-byte the token that verified, so its signature,
// audience and claims need no second look; only its expiry does. Oldest
// entries go first when it is full. Safe for concurrent use.
type cache struct {
	mu    sync.Mutex
	max   int
	m     map[[32]byte]Claims
	order [][32]byte // FIFO ring of keys
	head  int
}

func newCache(max int) *cache {
	return &cache{max: max, m: make(map[[32]byte]Claims, min(max, 1024))}
}

func (c *cache) get(key [32]byte) (Claims, bool) {
	if c.max == 0 {
		return Claims{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.m[key]
	return cl, ok
}

func (c *cache) put(key [32]byte, cl Claims) {
	if c.max == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[key]; ok {
		return
	}
	if len(c.order) < c.max {
		c.order = append(c.order, key)
	} else {
		delete(c.m, c.order[c.head])
		c.order[c.head] = key
		c.head = (c.head + 1) % c.max
	}
	c.m[key] = cl
}

// len reports the number of cached tokens.
func (c *cache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
