package envelope

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func dekOf(b byte) []byte {
	d := make([]byte, dekSize)
	d[0] = b
	return d
}

func TestDEKCacheLRU(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	c := newDEKCache(2, CacheTTL, clk.now)
	k1, k2, k3 := makeCacheKey("kek/a", 1, []byte("1")), makeCacheKey("kek/a", 1, []byte("2")), makeCacheKey("kek/a", 1, []byte("3"))
	c.put(k1, testKEK, dekOf(1))
	c.put(k2, testKEK, dekOf(2))
	var got [dekSize]byte
	require.True(t, c.get(k1, &got)) // k1 is now the most recent
	require.Equal(t, byte(1), got[0])

	evicted := c.items[k2].Value.(*cacheEntry)
	c.put(k3, testKEK, dekOf(3))
	require.Equal(t, 2, c.len())
	require.False(t, c.get(k2, &got), "least recently used entry is evicted")
	require.Equal(t, [dekSize]byte{}, evicted.dek, "evicted key is zeroised")
	require.True(t, c.get(k1, &got))
	require.True(t, c.get(k3, &got))
}

func TestDEKCacheExpiry(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	c := newDEKCache(8, CacheTTL, clk.now)
	k := makeCacheKey("kek/a", 1, []byte("w"))
	c.put(k, testKEK, dekOf(9))
	var got [dekSize]byte
	clk.add(CacheTTL - time.Second)
	require.True(t, c.get(k, &got))
	clk.add(time.Second)
	require.False(t, c.get(k, &got), "an entry lives CacheTTL from its unwrap, however often it is used")
	require.Equal(t, 0, c.len())
}

func TestDEKCacheKeyBindsKEK(t *testing.T) {
	w := []byte("wrapped")
	require.NotEqual(t, makeCacheKey("kek/a", 1, w), makeCacheKey("kek/a", 2, w))
	require.NotEqual(t, makeCacheKey("kek/a", 1, w), makeCacheKey("kek/b", 1, w))
}

func TestDEKCacheDisabled(t *testing.T) {
	c := newDEKCache(0, CacheTTL, time.Now)
	require.Nil(t, c)
	k := makeCacheKey("kek/a", 1, nil)
	c.put(k, testKEK, dekOf(1))
	var got [dekSize]byte
	require.False(t, c.get(k, &got))
	c.purge()
}
