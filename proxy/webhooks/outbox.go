package webhooks

import (
	"context"
	"encoding/json"
	"time"
)

// DefaultLease is the claim lease a store should give a claimed delivery. It
// must exceed RequestTimeout plus the time to record the result, or a slow
// delivery could be claimed twice while still running.
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

// Outbox is the store of pending deliveries. Implementations are safe for
// concurrent use by many workers in many processes and honour ctx.
//
// Claim returns up to limit deliveries due at now (next attempt time <= now,
// not finished, no live lease), in due order. In one statement it leases
// them until now+DefaultLease and increments their attempt counter (the
// PostgreSQL store uses SELECT ... FOR UPDATE SKIP LOCKED inside an UPDATE,
// so concurrent workers never claim the same row). A delivery whose lease
// expires without a Complete, Reschedule or Fail is claimable again: that
// is how a worker killed mid-delivery loses nothing.
//
// Complete, Reschedule and Fail each append res to the delivery's history
// and release the lease: Complete marks it delivered, Reschedule makes it
// due again at next, Fail marks it permanently failed. They return an error
// wrapping the store's not-found error for an unknown id.
type Outbox interface {
	Claim(ctx context.Context, limit int, now time.Time) ([]Delivery, error)
	Complete(ctx context.Context, id string, res Result) error
	Reschedule(ctx context.Context, id string, res Result, next time.Time) error
	Fail(ctx context.Context, id string, res Result) error
}
