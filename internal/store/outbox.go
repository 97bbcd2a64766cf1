package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/outbox"
)

// Outbox is the PostgreSQL webhooks.Outbox over webhook_deliveries (the
// guard that it implements it is in proxy/webhooks' tests: the store
// imports nothing from the proxy).
type Outbox struct {
	s *Store
	// Lease is how long a claim holds a delivery (outbox.DefaultLease when
	// zero). It must exceed webhooks.RequestTimeout plus recording.
	Lease time.Duration
}

// Outbox returns the store's webhook delivery outbox.
func (s *Store) Outbox() *Outbox { return &Outbox{s: s} }

// InactiveWebhookError is the last_error of a delivery that came due while
// its webhook was inactive: it was marked failed instead of being sent.
const InactiveWebhookError = "not sent: the webhook is inactive"

// Claim leases up to limit due deliveries of active webhooks and increments
// their attempt counter in one statement (FOR UPDATE SKIP LOCKED, so
// concurrent workers never claim the same row). A row whose lease expired
// is due again. In the same statement, up to limit due deliveries of
// inactive webhooks are marked failed with InactiveWebhookError and never
// sent (a failed delivery can be replayed once the webhook is active
// again); a delivery already claimed when its webhook is switched off
// completes its attempt, and is failed at its next due time.
func (o *Outbox) Claim(ctx context.Context, limit int, now time.Time) ([]outbox.Delivery, error) {
	rows, err := o.s.pool.Query(ctx, `WITH off AS (
			UPDATE webhook_deliveries SET status = 'failed', last_error = $4, lease_until = NULL, updated_at = now()
			WHERE id IN (SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
				WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
				AND NOT w.is_active
				ORDER BY d.next_attempt_at LIMIT $2 FOR UPDATE OF d SKIP LOCKED)),
		due AS (
			SELECT d.id FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id
			WHERE d.status = 'pending' AND d.next_attempt_at <= $1 AND (d.lease_until IS NULL OR d.lease_until <= $1)
			AND w.is_active
			ORDER BY d.next_attempt_at LIMIT $2 FOR UPDATE OF d SKIP LOCKED)
		UPDATE webhook_deliveries d SET attempt = d.attempt + 1, lease_until = $3, updated_at = now()
		FROM due, webhooks w, events e
		WHERE d.id = due.id AND w.id = d.webhook_id AND e.id = d.event_id
		RETURNING d.id::text, d.webhook_id::text, d.event_id::text, e.name, w.url, w.secret, e.data, d.attempt`,
		now, limit, now.Add(o.lease()), InactiveWebhookError)
	if err != nil {
		return nil, fmt.Errorf("claiming deliveries: %w", err)
	}
	defer rows.Close()
	var out []outbox.Delivery
	for rows.Next() {
		var d outbox.Delivery
		if err := rows.Scan(&d.ID, &d.WebhookID, &d.EventID, &d.Event, &d.URL, &d.Secret, &d.Data, &d.Attempt); err != nil {
			return nil, fmt.Errorf("claiming deliveries: %w", err)
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

func (o *Outbox) lease() time.Duration {
	if o.Lease > 0 {
		return o.Lease
	}
	return outbox.DefaultLease
}

// Complete marks a delivery delivered and records res.
func (o *Outbox) Complete(ctx context.Context, id string, res outbox.Result) error {
	return o.finish(ctx, id, "delivered", res, nil)
}

// Reschedule records res and makes the delivery due again at next.
func (o *Outbox) Reschedule(ctx context.Context, id string, res outbox.Result, next time.Time) error {
	return o.finish(ctx, id, "pending", res, &next)
}

// Fail marks a delivery permanently failed and records res.
func (o *Outbox) Fail(ctx context.Context, id string, res outbox.Result) error {
	return o.finish(ctx, id, "failed", res, nil)
}

// historyEntry is one attempt in a delivery's stored history.
type historyEntry struct {
	Attempt    int    `json:"attempt"`
	Status     int    `json:"status"`
	Error      string `json:"error,omitempty"`
	DurationMs int64  `json:"duration_ms"`
	At         string `json:"at"`
}

func (o *Outbox) finish(ctx context.Context, id, status string, res outbox.Result, next *time.Time) error {
	var attempt int
	if err := o.s.pool.QueryRow(ctx, `SELECT attempt FROM webhook_deliveries WHERE id = $1`, id).Scan(&attempt); err != nil {
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("recording delivery: %w", ErrNotFound)
		}
		return fmt.Errorf("recording delivery: %w", err)
	}
	h, err := json.Marshal([]historyEntry{{Attempt: attempt, Status: res.Status, Error: res.Error,
		DurationMs: res.Duration.Milliseconds(), At: time.Now().UTC().Format(time.RFC3339Nano)}})
	if err != nil {
		return fmt.Errorf("encoding delivery history: %w", err)
	}
	var lastErr *string
	if res.Error != "" {
		lastErr = &res.Error
	}
	tag, err := o.s.pool.Exec(ctx, `UPDATE webhook_deliveries SET status = $2, last_status = $3, last_error = $4,
		history = history || $5::jsonb, lease_until = NULL, next_attempt_at = coalesce($6, next_attempt_at), updated_at = now()
		WHERE id = $1`, id, status, res.Status, lastErr, h, next)
	if err != nil {
		return fmt.Errorf("recording delivery: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("recording delivery: %w", ErrNotFound)
	}
	return nil
}
