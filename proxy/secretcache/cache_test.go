package secretcache

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/opencustody/ocv/internal/store"
)

func entry(version uint32, ciphertext int) Entry {
	return Entry{Secret: store.Secret{Version: version}, Sealed: store.Sealed{KEKVersion: 1, WrappedDEK: make([]byte, 40), Ciphertext: make([]byte, ciphertext)}}
}

func key(i int) Key { return Key{OrgID: "o", VaultID: "v", Path: fmt.Sprintf("p%d", i)} }

func liveCache(cfg Config) *Cache {
	if cfg.MaxLag == 0 {
		cfg.MaxLag = time.Hour // tests that move the clock do not poll
	}
	c := New(cfg)
	c.SetLive(true)
	return c
}

// fill is a read that missed and then filled k.
func fill(c *Cache, k Key, e Entry) bool {
	_, t, ok := c.Get(k)
	if ok {
		return false
	}
	return c.Fill(t, e)
}

func TestBounds(t *testing.T) {
	tests := []struct {
		name       string
		cfg        Config
		fills      int
		size       int
		wantMax    int
		wantEvicts uint64
	}{
		{"entries bound", Config{MaxEntries: 3, MaxBytes: 1 << 20}, 5, 10, 3, 2},
		{"bytes bound", Config{MaxEntries: 100, MaxBytes: 3 * (entryOverhead + 1000 + 100)}, 5, 1000, 3, 2},
		{"disabled by bytes", Config{MaxEntries: 100, MaxBytes: 0}, 5, 10, 0, 0},
		{"disabled by entries", Config{MaxEntries: 0, MaxBytes: 1 << 20}, 5, 10, 0, 0},
		{"entry larger than the budget", Config{MaxEntries: 10, MaxBytes: 500}, 3, 1000, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := liveCache(tt.cfg)
			for i := range tt.fills {
				fill(c, key(i), entry(1, tt.size))
			}
			n, b := c.Len()
			if n != tt.wantMax {
				t.Fatalf("entries = %d, want %d", n, tt.wantMax)
			}
			if b > tt.cfg.MaxBytes {
				t.Fatalf("bytes = %d over the bound %d", b, tt.cfg.MaxBytes)
			}
			if got := c.cfg.Evictions.Load(); got != tt.wantEvicts {
				t.Fatalf("evictions = %d, want %d", got, tt.wantEvicts)
			}
		})
	}
}

func TestLRUKeepsRecentlyRead(t *testing.T) {
	c := liveCache(Config{MaxEntries: 2, MaxBytes: 1 << 20})
	fill(c, key(0), entry(1, 1))
	fill(c, key(1), entry(1, 1))
	if _, _, ok := c.Get(key(0)); !ok { // key 0 is now the most recent
		t.Fatal("key 0 missing")
	}
	fill(c, key(2), entry(1, 1))
	if _, _, ok := c.Get(key(1)); ok {
		t.Fatal("key 1, least recently used, was not evicted")
	}
	if _, _, ok := c.Get(key(0)); !ok {
		t.Fatal("key 0, recently read, was evicted")
	}
}

func TestHitsAndMisses(t *testing.T) {
	c := liveCache(Config{MaxEntries: 10, MaxBytes: 1 << 20})
	fill(c, key(0), entry(7, 1))
	e, _, ok := c.Get(key(0))
	if !ok || e.Secret.Version != 7 {
		t.Fatalf("hit = %v, version %d", ok, e.Secret.Version)
	}
	if c.cfg.Hits.Load() != 1 || c.cfg.Misses.Load() != 1 {
		t.Fatalf("hits %d misses %d, want 1 and 1", c.cfg.Hits.Load(), c.cfg.Misses.Load())
	}
}

// Every way a key becomes stale drops it before the next read, and fails a
// fill that began before it.
func TestInvalidation(t *testing.T) {
	tests := []struct {
		name string
		drop func(c *Cache)
	}{
		{"logged change", func(c *Cache) { c.apply(store.SecretChange{OrgID: "o", VaultID: "v", Path: "p0"}) }},
		{"logged vault change", func(c *Cache) { c.apply(store.SecretChange{OrgID: "o", VaultID: "v"}) }},
		{"local write", func(c *Cache) { c.Invalidate(key(0)) }},
		{"hold", func(c *Cache) { c.Hold(key(0)) }},
		{"vault deletion", func(c *Cache) { c.InvalidateVault("o", "v") }},
		{"feed lost", func(c *Cache) { c.SetLive(false) }},
		{"feed restarted", func(c *Cache) { c.SetLive(true) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := liveCache(Config{MaxEntries: 10, MaxBytes: 1 << 20})
			if !fill(c, key(0), entry(1, 1)) {
				t.Fatal("setup: fill refused")
			}
			tt.drop(c)
			if _, _, ok := c.Get(key(0)); ok {
				t.Fatal("stale entry served after the invalidation")
			}
		})
	}
}

