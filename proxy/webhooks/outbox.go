package webhooks

import (
	"context"
	"time"

	"github.com/opencustody/ocv/internal/outbox"
)

// DefaultLease is the claim lease a store should give a claimed delivery. It
// must exceed RequestTimeout plus the time to record the result, or a slow
// delivery could be claimed twice while still running.
const DefaultLease = outbox.DefaultLease

// Delivery is one pending delivery of one event to one webhook. The row
// types are declared in internal/outbox, below both this package and the
// store that implements Outbox, so the store imports nothing from the proxy.
type Delivery = outbox.Delivery

// Result is the outcome of one attempt, stored as delivery history.
// Delivered reports whether the receiver acknowledged it (2xx).
type Result = outbox.Result

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
