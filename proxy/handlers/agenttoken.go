package handlers

import (
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

var errBadAgentKey = problem.Unauthorized(problem.TypeInvalidCredentials,
	"the agent id or key is invalid, expired or rotated, or the agent is inactive")

// AgentToken answers POST /v1/auth/agent-token: an agent's id and key for
// an agent JWT (AgentTTL, 2 h by default) carrying its scopes (explicit,
// else derived from its policies; [] with none), environment and flags.
func (h *Handlers) AgentToken(w http.ResponseWriter, r *http.Request) error {
	var in api.AgentTokenRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.AgentID == nil || in.APIKey == nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "agent_id and api_key are required")
	}
	id, err := uuid.Parse(*in.AgentID)
	if err != nil || !auth.WellFormed(AgentKeyPrefix, *in.APIKey) {
		return errBadAgentKey
	}
	a, err := h.Agents.AgentByKey(r.Context(), id.String(), auth.HashOpaque(*in.APIKey))
	if errors.Is(err, store.ErrNotFound) {
		return errBadAgentKey
	}
	if err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetOrg(a.OrgID, "anonymous", "")
	entry.SetResource("agent/" + a.ID)
	now := h.now()
	if a.Status != store.AgentActive || (a.APIKeyExpiresAt != nil && !now.Before(*a.APIKeyExpiresAt)) {
		return errBadAgentKey
	}
	entry.SetOrg(a.OrgID, auth.PrincipalAgent, a.ID)
	// The enclave checks the key against the agent's sealed record and
	// takes the token's flags and scopes from it.
	var notBefore time.Time
	if a.TokensValidAfter != nil {
		notBefore = *a.TokensValidAfter
	}
	minted, err := h.Minter.Agent(r.Context(), a.OrgID, a.ID, *in.APIKey, notBefore)
	if errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrNoRecord) {
		return errBadAgentKey
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, bearerToken(minted.Token, minted.TTL))
}

// agentClaims builds the claims of a's token from its record and policies.
func (h *Handlers) agentClaims(r *http.Request, a store.Agent, now time.Time) (*auth.AgentClaims, error) {
	var pols []policy.Policy
	if a.Scopes == nil {
		var err error
		if pols, err = h.Agents.AgentPolicies(r.Context(), a.OrgID, a.ID); err != nil {
			return nil, err
		}
	}
	c := &auth.AgentClaims{
		Scopes: policy.Scopes(a.Scopes, pols, now), Environment: a.Environment, IntentsAPIEnabled: a.IntentsAPIEnabled,
		ExecutionIntentsEnabled: policy.GuardrailBool(a.Guardrails, "execution_intents_enabled"),
		IntentsRequireTEE:       policy.GuardrailBool(a.Guardrails, "intents_require_tee"),
		ExecutionRequireTEE:     policy.GuardrailBool(a.Guardrails, "execution_require_tee"),
	}
	if a.TokensValidAfter != nil {
		c.NotBefore = *a.TokensValidAfter
	}
	return c, nil
}
