package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// UsagePeriod is the metering period of t: its UTC calendar month, "YYYY-MM".
func UsagePeriod(t time.Time) string { return t.UTC().Format("2006-01") }

// LeaseUsage adds n calls to the organization's counter for period when the
// total stays within limit, in one atomic statement (an upsert guarded by
// used + n <= limit, so concurrent leases from many replicas can never
// overshoot). It returns the counter after the lease and true, or the
// current counter and false when the lease would pass the limit. An unknown
// organization gives ErrNotFound.
func (s *Store) LeaseUsage(ctx context.Context, orgID, period string, n, limit int64) (int64, bool, error) {
	if n <= 0 {
		return 0, false, fmt.Errorf("leasing usage: block size %d: %w", n, ErrLimit)
	}
	var used int64
	err := s.pool.QueryRow(ctx, `
		INSERT INTO usage_counters (org_id, period, used)
		SELECT $1::uuid, $2::text, $3::bigint WHERE $3::bigint <= $4::bigint
		ON CONFLICT (org_id, period) DO UPDATE
			SET used = usage_counters.used + EXCLUDED.used, updated_at = now()
			WHERE usage_counters.used + EXCLUDED.used <= $4::bigint
		RETURNING used`, orgID, period, n, limit).Scan(&used)
	switch {
	case err == nil:
		return used, true, nil
	case errors.Is(err, pgx.ErrNoRows):
		used, err := s.Usage(ctx, orgID, period)
		return used, false, err
	case pgCode(err) == codeForeignKeyViolation:
		return 0, false, fmt.Errorf("leasing usage for org %s: %w", orgID, ErrNotFound)
	default:
		return 0, false, fmt.Errorf("leasing usage for org %s: %w", orgID, err)
	}
}

// ReturnUsage gives back n leased calls that were never served (a replica
// shutting down or an aged-out lease). The counter never goes below zero.
func (s *Store) ReturnUsage(ctx context.Context, orgID, period string, n int64) error {
	if n <= 0 {
		return nil
	}
	_, err := s.pool.Exec(ctx, `UPDATE usage_counters SET used = GREATEST(used - $3, 0), updated_at = now()
		WHERE org_id = $1 AND period = $2`, orgID, period, n)
	if err != nil {
		return fmt.Errorf("returning usage for org %s: %w", orgID, err)
	}
	return nil
}

// Usage returns the organization's counter for period (0 when no call was
// counted yet).
func (s *Store) Usage(ctx context.Context, orgID, period string) (int64, error) {
	var used int64
	err := s.pool.QueryRow(ctx, `SELECT used FROM usage_counters WHERE org_id = $1 AND period = $2`,
		orgID, period).Scan(&used)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("reading usage for org %s: %w", orgID, err)
	}
	return used, nil
}

// PeriodUsage is the number of calls counted in one month.
type PeriodUsage struct {
	Period string // "YYYY-MM"
	Used   int64
}

