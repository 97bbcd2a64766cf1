package webhooks

import "time"

// Policy is the retry policy.
type Policy struct {
	// MaxRetries is how many attempts may follow the first.
	MaxRetries int
	// Base is the backoff ceiling after the first failed attempt; it
	// doubles with every further failure up to Cap.
	Base, Cap time.Duration
}

// DefaultPolicy keeps retrying a receiver for at least 24 hours: 56
// retries with ceilings 10 s, 20 s, … doubling to 1 h, and equal jitter
// (each delay at least half its ceiling), so that a receiver down for a day
// still gets every event once it is back. The spec's "retry up to 5 times"
// is a floor; this goes well past it. After the last retry the delivery is
// failed (the dead-letter state).
var DefaultPolicy = Policy{MaxRetries: 56, Base: 10 * time.Second, Cap: time.Hour}

// MaxAttempts is the total number of attempts, the first included.
func (p Policy) MaxAttempts() int { return p.MaxRetries + 1 }

// Ceiling is the largest delay after failed attempt number attempt
// (1-based): min(Cap, Base × 2^(attempt-1)).
func (p Policy) Ceiling(attempt int) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	d := p.Base
	for i := 1; i < attempt; i++ {
		if d >= p.Cap/2 {
			return p.Cap
		}
		d *= 2
	}
	return min(d, p.Cap)
}

// Delay is the equal-jitter delay after failed attempt number attempt: half
// of Ceiling(attempt) plus a value in [0, half] drawn with randN, which
// returns a uniform value in [0, n) (math/rand/v2.Int64N). The jitter
// spreads the retries of many deliveries that failed together (a receiver
// outage); the fixed half guarantees how long a delivery is retried
// (MinRetryWindow).
func (p Policy) Delay(attempt int, randN func(n int64) int64) time.Duration {
	c := p.Ceiling(attempt)
	if c <= 0 {
		return 0
	}
	half := c / 2
	return half + time.Duration(randN(int64(c-half)+1))
}

// MinRetryWindow is the shortest time from the first failed attempt to the
// last retry: the sum of the smallest delays.
func (p Policy) MinRetryWindow() time.Duration {
	var total time.Duration
	for attempt := 1; attempt <= p.MaxRetries; attempt++ {
		total += p.Delay(attempt, func(int64) int64 { return 0 })
	}
	return total
}
