package ratelimit

import "time"

// Config shapes a Limiter. The zero value limits nothing.
type Config struct {
	// PerIP limits each client IP address.
	PerIP Limit
	// PerCredential limits each bearer credential (keyed by a hash).
	PerCredential Limit
	// MaxEntries caps the buckets of each dimension (DefaultMaxEntries when 0).
	MaxEntries int
	// IdleTTL: a full bucket unused this long is dropped (DefaultIdleTTL when 0).
	IdleTTL time.Duration
	// Now is the clock; nil means time.Now. Tests inject a fake one.
	Now func() time.Time
}

// Limiter holds the per-IP and per-credential buckets of one replica. It is
// safe for concurrent use.
type Limiter struct {
	ip   *Buckets
	cred *Buckets
}

// New returns a limiter shaped by cfg.
func New(cfg Config) *Limiter {
	return &Limiter{
		ip:   NewBuckets(cfg.PerIP, cfg.MaxEntries, cfg.IdleTTL, cfg.Now),
		cred: NewBuckets(cfg.PerCredential, cfg.MaxEntries, cfg.IdleTTL, cfg.Now),
	}
}

// AllowIP takes a token from ip's bucket.
func (l *Limiter) AllowIP(ip string) (ok bool, retryAfter time.Duration) { return l.ip.Allow(ip) }

// AllowCredential takes a token from the bucket of credKey, which must be a
// hash of the credential (CredentialKey), never the raw token.
func (l *Limiter) AllowCredential(credKey string) (ok bool, retryAfter time.Duration) {
	return l.cred.Allow(credKey)
}

// Sweep drops the idle, full buckets of both dimensions.
func (l *Limiter) Sweep() {
	l.ip.Sweep()
	l.cred.Sweep()
}

// Len returns how many IP and credential buckets are held.
func (l *Limiter) Len() (ip, cred int) { return l.ip.Len(), l.cred.Len() }
