package proxy

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// SecretCacheConfig bounds each replica's cache of sealed secrets
// (proxy/secretcache): ciphertext and wrapped data keys as the database
// returned them, never plaintext. Bytes 0 (or Entries 0) disables it.
type SecretCacheConfig struct {
	Entries int           `yaml:"entries"` // OCV_SECRET_CACHE_ENTRIES, default 10000
	Bytes   int64         `yaml:"bytes"`   // OCV_SECRET_CACHE_BYTES, default 64 MiB; 0 disables the cache
	TTL     time.Duration `yaml:"ttl"`     // OCV_SECRET_CACHE_TTL, default 5m: an entry is read again from the database after it
	// Poll is how often the log of secret changes is read: the bound of
	// how long another replica's write may go unseen here.
	Poll time.Duration `yaml:"poll"` // OCV_SECRET_CACHE_POLL, default 50ms
}

// MaxLag is how long after its last successful poll the cache still
// serves: twenty polls, at least one second.
func (s SecretCacheConfig) MaxLag() time.Duration {
	return max(time.Second, 20*s.Poll)
}

// DefaultSecretCache is the default bound of the sealed-secret cache.
func DefaultSecretCache() SecretCacheConfig {
	return SecretCacheConfig{Entries: 10_000, Bytes: 64 << 20, TTL: 5 * time.Minute, Poll: 50 * time.Millisecond}
}

// applySecretCacheEnv reads OCV_SECRET_CACHE_*.
func (c *Config) applySecretCacheEnv(lookup func(string) (string, bool)) []error {
	var errs []error
	get := func(key string, set func(string) error) {
		if v, ok := lookup(key); ok && strings.TrimSpace(v) != "" {
			if err := set(strings.TrimSpace(v)); err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", key, err))
			}
		}
	}
	get("OCV_SECRET_CACHE_ENTRIES", func(v string) (err error) { c.SecretCache.Entries, err = strconv.Atoi(v); return })
	get("OCV_SECRET_CACHE_BYTES", func(v string) (err error) { c.SecretCache.Bytes, err = strconv.ParseInt(v, 10, 64); return })
	get("OCV_SECRET_CACHE_POLL", func(v string) (err error) { c.SecretCache.Poll, err = time.ParseDuration(v); return })
	get("OCV_SECRET_CACHE_TTL", func(v string) (err error) { c.SecretCache.TTL, err = time.ParseDuration(v); return })
	return errs
}

func (c *Config) validateSecretCache() []error {
	var errs []error
	s := c.SecretCache
	if s.Entries < 0 || s.Entries > 10_000_000 {
		errs = append(errs, fmt.Errorf("config secret_cache.entries: must be 0 to 10000000"))
	}
	if s.Bytes < 0 || s.Bytes > 64<<30 {
		errs = append(errs, fmt.Errorf("config secret_cache.bytes: must be 0 to 64 GiB"))
	}
	if s.TTL < 0 || s.TTL > 24*time.Hour {
		errs = append(errs, fmt.Errorf("config secret_cache.ttl: must be 0 (no bound) to 24h"))
	}
	if s.Poll < 5*time.Millisecond || s.Poll > 10*time.Second {
		errs = append(errs, fmt.Errorf("config secret_cache.poll: must be 5ms to 10s"))
	}
	return errs
}
