package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/policy"
)

// MaxPoliciesPerVault caps the policies of one vault (checked under the
// vault's row lock, so concurrent creations cannot pass it).
const MaxPoliciesPerVault = 1000

// Policy is a stored grant: the rule the policy package evaluates, plus the
// fields stored for later work (attribute and transaction conditions,
// consensus trigger; JSON objects stored as given, nil when absent).
type Policy struct {
	OrgID               string
	VaultID             string
	Rule                policy.Policy
	AttributeConditions []byte
	TxConditions        []byte
	ConsensusTrigger    []byte
	CreatedAt           time.Time
	UpdatedAt           time.Time
}

// conditionsJSON is the stored form of policy.Conditions.
type conditionsJSON struct {
	IPCIDRs       []string        `json:"ip_cidrs,omitempty"`
	TimeWindow    *timeWindowJSON `json:"time_window,omitempty"`
	EnvironmentIn []string        `json:"environment_in,omitempty"`
}

type timeWindowJSON struct {
	Start string `json:"start"`
	End   string `json:"end"`
	Days  []int  `json:"days,omitempty"`
}

func encodeConditions(c policy.Conditions) ([]byte, error) {
	out := conditionsJSON{IPCIDRs: c.IPCIDRs, EnvironmentIn: c.EnvironmentIn}
	if w := c.TimeWindow; w != nil {
		out.TimeWindow = &timeWindowJSON{Start: w.Start, End: w.End}
		for _, d := range w.Days {
			out.TimeWindow.Days = append(out.TimeWindow.Days, int(d))
		}
	}
	return json.Marshal(out)
}

func decodeConditions(b []byte) (policy.Conditions, error) {
	var in conditionsJSON
	if err := json.Unmarshal(b, &in); err != nil {
		return policy.Conditions{}, err
	}
	c := policy.Conditions{IPCIDRs: in.IPCIDRs, EnvironmentIn: in.EnvironmentIn}
	if w := in.TimeWindow; w != nil {
		c.TimeWindow = &policy.TimeWindow{Start: w.Start, End: w.End}
		for _, d := range w.Days {
			c.TimeWindow.Days = append(c.TimeWindow.Days, time.Weekday(d))
		}
	}
	return c, nil
}

const policyColumns = `org_id, id, vault_id, secret_path_pattern, principal_type, principal_id, permissions, conditions,
	effect, priority, attribute_conditions, tx_conditions, consensus_trigger, expires_at, created_at, updated_at`

func scanPolicy(row pgx.Row) (Policy, error) {
	var p Policy
	var perms []string
	var conds []byte
	var effect string
	err := row.Scan(&p.OrgID, &p.Rule.ID, &p.VaultID, &p.Rule.Pattern, &p.Rule.PrincipalType, &p.Rule.PrincipalID, &perms,
		&conds, &effect, &p.Rule.Priority, &p.AttributeConditions, &p.TxConditions, &p.ConsensusTrigger, &p.Rule.ExpiresAt,
		&p.CreatedAt, &p.UpdatedAt)
	if err != nil {
		return Policy{}, err
	}
	p.Rule.Effect = policy.Effect(effect)
	for _, q := range perms {
		p.Rule.Permissions = append(p.Rule.Permissions, policy.Permission(q))
	}
	if p.Rule.Conditions, err = decodeConditions(conds); err != nil {
		return Policy{}, fmt.Errorf("decoding conditions: %w", err)
	}
	return p, nil
}