// A fill that began before an invalidation of its key never stores what
// it read: the invalidation may announce a write the read did not see.
func TestFillRacingInvalidation(t *testing.T) {
	c := liveCache(Config{MaxEntries: 10, MaxBytes: 1 << 20})
	for name, drop := range map[string]func(){
		"logged change": func() { c.apply(store.SecretChange{OrgID: "o", VaultID: "v", Path: "p0"}) },
		"vault":         func() { c.apply(store.SecretChange{OrgID: "o", VaultID: "v"}) },
		"flush":         func() { c.Flush() },
		"reconnect":     func() { c.SetLive(false); c.SetLive(true) },
		"local write":   func() { c.Hold(key(0)); c.Release(key(0)) },
		"invalidation":  func() { c.Invalidate(key(0)) },
	} {
		_, ticket, hit := c.Get(key(0))
		if hit {
			t.Fatalf("%s: unexpected hit", name)
		}
		drop() // the write commits and is announced while the read is in flight
		if c.Fill(ticket, entry(1, 1)) {
			t.Fatalf("%s: a fill that began before the invalidation was stored", name)
		}
		if _, _, ok := c.Get(key(0)); ok {
			t.Fatalf("%s: stale entry served", name)
		}
	}
}

func TestNotLiveServesNothing(t *testing.T) {
	c := New(Config{MaxEntries: 10, MaxBytes: 1 << 20})
	if fill(c, key(0), entry(1, 1)) {
		t.Fatal("filled before the feed started")
	}
	c.SetLive(true)
	if !fill(c, key(0), entry(1, 1)) {
		t.Fatal("live cache refused a fill")
	}
	c.SetLive(false)
	if _, _, ok := c.Get(key(0)); ok {
		t.Fatal("served while the feed is down")
	}
	c.SetLive(true)
	if _, _, ok := c.Get(key(0)); ok {
		t.Fatal("entry of before the feed stopped survived its restart")
	}
}

func TestHolds(t *testing.T) {
	now := time.Unix(1000, 0)
	c := liveCache(Config{MaxEntries: 10, MaxBytes: 1 << 20, HoldTTL: time.Minute, Now: func() time.Time { return now }})
	// An idempotent write: held until the feed sees its commit.
	c.Hold(key(0))
	if fill(c, key(0), entry(1, 1)) {
		t.Fatal("filled a held key")
	}
	c.apply(store.SecretChange{OrgID: "o", VaultID: "v", Path: "p0"})
	if !fill(c, key(0), entry(2, 1)) {
		t.Fatal("the logged change did not end the hold")
	}
	// A write that never commits: held until HoldTTL.
	c.Hold(key(1))
	now = now.Add(59 * time.Second)
	if fill(c, key(1), entry(1, 1)) {
		t.Fatal("filled a held key")
	}
	now = now.Add(2 * time.Second)
	if !fill(c, key(1), entry(1, 1)) {
		t.Fatal("an expired hold still blocks")
	}
	// Two writes: one release leaves the other's hold.
	c.Hold(key(2))
	c.Hold(key(2))
	c.Release(key(2))
	if fill(c, key(2), entry(1, 1)) {
		t.Fatal("filled a key still held by a second write")
	}
	c.Release(key(2))
	if !fill(c, key(2), entry(1, 1)) {
		t.Fatal("released key refused")
	}
}

func TestTTL(t *testing.T) {
	now := time.Unix(1000, 0)
	c := liveCache(Config{MaxEntries: 10, MaxBytes: 1 << 20, TTL: time.Minute, Now: func() time.Time { return now }})
	fill(c, key(0), entry(1, 1))
	now = now.Add(59 * time.Second)
	if _, _, ok := c.Get(key(0)); !ok {
		t.Fatal("entry gone before its TTL")
	}
	now = now.Add(time.Second)
	if _, _, ok := c.Get(key(0)); ok {
		t.Fatal("entry served past its TTL")
	}
	if n, b := c.Len(); n != 0 || b != 0 {
		t.Fatalf("expired entry still counted: %d entries, %d bytes", n, b)
	}
}

