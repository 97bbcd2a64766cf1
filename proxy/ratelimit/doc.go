// Package ratelimit is the proxy's global rate limit (spec request processing
// order, step 2): token buckets per client IP and per credential, answered
// with 429 problem `rate_limited` and a Retry-After header.
//
// State is per proxy replica, in memory. Nothing is shared between replicas,
// so with N replicas behind a balancer a client can get up to N times the
// configured rate and burst across the cluster (exactly N times when the
// balancer spreads its requests evenly, less with sticky or uneven
// balancing). To enforce a cluster-wide limit L with N replicas, configure
// L/N per replica, and re-size when the replica count changes; a client
// pinned to one replica then gets L/N, which errs on the safe side.
//
// Memory is bounded: buckets live in sharded maps; a bucket that is full and
// idle for IdleTTL is dropped (it would answer exactly like a new one), and
// a hard cap on entries evicts an approximately least recently used bucket
// when an attacker floods the limiter with fresh keys. Eviction can hand an
// evicted key a fresh, full bucket; size MaxEntries well above the number of
// clients active within a minute.
//
// Credential keys are never raw tokens: the middleware keys credential
// buckets by a SHA-256 prefix of the bearer value, which runs before
// authentication and so also limits invalid credentials.
//
// Trust level: untrusted (proxy side).
package ratelimit
