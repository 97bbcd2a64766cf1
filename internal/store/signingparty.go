package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
)

// SigningParty is what a signing request needs about its agent, read in
// one query: the agent, its active key for a chain (Key.Version 0 when it
// has none) and its sealed guardrail set (GuardrailMAC nil while unsealed).
type SigningParty struct {
	Agent        Agent
	Key          SigningKey
	GuardrailSet []byte
	GuardrailMAC []byte
}

// signingPartySQL reads the agent, its active key for $3 and its sealed
// guardrail set.
const signingPartySQL = `SELECT ` + agentColumns + `,
	coalesce(k.version, 0), coalesce(k.curve, ''), k.public_key, coalesce(k.address, ''), coalesce(k.imported, false), k.key_created_at,
	guardrail_set, guardrail_mac
	FROM agents LEFT JOIN LATERAL (SELECT version, curve, public_key, address, imported, created_at AS key_created_at
		FROM signing_keys sk WHERE sk.org_id = $1 AND sk.agent_id = $2 AND sk.chain = $3 AND sk.status = 'active') k ON true
	WHERE agents.org_id = $1 AND agents.id = $2`

// SigningPartyOf reads the signing party of agentID for chain; ErrNotFound
// when the agent does not exist in the organization.
func (s *Store) SigningPartyOf(ctx context.Context, orgID, agentID, chain string) (SigningParty, error) {
	var p SigningParty
	a := &p.Agent
	k := &p.Key
	var keyCreated *time.Time
	err := s.pool.QueryRow(ctx, signingPartySQL, orgID, agentID, chain).Scan(&a.OrgID, &a.ID, &a.Name, &a.Description,
		&a.Status, &a.IntentsAPIEnabled, &a.Environment, &a.Scopes, &a.Guardrails, &a.KeyLastFour, &a.APIKeyExpiresAt,
		&a.TokensValidAfter, &a.CreatedBy, &a.CreatedAt, &a.UpdatedAt,
		&k.Version, &k.Curve, &k.PublicKey, &k.Address, &k.Imported, &keyCreated, &p.GuardrailSet, &p.GuardrailMAC)
	if errors.Is(err, pgx.ErrNoRows) {
		return SigningParty{}, fmt.Errorf("agent %s: %w", agentID, NotFound("agent"))
	}
	if err != nil {
		return SigningParty{}, fmt.Errorf("reading signing party: %w", err)
	}
	if k.Version > 0 {
		k.OrgID, k.AgentID, k.Chain, k.Status = orgID, agentID, chain, SigningKeyActive
		if keyCreated != nil {
			k.CreatedAt = *keyCreated
		}
	}
	return p, nil
}
