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

// DefaultPolicy retries 5 times (spec) with ceilings 10 s, 20 s, 40 s, 80 s
// and 160 s; the 1 h cap applies only if MaxRetries is raised.
var DefaultPolicy = Policy{MaxRetries: 5, Base: 10 * time.Second, Cap: time.Hour}

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

// Delay is the full-jitter delay after failed attempt number attempt: a
// value in [0, Ceiling(attempt)] drawn with randN, which returns a uniform
// value in [0, n) (math/rand/v2.Int64N). Full jitter spreads the retries of
// many deliveries that failed together (a receiver outage).
func (p Policy) Delay(attempt int, randN func(n int64) int64) time.Duration {
	c := p.Ceiling(attempt)
	if c <= 0 {
		return 0
	}
	return time.Duration(randN(int64(c) + 1))
}
