package nitro

import (
	"crypto/subtle"
	"fmt"
	"time"
)

// checkNonce requires the document to carry exactly the verifier's nonce,
// compared in constant time. An empty expected nonce is refused: without one
// a replayed document would pass.
func checkNonce(got, want []byte) error {
	if len(want) == 0 {
		return fmt.Errorf("%w: no expected nonce given", ErrNonceMismatch)
	}
	if subtle.ConstantTimeCompare(got, want) != 1 {
		return ErrNonceMismatch
	}
	return nil
}

// checkFreshness accepts a timestamp no older than maxAge and no more than
// maxFutureSkew ahead of now.
func checkFreshness(ts, now time.Time, maxAge time.Duration) error {
	if age := now.Sub(ts); age > maxAge {
		return fmt.Errorf("%w: issued %s ago, limit %s", ErrStale, age.Round(time.Second), maxAge)
	}
	if ts.After(now.Add(maxFutureSkew)) {
		return fmt.Errorf("%w: issued %s in the future", ErrStale, ts.Sub(now).Round(time.Second))
	}
	return nil
}
