// Package secretcache keeps, in each proxy replica, a bounded cache of
// sealed secrets: the storage row of a secret at its current version and its
// sealed parts (KEK version, wrapped data key, ciphertext), exactly as
// PostgreSQL returned them. It never holds plaintext: the proxy never sees
// any, and the enclave still authenticates whatever it is asked to open.
//
// Freshness: every change to a secret is logged by the writing transaction
// itself (triggers of migration 0030), and every replica polls the log for
// the changes committed since its previous poll (Run, store.SecretChangeFeed).
// A change drops its key before any later read; the cache serves only while
// its polls succeed (within MaxLag) and is flushed whenever the feed
// (re)starts. A fill races invalidations through generation counters: a
// read that began before an invalidation of its key never stores what it
// fetched.
package secretcache

import (
	"container/list"
	"hash/maphash"
	"sync"
	"sync/atomic"
	"time"

	"github.com/opencustody/ocv/internal/store"
)

// Key names a secret: (organization, vault, path).
type Key struct {
	OrgID, VaultID, Path string
}

// Entry is what the cache holds for a key: the secret's row and its sealed
// value, never plaintext. Its slices are shared and must not be modified.
type Entry struct {
	Secret store.Secret
	Sealed store.Sealed
}

// Config bounds the cache. MaxBytes 0 (or MaxEntries 0) disables it.
type Config struct {
	MaxEntries int
	MaxBytes   int64
	// TTL bounds how long an entry is served without being read again from
	// the database even if no change of it was seen: a backstop; 0 means no bound.
	TTL time.Duration
	// MaxLag: an entry is served only if a poll of the change log
	// succeeded within MaxLag (default 1 s).
	MaxLag time.Duration
	// HoldTTL bounds how long a local write in an idempotent transaction
	// keeps its key out of the cache when its change is never seen
	// (the transaction rolled back); default 2 minutes.
	HoldTTL time.Duration
	// Counters for the metrics; nil ones are private.
	Hits, Misses, Evictions, Invalidations *atomic.Uint64
	// Now is the clock of TTLs; nil is time.Now.
	Now func() time.Time
}

// stripes is the number of invalidation generations: a key's stripe is its
// hash modulo stripes. Two keys of one stripe only cost each other a fill.
const stripes = 256

// entryOverhead approximates the bytes of an entry beyond its slices.
const entryOverhead = 256

// Cache is a bounded LRU cache of sealed secrets, safe for concurrent use.
type Cache struct {
	cfg  Config
	seed maphash.Seed

	mu    sync.Mutex
	live  bool      // the change feed runs: changes arrive
	fresh time.Time // the last successful poll of the change feed
	epoch uint64    // moves on every flush and change of live
	gens  [stripes]uint64
	items map[Key]*list.Element // of *item
	lru   *list.List            // front: most recently used
	bytes int64
	holds map[Key]hold
}

type item struct {
	key    Key
	entry  Entry
	size   int64
	stored time.Time
}

// hold keeps a key out of the cache while a local write of it may be
// committed without the change feed having seen it yet.
type hold struct {
	n     int
	until time.Time
}

// Ticket is what a miss gives the caller to fill the key with what it then
// reads from the database; Fill refuses it when the key was invalidated (or
// the cache flushed) since.
type Ticket struct {
	key   Key
	epoch uint64
	gen   uint64
	ok    bool
}

