package outbox

import (
	"encoding/json"
	"time"
)

// DefaultLease is the claim lease a store should give a claimed delivery. It
// must exceed webhooks.RequestTimeout plus the time to record the result, or
// a slow delivery could be claimed twice while still running.
const DefaultLease = time.Minute

// Delivery is one pending delivery of one event to one webhook.
type Delivery struct {
	ID        string // delivery id (outbox row)
	WebhookID string
	EventID   string // body "id" and X-Webhook-Id: the receiver's idempotency key
	Event     string // event name, e.g. "policy.created"
	URL       string
	// Secret is the webhook's signing secret. Never logged, never in errors.
	Secret []byte
	// Data is the event's JSON object; empty means {}.
	Data json.RawMessage
	// Attempt is the 1-based number of the attempt this claim is for. Claim
	// increments the stored counter, so an attempt cut short by a crash
	// still counts and a row that kills workers cannot loop forever.
	Attempt int
}

// Result is the outcome of one attempt, stored as delivery history.
type Result struct {
	// Status is the HTTP status, 0 when no response arrived.
	Status int
	// Error describes a failure: transport error, unexpected status or
	// refused destination. It never holds the secret, the URL's path or
	// query, or the response body. Empty on success.
	Error string
	// Duration is the time spent on the attempt.
	Duration time.Duration
}

// Delivered reports whether the receiver acknowledged the delivery (2xx).
func (r Result) Delivered() bool { return r.Error == "" && r.Status >= 200 && r.Status <= 299 }
