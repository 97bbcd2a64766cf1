package store

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/opencustody/ocv/internal/auditchain"
)

// AgentTokensChannel is the LISTEN/NOTIFY channel that announces a moved
// tokens_valid_after as "agent_id unix_microseconds", so that every replica
// refuses the agent's older JWTs at once.
const AgentTokensChannel = "ocv_agent_tokens_revoked"

// AgentCutoffWindow is how far back AgentTokenCutoffs looks: longer than
// any agent token lives (both verifiers refuse a lifetime over 24 h plus
// 60 s, wire.TokenLifetimes), so that older cutoffs no longer matter.
const AgentCutoffWindow = 25 * time.Hour

// Agent statuses.
const (
	AgentActive   = "active"
	AgentInactive = "inactive"
)

// Agent is a non-human principal. Only the SHA-256 of its key is stored.
type Agent struct {
	OrgID             string
	ID                string
	Name              string
	Description       string
	Status            string
	IntentsAPIEnabled bool
	Environment       string   // "" when none
	Scopes            []string // nil: derived from the agent's policies
	Guardrails        []byte   // a JSON object, stored as given
	KeyHash           []byte
	KeyLastFour       string
	APIKeyExpiresAt   *time.Time
	// TokensValidAfter: agent JWTs issued before it are refused (nil: none).
	TokensValidAfter *time.Time
	CreatedBy        string
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

const agentColumns = `org_id, id, name, description, status, intents_api_enabled, coalesce(environment, ''), scopes,
	guardrails, key_last_four, api_key_expires_at, tokens_valid_after, created_by, created_at, updated_at`

func scanAgent(row pgx.Row) (Agent, error) {
	var a Agent
	err := row.Scan(&a.OrgID, &a.ID, &a.Name, &a.Description, &a.Status, &a.IntentsAPIEnabled, &a.Environment, &a.Scopes,
		&a.Guardrails, &a.KeyLastFour, &a.APIKeyExpiresAt, &a.TokensValidAfter, &a.CreatedBy, &a.CreatedAt, &a.UpdatedAt)
	return a, err
}

func collectAgents(rows pgx.Rows, err error) ([]Agent, error) {
	if err != nil {
		return nil, fmt.Errorf("listing agents: %w", err)
	}
	defer rows.Close()
	var out []Agent
	for rows.Next() {
		a, err := scanAgent(rows)
		if err != nil {
			return nil, fmt.Errorf("listing agents: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// CreateAgent stores a with ev and returns it as stored.
func (s *Store) CreateAgent(ctx context.Context, a Agent, ev *auditchain.Event) (Agent, error) {
	var out Agent
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		out, err = scanAgent(tx.QueryRow(ctx, `INSERT INTO agents (org_id, id, name, description, intents_api_enabled,
			environment, scopes, guardrails, key_hash, key_last_four, api_key_expires_at, created_by)
			VALUES ($1, $2, $3, $4, $5, nullif($6, ''), $7, $8, $9, $10, $11, $12) RETURNING `+agentColumns,
			a.OrgID, a.ID, a.Name, a.Description, a.IntentsAPIEnabled, a.Environment, a.Scopes, guardrailsOrEmpty(a.Guardrails),
			a.KeyHash, a.KeyLastFour, a.APIKeyExpiresAt, a.CreatedBy))
		if err != nil {
			return fmt.Errorf("creating agent: %w", err)
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

func guardrailsOrEmpty(b []byte) []byte {
	if len(b) == 0 {
		return []byte("{}")
	}
	return b
}

// GetAgent returns one agent of the organization, whatever its status.
func (s *Store) GetAgent(ctx context.Context, orgID, id string) (Agent, error) {
	a, err := scanAgent(s.pool.QueryRow(ctx, `SELECT `+agentColumns+` FROM agents WHERE org_id = $1 AND id = $2`, orgID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Agent{}, fmt.Errorf("finding agent: %w", NotFound("agent"))
	}
	if err != nil {
		return Agent{}, fmt.Errorf("finding agent: %w", err)
	}
	return a, nil
}

// ListAgents lists the organization's agents in id order after the id after.
func (s *Store) ListAgents(ctx context.Context, orgID, after string, limit int) ([]Agent, error) {
	return collectAgents(s.pool.Query(ctx, `SELECT `+agentColumns+` FROM agents
		WHERE org_id = $1 AND ($2 = '' OR id > nullif($2, '')::uuid) ORDER BY id LIMIT $3`, orgID, after, limit))
}

// AgentByKey finds the agent with this id whose key has this SHA-256;
// ErrNotFound when there is none. Status and expiry are the caller's to check.
func (s *Store) AgentByKey(ctx context.Context, id string, hash []byte) (Agent, error) {
	a, err := scanAgent(s.pool.QueryRow(ctx, `SELECT `+agentColumns+` FROM agents WHERE key_hash = $1 AND id = $2`, hash, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Agent{}, fmt.Errorf("finding agent key: %w", ErrNotFound)
	}
	if err != nil {
		return Agent{}, fmt.Errorf("finding agent key: %w", err)
	}
	return a, nil
}

// UpdateAgent locks an active agent, lets apply change it and stores the
// mutable fields (name, description, intents_api_enabled, environment,
// scopes, guardrails) with ev, revoking the agent's JWTs. ErrNotFound for a
// missing or inactive agent.
func (s *Store) UpdateAgent(ctx context.Context, orgID, id string, apply func(*Agent) error, ev *auditchain.Event) (Agent, error) {
	var out Agent
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		a, err := scanAgent(tx.QueryRow(ctx, `SELECT `+agentColumns+` FROM agents
			WHERE org_id = $1 AND id = $2 AND status = 'active' FOR UPDATE`, orgID, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("updating agent: %w", NotFound("agent"))
		}
		if err != nil {
			return fmt.Errorf("updating agent: %w", err)
		}
		if err := apply(&a); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE agents SET name = $3, description = $4, intents_api_enabled = $5,
			environment = nullif($6, ''), scopes = $7, guardrails = $8, updated_at = now()
			WHERE org_id = $1 AND id = $2`,
			orgID, id, a.Name, a.Description, a.IntentsAPIEnabled, a.Environment, a.Scopes, guardrailsOrEmpty(a.Guardrails)); err != nil {
			return fmt.Errorf("updating agent: %w", err)
		}
		// Its JWTs carry the old claims.
		if out, err = revokeAgentTokens(ctx, tx, orgID, id); err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// RotateAgentKey replaces an active agent's key and revokes its JWTs, with
// ev; it returns the agent and the new cutoff. ErrNotFound for a missing or
// inactive agent.
func (s *Store) RotateAgentKey(ctx context.Context, orgID, id string, hash []byte, lastFour string, expiresAt *time.Time,
	ev *auditchain.Event) (Agent, error) {
	var out Agent
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE agents SET key_hash = $3, key_last_four = $4, api_key_expires_at = $5, updated_at = now()
			WHERE org_id = $1 AND id = $2 AND status = 'active'`, orgID, id, hash, lastFour, expiresAt)
		if err != nil {
			return fmt.Errorf("rotating agent key: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("rotating agent key: %w", NotFound("agent"))
		}
		if out, err = revokeAgentTokens(ctx, tx, orgID, id); err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, err
}

// DeactivateAgent marks an active agent inactive, deletes its policies
// (moving each affected vault's policy set to a new version, returned for
// the enclave to seal) and revokes its JWTs, with ev. ErrNotFound for a
// missing or already inactive agent.
func (s *Store) DeactivateAgent(ctx context.Context, orgID, id string, ev *auditchain.Event) (Agent, []PolicyChange, error) {
	var out Agent
	var changes []PolicyChange
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var err error
		if changes, err = deletePrincipalPolicies(ctx, tx, orgID, "agent", id); err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `UPDATE agents SET status = 'inactive', updated_at = now()
			WHERE org_id = $1 AND id = $2 AND status = 'active'`, orgID, id)
		if err != nil {
			return fmt.Errorf("deactivating agent: %w", err)
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("deactivating agent: %w", NotFound("agent"))
		}
		if out, err = revokeAgentTokens(ctx, tx, orgID, id); err != nil {
			return err
		}
		return insertEvent(ctx, tx, ev)
	})
	return out, changes, err
}

// revokeAgentTokens moves the agent's tokens_valid_after to one second
// past the database's now (never backwards), clears its guardrail-set MAC, announces it on
// AgentTokensChannel and returns the agent. The second of margin covers
// clock skew between replicas: a token minted elsewhere just before the
// revocation carries an issue time before the cutoff even on a replica
// whose clock runs ahead; a token minted after it is stamped with the
// cutoff at least (see proxy/auth.Minter), so fresh exchanges work at once.
func revokeAgentTokens(ctx context.Context, tx pgx.Tx, orgID, id string) (Agent, error) {
	// The change may alter the agent's guardrails or rules: its sealed set
	// stops counting until it is sealed again.
	a, err := scanAgent(tx.QueryRow(ctx, `UPDATE agents
		SET tokens_valid_after = greatest(coalesce(tokens_valid_after, '-infinity'), now() + interval '1 second'),
			guardrail_mac = NULL
		WHERE org_id = $1 AND id = $2 RETURNING `+agentColumns, orgID, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Agent{}, fmt.Errorf("revoking agent tokens: %w", NotFound("agent"))
	}
	if err != nil {
		return Agent{}, fmt.Errorf("revoking agent tokens: %w", err)
	}
	payload := a.ID + " " + strconv.FormatInt(a.TokensValidAfter.UnixMicro(), 10)
	if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, AgentTokensChannel, payload); err != nil {
		return Agent{}, fmt.Errorf("notifying agent token revocation: %w", err)
	}
	return a, nil
}

// revokeOrgAgentTokens moves the cutoff of every agent of orgID as
// revokeAgentTokens does and announces each, in tx: for an organization
// about to be deleted with its agents. The cutoffs reach every replica
// through AgentTokensChannel; the rows go with the organization, and
// replicas keep what they were told for AgentCutoffWindow.
func revokeOrgAgentTokens(ctx context.Context, tx pgx.Tx, orgID string) error {
	rows, err := tx.Query(ctx, `UPDATE agents
		SET tokens_valid_after = greatest(coalesce(tokens_valid_after, '-infinity'), now() + interval '1 second')
		WHERE org_id = $1 RETURNING id::text, tokens_valid_after`, orgID)
	if err != nil {
		return fmt.Errorf("revoking agent tokens: %w", err)
	}
	type cutoff struct {
		id string
		at time.Time
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (cutoff, error) {
		var c cutoff
		return c, r.Scan(&c.id, &c.at)
	})
	if err != nil {
		return fmt.Errorf("revoking agent tokens: %w", err)
	}
	for _, c := range all {
		payload := c.id + " " + strconv.FormatInt(c.at.UnixMicro(), 10)
		if _, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, AgentTokensChannel, payload); err != nil {
			return fmt.Errorf("notifying agent token revocation: %w", err)
		}
	}
	return nil
}

// ParseAgentCutoff reads a notification of AgentTokensChannel.
func ParseAgentCutoff(payload string) (agentID string, cutoff time.Time, ok bool) {
	id, us, found := strings.Cut(payload, " ")
	n, err := strconv.ParseInt(us, 10, 64)
	if !found || err != nil || id == "" {
		return "", time.Time{}, false
	}
	return id, time.UnixMicro(n), true
}

// AgentTokenCutoffs returns every agent's tokens_valid_after set within
// AgentCutoffWindow.
func (s *Store) AgentTokenCutoffs(ctx context.Context) (map[string]time.Time, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, tokens_valid_after FROM agents
		WHERE tokens_valid_after > now() - make_interval(secs => $1)`, AgentCutoffWindow.Seconds())
	if err != nil {
		return nil, fmt.Errorf("loading agent token cutoffs: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var id string
		var at time.Time
		if err := rows.Scan(&id, &at); err != nil {
			return nil, fmt.Errorf("loading agent token cutoffs: %w", err)
		}
		out[id] = at
	}
	return out, rows.Err()
}