// New returns an empty cache, not live until SetLive(true).
func New(cfg Config) *Cache {
	for _, c := range []**atomic.Uint64{&cfg.Hits, &cfg.Misses, &cfg.Evictions, &cfg.Invalidations} {
		if *c == nil {
			*c = new(atomic.Uint64)
		}
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxLag <= 0 {
		cfg.MaxLag = time.Second
	}
	if cfg.HoldTTL <= 0 {
		cfg.HoldTTL = 2 * time.Minute
	}
	return &Cache{cfg: cfg, seed: maphash.MakeSeed(), items: map[Key]*list.Element{}, lru: list.New(), holds: map[Key]hold{}}
}

// Enabled reports whether the cache may hold anything at all.
func (c *Cache) Enabled() bool {
	return c != nil && c.cfg.MaxBytes > 0 && c.cfg.MaxEntries > 0
}

func (c *Cache) stripe(k Key) int {
	var h maphash.Hash
	h.SetSeed(c.seed)
	h.WriteString(k.OrgID)
	h.WriteByte(0)
	h.WriteString(k.VaultID)
	h.WriteByte(0)
	h.WriteString(k.Path)
	return int(h.Sum64() % stripes)
}

// Get returns the entry of k on a hit. On a miss the ticket lets the caller
// Fill k with what it reads next.
func (c *Cache) Get(k Key) (Entry, Ticket, bool) {
	if !c.Enabled() {
		return Entry{}, Ticket{}, false
	}
	now := c.cfg.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.servingLocked(now) || c.heldLocked(k, now) {
		c.cfg.Misses.Add(1)
		return Entry{}, Ticket{}, false
	}
	if el, ok := c.items[k]; ok {
		it := el.Value.(*item)
		if c.cfg.TTL <= 0 || now.Sub(it.stored) < c.cfg.TTL {
			c.lru.MoveToFront(el)
			c.cfg.Hits.Add(1)
			return it.entry, Ticket{}, true
		}
		c.removeLocked(el)
	}
	c.cfg.Misses.Add(1)
	return Entry{}, Ticket{key: k, epoch: c.epoch, gen: c.gens[c.stripe(k)], ok: true}, false
}

// Fill stores e under the ticket's key unless the key was invalidated, the
// cache flushed or the change feed stopped since the ticket was issued.
// It reports whether e was stored.
func (c *Cache) Fill(t Ticket, e Entry) bool {
	if !t.ok || !c.Enabled() {
		return false
	}
	size := entryOverhead + int64(len(t.key.OrgID)+len(t.key.VaultID)+len(t.key.Path)) +
		int64(len(e.Sealed.WrappedDEK)+len(e.Sealed.Ciphertext)+len(e.Secret.Metadata)+
			len(e.Secret.OrgID)+len(e.Secret.ID)+len(e.Secret.VaultID)+len(e.Secret.Path)+len(e.Secret.Type))
	if size > c.cfg.MaxBytes {
		return false
	}
	now := c.cfg.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.servingLocked(now) || t.epoch != c.epoch || t.gen != c.gens[c.stripe(t.key)] || c.heldLocked(t.key, now) {
		return false
	}
	if el, ok := c.items[t.key]; ok {
		c.removeLocked(el)
	}
	c.items[t.key] = c.lru.PushFront(&item{key: t.key, entry: e, size: size, stored: now})
	c.bytes += size
	for c.bytes > c.cfg.MaxBytes || len(c.items) > c.cfg.MaxEntries {
		c.removeLocked(c.lru.Back())
		c.cfg.Evictions.Add(1)
	}
	return true
}

func (c *Cache) removeLocked(el *list.Element) {
	it := c.lru.Remove(el).(*item)
	delete(c.items, it.key)
	c.bytes -= it.size
}

// dropLocked invalidates k: its entry goes and fills begun before fail.
func (c *Cache) dropLocked(k Key) {
	c.gens[c.stripe(k)]++
	if el, ok := c.items[k]; ok {
		c.removeLocked(el)
	}
}

// Invalidate drops k (a local write of k committed).
func (c *Cache) Invalidate(k Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked(k)
	c.cfg.Invalidations.Add(1)
}

// InvalidateVault drops every key of one vault.
func (c *Cache) InvalidateVault(orgID, vaultID string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.gens {
		c.gens[i]++
	}
	for k, el := range c.items {
		if k.OrgID == orgID && k.VaultID == vaultID {
			c.removeLocked(el)
		}
	}
	c.cfg.Invalidations.Add(1)
}

// Notified applies a change of k seen in the database's log: it drops k
// and ends one local hold of it.
func (c *Cache) Notified(k Key) { c.dropAndRelease(k) }

// Hold keeps k out of the cache during a local write of it (and drops it);
// Release ends the hold when the write has committed or failed. A hold
// never released (a write in an idempotent transaction, committed later)
// ends when the change feed sees k change or after HoldTTL.
func (c *Cache) Hold(k Key) {
	now := c.cfg.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked(k)
	if len(c.holds) >= 1024 {
		for hk, h := range c.holds {
			if !now.Before(h.until) {
				delete(c.holds, hk)
			}
		}
	}
	h := c.holds[k]
	h.n++
	h.until = now.Add(c.cfg.HoldTTL)
	c.holds[k] = h
}

// Release ends one hold of k and drops k.
func (c *Cache) Release(k Key) { c.dropAndRelease(k) }

// dropAndRelease drops k and ends one hold of it.
func (c *Cache) dropAndRelease(k Key) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.dropLocked(k)
	if h, ok := c.holds[k]; ok {
		if h.n--; h.n <= 0 {
			delete(c.holds, k)
		} else {
			c.holds[k] = h
		}
	}
	c.cfg.Invalidations.Add(1)
}

func (c *Cache) heldLocked(k Key, now time.Time) bool {
	h, ok := c.holds[k]
	if !ok {
		return false
	}
	if now.Before(h.until) {
		return true
	}
	delete(c.holds, k)
	return false
}

// servingLocked reports whether the cache may serve and store: its feed
// runs and polled successfully within MaxLag.
func (c *Cache) servingLocked(now time.Time) bool {
	return c.live && now.Sub(c.fresh) < c.cfg.MaxLag
}

// SetLive flushes the cache and says whether its change feed runs: a cache
// whose feed does not run serves and stores nothing.
func (c *Cache) SetLive(live bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
	c.live = live
	c.fresh = c.cfg.Now()
}

// polled records a successful poll whose changes were applied.
func (c *Cache) polled() {
	now := c.cfg.Now()
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fresh = now
}

// Flush drops every entry and fails every fill begun before.
func (c *Cache) Flush() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.flushLocked()
}

func (c *Cache) flushLocked() {
	c.epoch++
	c.items = map[Key]*list.Element{}
	c.lru.Init()
	c.bytes = 0
	c.cfg.Invalidations.Add(1)
}

// Len returns the number of entries and their approximate bytes.
func (c *Cache) Len() (entries int, bytes int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items), c.bytes
}
