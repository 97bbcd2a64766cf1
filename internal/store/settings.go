package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// Setting is one platform setting: a JSON value under a key. The API layer
// validates keys and values; the store only keeps them.
type Setting struct {
	Key       string
	Value     json.RawMessage
	UpdatedBy string
	UpdatedAt time.Time
}

// ListSettings returns every stored platform setting in key order.
func (s *Store) ListSettings(ctx context.Context) ([]Setting, error) {
	rows, err := s.pool.Query(ctx, `SELECT key, value, updated_by, updated_at FROM platform_settings ORDER BY key`)
	if err != nil {
		return nil, fmt.Errorf("listing settings: %w", err)
	}
	defer rows.Close()
	var out []Setting
	for rows.Next() {
		var st Setting
		if err := rows.Scan(&st.Key, &st.Value, &st.UpdatedBy, &st.UpdatedAt); err != nil {
			return nil, fmt.Errorf("listing settings: %w", err)
		}
		out = append(out, st)
	}
	return out, rows.Err()
}

// Setting returns the setting under key; ErrNotFound when it was never set.
func (s *Store) Setting(ctx context.Context, key string) (Setting, error) {
	st := Setting{Key: key}
	err := s.pool.QueryRow(ctx, `SELECT value, updated_by, updated_at FROM platform_settings WHERE key = $1`, key).
		Scan(&st.Value, &st.UpdatedBy, &st.UpdatedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return Setting{}, fmt.Errorf("reading setting %s: %w", key, ErrNotFound)
	}
	if err != nil {
		return Setting{}, fmt.Errorf("reading setting %s: %w", key, err)
	}
	return st, nil
}

// PutSetting stores value under key (insert or replace) with ev and returns
// the stored setting.
func (s *Store) PutSetting(ctx context.Context, key string, value json.RawMessage, by string, ev *auditchain.Event) (Setting, error) {
	st := Setting{Key: key, UpdatedBy: by}
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `INSERT INTO platform_settings (key, value, updated_by) VALUES ($1, $2, $3)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_by = excluded.updated_by, updated_at = now()
			RETURNING value, updated_at`, key, value, by).Scan(&st.Value, &st.UpdatedAt); err != nil {
			return fmt.Errorf("storing setting %s: %w", key, err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return st, err
}
