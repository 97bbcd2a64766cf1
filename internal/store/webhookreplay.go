package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Replay refusals, both wrapping ErrConflict.
var (
	// ErrDeliveryQueued: the delivery is pending (queued or between
	// retries), so there is nothing to replay yet.
	ErrDeliveryQueued = fmt.Errorf("delivery is still queued: %w", ErrConflict)
	// ErrWebhookInactive: deliveries of an inactive webhook are not sent,
	// so they are not replayed either.
	ErrWebhookInactive = fmt.Errorf("webhook is inactive: %w", ErrConflict)
)

// requeue is the SET list that starts a delivery's new attempt series: due
// now, attempt counter back to 0 (the next claim makes it attempt 1), the
// same event and so the same payload and event id.
const requeue = `status = 'pending', attempt = 0, next_attempt_at = now(), lease_until = NULL,
	replays = replays + 1, replayed_at = now(), updated_at = now()`

// lockActiveWebhook locks the organization's webhook against deletion and
// change for the transaction: NotFound("webhook") when the organization has
// no such webhook, ErrWebhookInactive when it is switched off.
func lockActiveWebhook(ctx context.Context, tx pgx.Tx, orgID, webhookID string) error {
	var active bool
	err := tx.QueryRow(ctx, `SELECT is_active FROM webhooks WHERE org_id = $1 AND id = $2 FOR SHARE`,
		orgID, webhookID).Scan(&active)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("finding webhook: %w", NotFound("webhook"))
	}
	if err != nil {
		return fmt.Errorf("finding webhook: %w", err)
	}
	if !active {
		return fmt.Errorf("replaying deliveries: %w", ErrWebhookInactive)
	}
	return nil
}

// ReplayDelivery queues one delivery of the organization's webhook again,
// with ev, and returns it. Failed (dead-letter) and delivered deliveries can
// be replayed; a pending one gives ErrDeliveryQueued. A delivery that is
// not the webhook's, or a webhook that is not the organization's, gives the
// same NotFound as a missing one.
func (s *Store) ReplayDelivery(ctx context.Context, orgID, webhookID, deliveryID string, ev *auditchain.Event) (DeliveryRecord, error) {
	var out DeliveryRecord
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockActiveWebhook(ctx, tx, orgID, webhookID); err != nil {
			return err
		}
		var status string
		err := tx.QueryRow(ctx, `SELECT status FROM webhook_deliveries WHERE org_id = $1 AND webhook_id = $2 AND id = $3
			FOR UPDATE`, orgID, webhookID, deliveryID).Scan(&status)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("finding delivery: %w", NotFound("delivery"))
		}
		if err != nil {
			return fmt.Errorf("finding delivery: %w", err)
		}
		if status == "pending" {
			return fmt.Errorf("replaying delivery: %w", ErrDeliveryQueued)
		}
		if _, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET `+requeue+` WHERE id = $1`, deliveryID); err != nil {
			return fmt.Errorf("replaying delivery: %w", err)
		}
		if out, err = scanDelivery(tx.QueryRow(ctx, `SELECT `+deliveryColumns+`
			FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.id = $1`, deliveryID)); err != nil {
			return fmt.Errorf("reading replayed delivery: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// ReplayResult is what one bulk replay did: how many deliveries it queued
// and whether failed deliveries remain in the range (call again).
type ReplayResult struct {
	Queued int
	More   bool
}

// ReplayFailedDeliveries queues again, with ev, up to limit failed
// (dead-letter) deliveries of the organization's webhook created in
// [from, to), oldest first. Queued deliveries leave the failed state, so
// repeating the call walks the range.
func (s *Store) ReplayFailedDeliveries(ctx context.Context, orgID, webhookID string, from, to time.Time, limit int,
	ev *auditchain.Event) (ReplayResult, error) {
	var out ReplayResult
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockActiveWebhook(ctx, tx, orgID, webhookID); err != nil {
			return err
		}
		const inRange = `org_id = $1 AND webhook_id = $2 AND status = 'failed' AND created_at >= $3 AND created_at < $4`
		tag, err := tx.Exec(ctx, `UPDATE webhook_deliveries SET `+requeue+` WHERE id IN (
			SELECT id FROM webhook_deliveries WHERE `+inRange+` ORDER BY created_at, id LIMIT $5 FOR UPDATE)`,
			orgID, webhookID, from, to, limit)
		if err != nil {
			return fmt.Errorf("replaying deliveries: %w", err)
		}
		out.Queued = int(tag.RowsAffected())
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE `+inRange+`)`,
			orgID, webhookID, from, to).Scan(&out.More); err != nil {
			return fmt.Errorf("counting deliveries left: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// DeliveryCursor is the position after which ListDeliveries continues: the
// last delivery of the previous page (newest first).
type DeliveryCursor struct {
	CreatedAt time.Time
	ID        string
}

// ListDeliveries lists a webhook's deliveries newest first, only those in
// status when it is not empty (failed lists the dead letters), after the
// cursor when it is not nil. A webhook that is not the organization's gives
// the same NotFound as a missing one.
func (s *Store) ListDeliveries(ctx context.Context, orgID, webhookID, status string, after *DeliveryCursor, limit int) ([]DeliveryRecord, error) {
	var found bool
	if err := s.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM webhooks WHERE org_id = $1 AND id = $2)`,
		orgID, webhookID).Scan(&found); err != nil {
		return nil, fmt.Errorf("finding webhook: %w", err)
	}
	if !found {
		return nil, fmt.Errorf("finding webhook: %w", NotFound("webhook"))
	}
	var at *time.Time
	var id *string
	if after != nil {
		at, id = &after.CreatedAt, &after.ID
	}
	rows, err := s.pool.Query(ctx, `SELECT `+deliveryColumns+`
		FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
		WHERE d.org_id = $1 AND d.webhook_id = $2 AND ($3 = '' OR d.status = $3)
		  AND ($4::timestamptz IS NULL OR (d.created_at, d.id) < ($4, $5::uuid))
		ORDER BY d.created_at DESC, d.id DESC LIMIT $6`, orgID, webhookID, status, at, id, limit)
	return collectDeliveries(rows, err)
}