// Concurrent readers, writers and logged changes (run with -race): after
// the last write's invalidation, no reader sees a version older than it.
func TestConcurrentNoStaleAfterInvalidation(t *testing.T) {
	c := liveCache(Config{MaxEntries: 4, MaxBytes: 1 << 20})
	var db atomic.Uint32 // the "database": the current version of key 0
	db.Store(1)
	read := func() uint32 {
		e, tk, ok := c.Get(key(0))
		if ok {
			return e.Secret.Version
		}
		v := db.Load()
		c.Fill(tk, entry(v, 1))
		return v
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
					read()
					fill(c, key(1+int(db.Load()%5)), entry(1, 1))
				}
			}
		})
	}
	for range 2000 {
		v := db.Add(1)                                                    // commit
		c.apply(store.SecretChange{OrgID: "o", VaultID: "v", Path: "p0"}) // the feed sees it
		if got := read(); got < v {
			close(stop)
			wg.Wait()
			t.Fatalf("read version %d after the invalidation of version %d", got, v)
		}
	}
	close(stop)
	wg.Wait()
}

// fakeFeed delivers the changes sent on its channel, one batch a poll; a
// closed channel is a lost connection. Its first poll starts it.
type fakeFeed struct {
	polls   atomic.Int32
	changes chan []store.SecretChange
}

func (f *fakeFeed) Poll(ctx context.Context) ([]store.SecretChange, bool, error) {
	if f.polls.Add(1) == 1 {
		return nil, true, nil
	}
	select {
	case <-ctx.Done():
		return nil, false, ctx.Err()
	case ch, ok := <-f.changes:
		if !ok {
			return nil, false, errors.New("connection lost")
		}
		return ch, false, nil
	}
}

func (f *fakeFeed) Close() {}

func TestRun(t *testing.T) {
	c := New(Config{MaxEntries: 10, MaxBytes: 1 << 20, MaxLag: time.Hour})
	feed := &fakeFeed{changes: make(chan []store.SecretChange)}
	opens := atomic.Int32{}
	open := func(ctx context.Context) (Feed, error) {
		if opens.Add(1) > 1 {
			return nil, errors.New("database down")
		}
		return feed, nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- Run(ctx, open, c, time.Millisecond, slog.New(slog.DiscardHandler)) }()
	feed.changes <- nil // received after the first poll started the feed
	if !fill(c, key(0), entry(1, 1)) {
		t.Fatal("live cache refused a fill")
	}
	feed.changes <- []store.SecretChange{{OrgID: "o", VaultID: "v", Path: "p0"}}
	feed.changes <- nil // received once the previous batch is applied
	if _, _, ok := c.Get(key(0)); ok {
		t.Fatal("changed key still served")
	}
	fill(c, key(0), entry(1, 1))
	close(feed.changes) // the connection is lost and the database stays down
	deadline := time.Now().Add(10 * time.Second)
	for opens.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if _, _, ok := c.Get(key(0)); ok {
		t.Fatal("served while the feed is down")
	}
	if fill(c, key(0), entry(1, 1)) {
		t.Fatal("filled while the feed is down")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

// An entry is served only while polls succeed: a stalled feed stops the
// cache within MaxLag, and the next poll resumes it.
func TestMaxLag(t *testing.T) {
	now := time.Unix(1000, 0)
	c := New(Config{MaxEntries: 10, MaxBytes: 1 << 20, MaxLag: time.Second, Now: func() time.Time { return now }})
	c.SetLive(true)
	fill(c, key(0), entry(1, 1))
	now = now.Add(999 * time.Millisecond)
	if _, _, ok := c.Get(key(0)); !ok {
		t.Fatal("not served within MaxLag")
	}
	now = now.Add(time.Millisecond)
	if _, _, ok := c.Get(key(0)); ok {
		t.Fatal("served past MaxLag without a poll")
	}
	if fill(c, key(1), entry(1, 1)) {
		t.Fatal("filled past MaxLag without a poll")
	}
	c.polled()
	if _, _, ok := c.Get(key(0)); !ok {
		t.Fatal("not served after a successful poll")
	}
}
