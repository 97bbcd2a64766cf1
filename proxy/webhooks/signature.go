package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"time"
)

// DefaultTolerance is the replay window Verify uses when given none.
const DefaultTolerance = 5 * time.Minute

// Sign returns the lowercase hex HMAC-SHA256 of body keyed by secret: the
// value of the X-Webhook-Signature header.
func Sign(secret, body []byte) string {
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	return hex.EncodeToString(m.Sum(nil))
}

// Verify checks a delivery as a receiver should: sig must be the hex
// HMAC-SHA256 of the raw body under secret (compared in constant time), and
// the body's signed "timestamp" must lie within tolerance of now, so a
// captured delivery cannot be replayed later. tolerance <= 0 means
// DefaultTolerance. Within the window receivers deduplicate on the event id.
// Errors: ErrBadSignature, ErrBadTimestamp, ErrStaleTimestamp.
func Verify(secret, body []byte, sig string, now time.Time, tolerance time.Duration) error {
	got, err := hex.DecodeString(sig)
	if err != nil || len(got) != sha256.Size {
		return ErrBadSignature
	}
	m := hmac.New(sha256.New, secret)
	m.Write(body)
	if !hmac.Equal(got, m.Sum(nil)) {
		return ErrBadSignature
	}
	// Only an authenticated body is parsed.
	var p struct {
		Timestamp string `json:"timestamp"`
	}
	if err := json.Unmarshal(body, &p); err != nil {
		return fmt.Errorf("decoding signed body: %w", ErrBadTimestamp)
	}
	ts, err := time.Parse(time.RFC3339, p.Timestamp)
	if err != nil {
		return fmt.Errorf("parsing signed timestamp: %w", ErrBadTimestamp)
	}
	if tolerance <= 0 {
		tolerance = DefaultTolerance
	}
	if d := now.Sub(ts); d > tolerance || d < -tolerance {
		return ErrStaleTimestamp
	}
	return nil
}