// UsageHistory returns the organization's monthly counters, newest first,
// at most limit of them. Months without any counted call have no row.
func (s *Store) UsageHistory(ctx context.Context, orgID string, limit int) ([]PeriodUsage, error) {
	rows, err := s.pool.Query(ctx, `SELECT period, used FROM usage_counters WHERE org_id = $1
		ORDER BY period DESC LIMIT $2`, orgID, limit)
	if err != nil {
		return nil, fmt.Errorf("listing usage history for org %s: %w", orgID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (PeriodUsage, error) {
		var p PeriodUsage
		return p, r.Scan(&p.Period, &p.Used)
	})
	if err != nil {
		return nil, fmt.Errorf("listing usage history for org %s: %w", orgID, err)
	}
	return out, nil
}

// OrgBilling is what metering needs to know about an organization.
type OrgBilling struct {
	Tier        string
	CreditCents int64
	HasCredits  bool // a credit account exists (even at balance 0)
}

// OrgBilling returns the organization's tier and prepaid credit balance.
func (s *Store) OrgBilling(ctx context.Context, orgID string) (OrgBilling, error) {
	var b OrgBilling
	var bal *int64
	err := s.pool.QueryRow(ctx, `SELECT o.tier, c.balance_cents FROM orgs o
		LEFT JOIN org_credits c ON c.org_id = o.id WHERE o.id = $1`, orgID).Scan(&b.Tier, &bal)
	if errors.Is(err, pgx.ErrNoRows) {
		return b, fmt.Errorf("reading billing of org %s: %w", orgID, ErrNotFound)
	}
	if err != nil {
		return b, fmt.Errorf("reading billing of org %s: %w", orgID, err)
	}
	if bal != nil {
		b.CreditCents, b.HasCredits = *bal, true
	}
	return b, nil
}

// SetOrgTier changes the organization's subscription tier. The caller
// validates the tier name.
func (s *Store) SetOrgTier(ctx context.Context, orgID, tier string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE orgs SET tier = $2 WHERE id = $1`, orgID, tier)
	if err != nil {
		return fmt.Errorf("setting tier of org %s: %w", orgID, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("setting tier of org %s: %w", orgID, NotFound("organization"))
	}
	return nil
}

// AddCredit adds cents (> 0) to the organization's prepaid balance, creating
// the credit account when needed, and returns the new balance.
func (s *Store) AddCredit(ctx context.Context, orgID string, cents int64) (int64, error) {
	if cents <= 0 {
		return 0, fmt.Errorf("adding credit to org %s: amount must be positive: %w", orgID, ErrLimit)
	}
	var bal int64
	err := s.pool.QueryRow(ctx, `INSERT INTO org_credits (org_id, balance_cents) VALUES ($1, $2)
		ON CONFLICT (org_id) DO UPDATE SET balance_cents = org_credits.balance_cents + EXCLUDED.balance_cents,
			updated_at = now()
		RETURNING balance_cents`, orgID, cents).Scan(&bal)
	if pgCode(err) == codeForeignKeyViolation {
		return 0, fmt.Errorf("adding credit to org %s: %w", orgID, ErrNotFound)
	}
	if err != nil {
		return 0, fmt.Errorf("adding credit to org %s: %w", orgID, err)
	}
	return bal, nil
}

// SpendCredit atomically takes cents (> 0) from the organization's prepaid
// balance. It returns the balance after spending and true, or the unchanged
// balance (0 without a credit account) and false when it does not cover
// cents; the balance never goes negative.
func (s *Store) SpendCredit(ctx context.Context, orgID string, cents int64) (int64, bool, error) {
	if cents <= 0 {
		return 0, false, fmt.Errorf("spending credit of org %s: amount must be positive: %w", orgID, ErrLimit)
	}
	var bal int64
	err := s.pool.QueryRow(ctx, `UPDATE org_credits SET balance_cents = balance_cents - $2, updated_at = now()
		WHERE org_id = $1 AND balance_cents >= $2 RETURNING balance_cents`, orgID, cents).Scan(&bal)
	if err == nil {
		return bal, true, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return 0, false, fmt.Errorf("spending credit of org %s: %w", orgID, err)
	}
	err = s.pool.QueryRow(ctx, `SELECT balance_cents FROM org_credits WHERE org_id = $1`, orgID).Scan(&bal)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return 0, false, fmt.Errorf("reading credit of org %s: %w", orgID, err)
	}
	return bal, false, nil
}

// UsePaymentNonce records a payment authorization nonce as spent. A nonce
// seen before gives ErrReused, so a payment is accepted at most once across
// all replicas. orgID may be "" for a payment made without a token.
func (s *Store) UsePaymentNonce(ctx context.Context, nonce, orgID, payer string) error {
	var org *string
	if orgID != "" {
		org = &orgID
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO payment_nonces (nonce, org_id, payer) VALUES ($1, $2, $3)
		ON CONFLICT (nonce) DO NOTHING`, nonce, org, payer)
	if err != nil {
		return fmt.Errorf("recording payment nonce: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("recording payment nonce: %w", ErrReused)
	}
	return nil
}

// PurgePaymentNonces deletes nonces recorded more than olderThan ago, by
// the database's now(), and returns how many went. Only purge past the
// longest authorization window the verifier accepts: older authorizations
// are refused as expired anyway.
func (s *Store) PurgePaymentNonces(ctx context.Context, olderThan time.Duration) (int64, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM payment_nonces WHERE created_at < now() - make_interval(secs => $1)`,
		olderThan.Seconds())
	if err != nil {
		return 0, fmt.Errorf("purging payment nonces: %w", err)
	}
	return tag.RowsAffected(), nil
}
