package store

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// IPRulesChannel is the notification channel on which every change of an
// organization's IP rules is announced, with the organization id as payload.
const IPRulesChannel = "ocv_ip_rules"

// MaxIPRulesPerOrg caps the IP rules of one organization.
const MaxIPRulesPerOrg = 1000

// IPRule is one allow or block rule of an organization's IP filter.
type IPRule struct {
	OrgID       string
	ID          string
	CIDR        netip.Prefix // masked
	RuleType    string       // "allow" or "block"
	Description string
	CreatedBy   string
	CreatedAt   time.Time
}

const ipRuleColumns = `org_id, id, cidr::text, rule_type, description, created_by, created_at`

func scanIPRule(row pgx.Row) (IPRule, error) {
	var r IPRule
	var cidr string
	if err := row.Scan(&r.OrgID, &r.ID, &cidr, &r.RuleType, &r.Description, &r.CreatedBy, &r.CreatedAt); err != nil {
		return IPRule{}, err
	}
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		return IPRule{}, fmt.Errorf("parsing stored cidr: %w", err)
	}
	r.CIDR = p
	return r, nil
}

// CreateIPRule stores r with ev and announces the change on IPRulesChannel.
// ErrConflict when the organization has the same rule already, ErrLimit
// past MaxIPRulesPerOrg.
func (s *Store) CreateIPRule(ctx context.Context, r IPRule, ev *auditchain.Event) (IPRule, error) {
	var out IPRule
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		// The organization's row lock serialises the count check.
		var n int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM orgs WHERE id = $1 FOR NO KEY UPDATE`, r.OrgID).Scan(&n); err != nil {
			return fmt.Errorf("locking organization: %w", err)
		}
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM ip_rules WHERE org_id = $1`, r.OrgID).Scan(&n); err != nil {
			return fmt.Errorf("counting ip rules: %w", err)
		}
		if n >= MaxIPRulesPerOrg {
			return fmt.Errorf("creating ip rule: %w", ErrLimit)
		}
		var err error
		out, err = scanIPRule(tx.QueryRow(ctx, `INSERT INTO ip_rules (org_id, id, cidr, rule_type, description, created_by)
			VALUES ($1, $2, $3::cidr, $4, $5, $6) RETURNING `+ipRuleColumns,
			r.OrgID, r.ID, r.CIDR.Masked().String(), r.RuleType, r.Description, r.CreatedBy))
		if pgCode(err) == codeUniqueViolation {
			return fmt.Errorf("creating ip rule: %w", ErrConflict)
		}
		if err != nil {
			return fmt.Errorf("creating ip rule: %w", err)
		}
		if err := notifyIPRules(ctx, tx, r.OrgID); err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// ListIPRules lists an organization's IP rules in id order after the id after.
func (s *Store) ListIPRules(ctx context.Context, orgID, after string, limit int) ([]IPRule, error) {
	return collectIPRules(s.pool.Query(ctx, `SELECT `+ipRuleColumns+` FROM ip_rules
		WHERE org_id = $1 AND ($2 = '' OR id > nullif($2, '')::uuid) ORDER BY id LIMIT $3`, orgID, after, limit))
}

// OrgIPRules returns every IP rule of an organization (at most
// MaxIPRulesPerOrg), as the IP filter evaluates them.
func (s *Store) OrgIPRules(ctx context.Context, orgID string) ([]IPRule, error) {
	return collectIPRules(s.pool.Query(ctx, `SELECT `+ipRuleColumns+` FROM ip_rules WHERE org_id = $1`, orgID))
}

// DeleteIPRule deletes a rule of the organization with ev and announces the
// change; ErrNotFound when it has no such rule.
func (s *Store) DeleteIPRule(ctx context.Context, orgID, id string, ev *auditchain.Event) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `DELETE FROM ip_rules WHERE org_id = $1 AND id = $2`, orgID, id)
		if err != nil {
			return fmt.Errorf("deleting ip rule: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("deleting ip rule: %w", NotFound("IP rule"))
		}
		if err := notifyIPRules(ctx, tx, orgID); err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
}

func notifyIPRules(ctx context.Context, tx pgx.Tx, orgID string) error {
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, IPRulesChannel, orgID); err != nil {
		return fmt.Errorf("notifying ip rule change: %w", err)
	}
	return nil
}

func collectIPRules(rows pgx.Rows, err error) ([]IPRule, error) {
	if err != nil {
		return nil, fmt.Errorf("reading ip rules: %w", err)
	}
	defer rows.Close()
	var out []IPRule
	for rows.Next() {
		r, err := scanIPRule(rows)
		if err != nil {
			return nil, fmt.Errorf("reading ip rules: %w", err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading ip rules: %w", err)
	}
	return out, nil
}