func collectPolicies(rows pgx.Rows, err error) ([]Policy, error) {
	if err != nil {
		return nil, fmt.Errorf("reading policies: %w", err)
	}
	defer rows.Close()
	var out []Policy
	for rows.Next() {
		p, err := scanPolicy(rows)
		if err != nil {
			return nil, fmt.Errorf("reading policies: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

func rules(ps []Policy) []policy.Policy {
	out := make([]policy.Policy, len(ps))
	for i := range ps {
		out[i] = ps[i].Rule
	}
	return out
}

func perms(p policy.Policy) []string {
	out := make([]string, len(p.Permissions))
	for i, q := range p.Permissions {
		out[i] = string(q)
	}
	return out
}

// PolicyChange is what a policy write did: the vault's new policy-set
// version and encoding, and the agents whose JWTs it revoked (with their
// new cutoffs).
type PolicyChange struct {
	VaultID string
	Version uint64
	Set     []byte // the encoded set at Version, for the enclave to seal
	Revoked []Agent
}

// CreatePolicy stores p in its vault with ev: the vault's policy version
// moves on and its encoded set is stored in the same transaction, and an
// agent it targets has its JWTs revoked. ErrNotFound for a vault missing in
// the organization, ErrUnknownPrincipal when principal_id is no member or
// active agent of it, ErrLimit past MaxPoliciesPerVault.
func (s *Store) CreatePolicy(ctx context.Context, p Policy, ev *auditchain.Event) (Policy, PolicyChange, error) {
	var out Policy
	var ch PolicyChange
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockVault(ctx, tx, p.OrgID, p.VaultID); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM policies WHERE org_id = $1 AND vault_id = $2`,
			p.OrgID, p.VaultID).Scan(&n); err != nil {
			return fmt.Errorf("counting policies: %w", err)
		}
		if n >= MaxPoliciesPerVault {
			return fmt.Errorf("creating policy: %w", ErrLimit)
		}
		var err error
		if out, err = writePolicy(ctx, tx, p, false); err != nil {
			return err
		}
		if ch, err = policiesChanged(ctx, tx, p.OrgID, p.VaultID, out.Rule); err != nil {
			return err
		}
		if err := emitPolicyEvent(ctx, tx, "policy.created", out, ev); err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, ch, err
}

// UpdatePolicy replaces every field of an existing policy of the vault
// (created_at stays) with ev, like CreatePolicy; agents targeted before or
// after have their JWTs revoked. ErrNotFound for a missing vault or policy.
func (s *Store) UpdatePolicy(ctx context.Context, p Policy, ev *auditchain.Event) (Policy, PolicyChange, error) {
	var out Policy
	var ch PolicyChange
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockVault(ctx, tx, p.OrgID, p.VaultID); err != nil {
			return err
		}
		old, err := scanPolicy(tx.QueryRow(ctx, `SELECT `+policyColumns+` FROM policies
			WHERE org_id = $1 AND vault_id = $2 AND id = $3`, p.OrgID, p.VaultID, p.Rule.ID))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("updating policy: %w", ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("updating policy: %w", err)
		}
		if out, err = writePolicy(ctx, tx, p, true); err != nil {
			return err
		}
		if ch, err = policiesChanged(ctx, tx, p.OrgID, p.VaultID, old.Rule, out.Rule); err != nil {
			return err
		}
		if err := emitPolicyEvent(ctx, tx, "policy.updated", out, ev); err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, ch, err
}

// DeletePolicy deletes a policy of the vault with ev, like CreatePolicy.
func (s *Store) DeletePolicy(ctx context.Context, orgID, vaultID, id string, ev *auditchain.Event) (PolicyChange, error) {
	var ch PolicyChange
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		if err := lockVault(ctx, tx, orgID, vaultID); err != nil {
			return err
		}
		old, err := scanPolicy(tx.QueryRow(ctx, `DELETE FROM policies WHERE org_id = $1 AND vault_id = $2 AND id = $3
			RETURNING `+policyColumns, orgID, vaultID, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("deleting policy: %w", ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("deleting policy: %w", err)
		}
		if ch, err = policiesChanged(ctx, tx, orgID, vaultID, old.Rule); err != nil {
			return err
		}
		if err := emitPolicyEvent(ctx, tx, "policy.deleted", old, ev); err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
	return ch, err
}

// lockVault locks the vault row (serialising policy changes per vault);
// ErrNotFound when the organization has no such vault.
func lockVault(ctx context.Context, tx pgx.Tx, orgID, vaultID string) error {
	var one int
	err := tx.QueryRow(ctx, `SELECT 1 FROM vaults WHERE org_id = $1 AND id = $2 FOR UPDATE`, orgID, vaultID).Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return fmt.Errorf("finding vault: %w", ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("locking vault: %w", err)
	}
	return nil
}

// writePolicy checks the principal and inserts or updates p.
func writePolicy(ctx context.Context, tx pgx.Tx, p Policy, update bool) (Policy, error) {
	var ok bool
	q := `SELECT EXISTS (SELECT 1 FROM org_members WHERE org_id = $1 AND user_id = $2)`
	if p.Rule.PrincipalType == policy.PrincipalAgent {
		q = `SELECT EXISTS (SELECT 1 FROM agents WHERE org_id = $1 AND id = $2 AND status = 'active')`
	}
	if err := tx.QueryRow(ctx, q, p.OrgID, p.Rule.PrincipalID).Scan(&ok); err != nil {
		return Policy{}, fmt.Errorf("checking policy principal: %w", err)
	}
	if !ok {
		return Policy{}, fmt.Errorf("writing policy: %w", ErrUnknownPrincipal)
	}
	conds, err := encodeConditions(p.Rule.Conditions)
	if err != nil {
		return Policy{}, fmt.Errorf("encoding conditions: %w", err)
	}
	r := p.Rule
	args := []any{p.OrgID, r.ID, p.VaultID, r.Pattern, r.PrincipalType, r.PrincipalID, perms(r), conds, string(r.Effect),
		r.Priority, p.AttributeConditions, p.TxConditions, p.ConsensusTrigger, r.ExpiresAt}
	sql := `INSERT INTO policies (org_id, id, vault_id, secret_path_pattern, principal_type, principal_id, permissions,
		conditions, effect, priority, attribute_conditions, tx_conditions, consensus_trigger, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING ` + policyColumns
	if update {
		sql = `UPDATE policies SET secret_path_pattern = $4, principal_type = $5, principal_id = $6, permissions = $7,
			conditions = $8, effect = $9, priority = $10, attribute_conditions = $11, tx_conditions = $12,
			consensus_trigger = $13, expires_at = $14, updated_at = now()
			WHERE org_id = $1 AND id = $2 AND vault_id = $3 RETURNING ` + policyColumns
	}
	out, err := scanPolicy(tx.QueryRow(ctx, sql, args...))
	if err != nil {
		return Policy{}, fmt.Errorf("writing policy: %w", err)
	}
	return out, nil
}

// policiesChanged moves the vault's policy version on, stores the encoded
// set and revokes the JWTs of every agent among touched.
func policiesChanged(ctx context.Context, tx pgx.Tx, orgID, vaultID string, touched ...policy.Policy) (PolicyChange, error) {
	ch := PolicyChange{VaultID: vaultID}
	var err error
	if ch.Version, ch.Set, err = storePolicySetBytes(ctx, tx, orgID, vaultID); err != nil {
		return ch, err
	}
	seen := map[string]bool{}
	for _, r := range touched {
		if r.PrincipalType != policy.PrincipalAgent || seen[r.PrincipalID] {
			continue
		}
		seen[r.PrincipalID] = true
		a, err := revokeAgentTokens(ctx, tx, orgID, r.PrincipalID)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return ch, err
		}
		ch.Revoked = append(ch.Revoked, a)
	}
	return ch, nil
}

// deletePrincipalPolicies deletes every policy of a principal, moving each
// affected vault's policy set on, and returns those changes. Vaults are locked in id order before any
// row changes, the order every policy write follows (vault, then agent).
func deletePrincipalPolicies(ctx context.Context, tx pgx.Tx, orgID, principalType, principalID string) ([]PolicyChange, error) {
	rows, err := tx.Query(ctx, `SELECT DISTINCT vault_id::text FROM policies
		WHERE org_id = $1 AND principal_type = $2 AND principal_id = $3 ORDER BY 1`, orgID, principalType, principalID)
	if err != nil {
		return nil, fmt.Errorf("finding principal policies: %w", err)
	}
	vaults, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("finding principal policies: %w", err)
	}
	for _, v := range vaults {
		if err := lockVault(ctx, tx, orgID, v); err != nil {
			return nil, err
		}
	}
	if _, err := tx.Exec(ctx, `DELETE FROM policies WHERE org_id = $1 AND principal_type = $2 AND principal_id = $3`,
		orgID, principalType, principalID); err != nil {
		return nil, fmt.Errorf("deleting principal policies: %w", err)
	}
	var out []PolicyChange
	for _, v := range vaults {
		ch := PolicyChange{VaultID: v}
		if ch.Version, ch.Set, err = storePolicySetBytes(ctx, tx, orgID, v); err != nil {
			return nil, err
		}
		out = append(out, ch)
	}
	return out, nil
}
