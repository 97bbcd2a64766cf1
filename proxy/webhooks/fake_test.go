package webhooks

import (
	"context"
	"errors"
	"sync"
	"time"
)

var errNoDelivery = errors.New("no such delivery")

// fakeOutbox is an in-memory Outbox that models the store's contract:
// Claim leases rows and increments their attempt counter; a row whose lease
// expires unrecorded is claimable again.
type fakeOutbox struct {
	mu    sync.Mutex
	lease time.Duration
	order []string
	rows  map[string]*fakeRow
}

type fakeRow struct {
	d          Delivery
	attempts   int
	state      string // pending, delivered, failed
	next       time.Time
	leaseUntil time.Time
	results    []Result
	nexts      []time.Time
}

func newFakeOutbox(ds ...Delivery) *fakeOutbox {
	o := &fakeOutbox{lease: DefaultLease, rows: map[string]*fakeRow{}}
	for _, d := range ds {
		o.order = append(o.order, d.ID)
		o.rows[d.ID] = &fakeRow{d: d, attempts: d.Attempt, state: "pending"}
	}
	return o
}

func (o *fakeOutbox) Claim(_ context.Context, limit int, now time.Time) ([]Delivery, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []Delivery
	for _, id := range o.order {
		r := o.rows[id]
		if len(out) == limit {
			break
		}
		if r.state != "pending" || r.next.After(now) || r.leaseUntil.After(now) {
			continue
		}
		r.attempts++
		r.leaseUntil = now.Add(o.lease)
		d := r.d
		d.Attempt = r.attempts
		out = append(out, d)
	}
	return out, nil
}

func (o *fakeOutbox) finish(id string, res Result, state string, next time.Time) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	r, ok := o.rows[id]
	if !ok {
		return errNoDelivery
	}
	r.results = append(r.results, res)
	r.state, r.next, r.leaseUntil = state, next, time.Time{}
	if state == "pending" {
		r.nexts = append(r.nexts, next)
	}
	return nil
}

func (o *fakeOutbox) Complete(_ context.Context, id string, res Result) error {
	return o.finish(id, res, "delivered", time.Time{})
}

func (o *fakeOutbox) Reschedule(_ context.Context, id string, res Result, next time.Time) error {
	return o.finish(id, res, "pending", next)
}

func (o *fakeOutbox) Fail(_ context.Context, id string, res Result) error {
	return o.finish(id, res, "failed", time.Time{})
}

// row returns a copy of a row's state.
func (o *fakeOutbox) row(id string) fakeRow {
	o.mu.Lock()
	defer o.mu.Unlock()
	r := *o.rows[id]
	r.results = append([]Result(nil), r.results...)
	r.nexts = append([]time.Time(nil), r.nexts...)
	return r
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Set(t time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = t
}

var _ Outbox = (*fakeOutbox)(nil)
