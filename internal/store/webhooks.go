package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Webhook is a subscription of an organization to event names. Secret is
// its HMAC signing key, stored in clear (the proxy signs with it).
type Webhook struct {
	OrgID       string
	ID          string
	URL         string
	Events      []string
	Description string
	IsActive    bool
	Secret      []byte
	CreatedBy   string
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// DeliveryRecord is one outbox row of a webhook, for its delivery history.
type DeliveryRecord struct {
	ID            string
	EventID       string
	Event         string
	Status        string
	Attempt       int
	LastStatus    *int
	LastError     *string
	NextAttemptAt time.Time
	History       []byte
	// Replays is how often the delivery was replayed; ReplayedAt is when
	// it last was (nil if never).
	Replays    int
	ReplayedAt *time.Time
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// deliveryColumns are the columns scanDelivery reads, over webhook_deliveries
// d joined with events e.
const deliveryColumns = `d.id::text, d.event_id::text, e.name, d.status, d.attempt, d.last_status,
	d.last_error, d.next_attempt_at, d.history, d.replays, d.replayed_at, d.created_at, d.updated_at`

func scanDelivery(row pgx.Row) (DeliveryRecord, error) {
	var d DeliveryRecord
	err := row.Scan(&d.ID, &d.EventID, &d.Event, &d.Status, &d.Attempt, &d.LastStatus, &d.LastError,
		&d.NextAttemptAt, &d.History, &d.Replays, &d.ReplayedAt, &d.CreatedAt, &d.UpdatedAt)
	return d, err
}

const webhookColumns = `org_id, id, url, events, description, is_active, secret, created_by, created_at, updated_at`

func scanWebhook(row pgx.Row) (Webhook, error) {
	var w Webhook
	err := row.Scan(&w.OrgID, &w.ID, &w.URL, &w.Events, &w.Description, &w.IsActive, &w.Secret, &w.CreatedBy,
		&w.CreatedAt, &w.UpdatedAt)
	return w, err
}

// CreateWebhook stores w with ev.
func (s *Store) CreateWebhook(ctx context.Context, w Webhook, ev *auditchain.Event) (Webhook, error) {
	var out Webhook
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = scanWebhook(tx.QueryRow(ctx, `INSERT INTO webhooks (org_id, id, url, events, description, is_active,
			secret, created_by) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING `+webhookColumns,
			w.OrgID, w.ID, w.URL, w.Events, w.Description, w.IsActive, w.Secret, w.CreatedBy))
		if err != nil {
			return fmt.Errorf("creating webhook: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// GetWebhook returns a webhook of the organization; ErrNotFound otherwise.
func (s *Store) GetWebhook(ctx context.Context, orgID, id string) (Webhook, error) {
	w, err := scanWebhook(s.pool.QueryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE org_id = $1 AND id = $2`, orgID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Webhook{}, fmt.Errorf("finding webhook: %w", NotFound("webhook"))
	}
	if err != nil {
		return Webhook{}, fmt.Errorf("finding webhook: %w", err)
	}
	return w, nil
}

// ListWebhooks lists the organization's webhooks after the cursor id.
func (s *Store) ListWebhooks(ctx context.Context, orgID, after string, limit int) ([]Webhook, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+webhookColumns+` FROM webhooks
		WHERE org_id = $1 AND ($2 = '' OR id::text > $2) ORDER BY id::text LIMIT $3`, orgID, after, limit)
	if err != nil {
		return nil, fmt.Errorf("listing webhooks: %w", err)
	}
	defer rows.Close()
	var out []Webhook
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, fmt.Errorf("listing webhooks: %w", err)
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// UpdateWebhook applies apply to the locked webhook and stores it with ev.
func (s *Store) UpdateWebhook(ctx context.Context, orgID, id string, apply func(*Webhook) error, ev *auditchain.Event) (Webhook, error) {
	var out Webhook
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		w, err := scanWebhook(tx.QueryRow(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE org_id = $1 AND id = $2 FOR UPDATE`, orgID, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("finding webhook: %w", NotFound("webhook"))
		}
		if err != nil {
			return fmt.Errorf("finding webhook: %w", err)
		}
		if err := apply(&w); err != nil {
			return err
		}
		if out, err = scanWebhook(tx.QueryRow(ctx, `UPDATE webhooks SET url = $3, events = $4, description = $5,
			is_active = $6, updated_at = now() WHERE org_id = $1 AND id = $2 RETURNING `+webhookColumns,
			orgID, id, w.URL, w.Events, w.Description, w.IsActive)); err != nil {
			return fmt.Errorf("updating webhook: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// DeleteWebhook deletes a webhook and its deliveries with ev.
func (s *Store) DeleteWebhook(ctx context.Context, orgID, id string, ev *auditchain.Event) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM webhooks WHERE org_id = $1 AND id = $2`, orgID, id)
		if err != nil {
			return fmt.Errorf("deleting webhook: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("deleting webhook: %w", NotFound("webhook"))
		}
		return insertEvent(ctx, tx, ev)
	})
}

// RecentDeliveries returns a webhook's latest deliveries, newest first.
func (s *Store) RecentDeliveries(ctx context.Context, orgID, webhookID string, limit int) ([]DeliveryRecord, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+deliveryColumns+`
		FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
		WHERE d.org_id = $1 AND d.webhook_id = $2 ORDER BY d.created_at DESC, d.id LIMIT $3`, orgID, webhookID, limit)
	return collectDeliveries(rows, err)
}

// collectDeliveries reads every delivery of a query's rows (or returns its
// error).
func collectDeliveries(rows pgx.Rows, err error) ([]DeliveryRecord, error) {
	if err != nil {
		return nil, fmt.Errorf("listing deliveries: %w", err)
	}
	defer rows.Close()
	var out []DeliveryRecord
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, fmt.Errorf("listing deliveries: %w", err)
		}
		out = append(out, d)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("listing deliveries: %w", err)
	}
	return out, nil
}
