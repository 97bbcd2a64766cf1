package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"time"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/metering"
)

// AgentKeyPrefix starts every agent API key.
const AgentKeyPrefix = "ocv_"

// agentView is an agent as the API shows it: the record's fields, then the
// guardrail fields (defaults for booleans never set). Never the key.
func agentView(a store.Agent) map[string]any {
	out := map[string]any{}
	for k, v := range policy.GuardrailDefaults {
		out[k] = v
	}
	var g map[string]json.RawMessage
	_ = json.Unmarshal(a.Guardrails, &g)
	for k, v := range g {
		out[k] = v
	}
	var env, scopes any
	if a.Environment != "" {
		env = a.Environment
	}
	if a.Scopes != nil {
		scopes = a.Scopes
	}
	for k, v := range map[string]any{
		"id": a.ID, "name": a.Name, "description": a.Description, "status": a.Status,
		"intents_api_enabled": a.IntentsAPIEnabled, "environment": env, "scopes": scopes,
		"api_key_prefix": AgentKeyPrefix, "api_key_last_four": a.KeyLastFour, "api_key_expires_at": timePtr(a.APIKeyExpiresAt),
		"created_by": a.CreatedBy, "created_at": rfc3339(a.CreatedAt), "updated_at": rfc3339(a.UpdatedAt),
	} {
		out[k] = v
	}
	return out
}

// withUsage adds the read-only counters of the agent's current UTC day:
// transactions signed, native value spent per chain (in ETH units; all
// chains with signing are EVM chains so far) and the deprecated total
// tx_spent_today_eth.
func (h *Handlers) withUsage(ctx context.Context, a store.Agent) (map[string]any, error) {
	v := agentView(a)
	count, spent, err := h.Txs.AgentTxToday(ctx, a.OrgID, a.ID, time.Now())
	if err != nil {
		return nil, err
	}
	byChain := map[string]string{}
	total := new(big.Int)
	for chain, wei := range spent {
		n, ok := new(big.Int).SetString(wei, 10)
		if !ok {
			continue
		}
		byChain[chain] = evm.FormatEth(n)
		total.Add(total, n)
	}
	v["tx_count_today"] = count
	v["tx_spent_today_by_chain"] = byChain
	v["tx_overhead_today_by_chain"] = map[string]any{}
	v["tx_spent_today"] = evm.FormatEth(total)
	v["tx_spent_today_eth"] = evm.FormatEth(total)
	return v, nil
}

func agentNotFound(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return problem.NotFound("agent")
	}
	return err
}

// CreateAgent answers POST /v1/agents (human users): the agent, its id as
// agent_id and its API key, shown once; only the key's SHA-256 is stored.
func (h *Handlers) CreateAgent(w http.ResponseWriter, r *http.Request) error {
	var body map[string]json.RawMessage
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in, err := parseAgentInput(body, true)
	if err != nil {
		return err
	}
	guardrails, err := mergeGuardrails(nil, in.Guardrails)
	if err != nil {
		return err
	}
	if err := h.checkResource(r, metering.ResourceAgents, h.countAgents); err != nil {
		return err
	}
	key, hash, err := auth.NewOpaque(AgentKeyPrefix)
	if err != nil {
		return err
	}
	p := principal(r)
	a := store.Agent{OrgID: p.OrgID, ID: newID(), Name: *in.Name, Scopes: in.Scopes, Guardrails: guardrails, KeyHash: hash,
		KeyLastFour: auth.LastFour(key), APIKeyExpiresAt: in.APIKeyExpiresAt, CreatedBy: p.ID}
	if in.Description != nil {
		a.Description = *in.Description
	}
	if in.IntentsAPIEnabled != nil {
		a.IntentsAPIEnabled = *in.IntentsAPIEnabled
	}
	if in.Environment != nil {
		a.Environment = *in.Environment
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("agent/" + a.ID)
	a, err = h.Agents.CreateAgent(r.Context(), a, entry.Prepare(http.StatusCreated))
	if err != nil {
		return err
	}
	h.resealAfterChange(r, a.OrgID, a.ID)
	out := agentView(a)
	out["agent_id"], out["api_key"] = a.ID, key
	return writeJSON(w, http.StatusCreated, out)
}

// ListAgents answers GET /v1/agents (human users), inactive agents included.
func (h *Handlers) ListAgents(w http.ResponseWriter, r *http.Request) error {
	limit, cursor, err := pageParams(r)
	if err != nil {
		return err
	}
	if err := cursorID(cursor); err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("agents")
	as, err := h.Agents.ListAgents(r.Context(), principal(r).OrgID, cursor, limit+1)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, listPage(as, limit, agentView, func(a store.Agent) string { return a.ID }))
}

// GetAgent answers GET /v1/agents/{id} (human users).
func (h *Handlers) GetAgent(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id", "agent")
	if err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("agent/" + id)
	a, err := h.Agents.GetAgent(r.Context(), principal(r).OrgID, id)
	if err != nil {
		return agentNotFound(err)
	}
	v, err := h.withUsage(r.Context(), a)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

// AgentMe answers GET /v1/agents/me: the calling agent's own profile
// (created_by included). Users get 403 forbidden.
func (h *Handlers) AgentMe(w http.ResponseWriter, r *http.Request) error {
	p := principal(r)
	if p.Type != auth.PrincipalAgent {
		return problem.New(http.StatusForbidden, problem.TypeForbidden, "this route is for agents only")
	}
	auditlog.FromContext(r.Context()).SetResource("agent/" + p.ID)
	a, err := h.Agents.GetAgent(r.Context(), p.OrgID, p.ID)
	if err != nil {
		return agentNotFound(err)
	}
	v, err := h.withUsage(r.Context(), a)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

func toDirectoryEntry(a store.Agent) api.AgentDirectoryEntry {
	caps := []string{}
	if a.IntentsAPIEnabled {
		caps = append(caps, "intents")
	}
	for _, c := range []struct{ field, name string }{
		{"execution_intents_enabled", "execution_intents"}, {"message_signing_enabled", "message_signing"},
		{"cards_enabled", "cards"}, {"delegation_enabled", "delegation"}, {"memory_enabled", "memory"},
	} {
		if policy.GuardrailBool(a.Guardrails, c.field) {
			caps = append(caps, c.name)
		}
	}
	return api.AgentDirectoryEntry{ID: a.ID, Name: a.Name, Description: a.Description, Capabilities: caps, Status: a.Status}
}

// AgentDirectory answers GET /v1/agents/org-directory (any principal): the
// organization's agents by name, description, capabilities and status.
func (h *Handlers) AgentDirectory(w http.ResponseWriter, r *http.Request) error {
	limit, cursor, err := pageParams(r)
	if err != nil {
		return err
	}
	if err := cursorID(cursor); err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("agents/directory")
	as, err := h.Agents.ListAgents(r.Context(), principal(r).OrgID, cursor, limit+1)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, listPage(as, limit, toDirectoryEntry, func(a store.Agent) string { return a.ID }))
}

// UpdateAgent answers PATCH /v1/agents/{id} (human users): present fields
// change, null clears environment, scopes (derived again) or a guardrail.
// The agent's JWTs are revoked, since they carry the old claims.
func (h *Handlers) UpdateAgent(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id", "agent")
	if err != nil {
		return err
	}
	var body map[string]json.RawMessage
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in, err := parseAgentInput(body, false)
	if err != nil {
		return err
	}
	p := principal(r)
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("agent/" + id)
	a, err := h.Agents.UpdateAgent(r.Context(), p.OrgID, id, func(a *store.Agent) error {
		if in.Name != nil {
			a.Name = *in.Name
		}
		if in.Description != nil {
			a.Description = *in.Description
		}
		if in.IntentsAPIEnabled != nil {
			a.IntentsAPIEnabled = *in.IntentsAPIEnabled
		}
		if in.Environment != nil {
			a.Environment = *in.Environment
		}
		if in.ClearEnvironment {
			a.Environment = ""
		}
		if in.SetScopes {
			a.Scopes = in.Scopes
		}
		g, err := mergeGuardrails(a.Guardrails, in.Guardrails)
		a.Guardrails = g
		return err
	}, entry.Prepare(http.StatusOK))
	if err != nil {
		return agentNotFound(err)
	}
	h.agentRevoked(a)
	h.resealAfterChange(r, a.OrgID, a.ID)
	v, err := h.withUsage(r.Context(), a)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

// RotateAgentKey answers POST /v1/agents/{id}/rotate-key (human users): a
// new key, shown once; the old key and every JWT of the agent stop working.
func (h *Handlers) RotateAgentKey(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id", "agent")
	if err != nil {
		return err
	}
	var in api.AgentRotateKey
	if _, err := decodeOptionalJSON(r, &in); err != nil {
		return err
	}
	if in.APIKeyExpiresAt != nil && !in.APIKeyExpiresAt.After(time.Now()) {
		return badField("api_key_expires_at", "must be in the future")
	}
	key, hash, err := auth.NewOpaque(AgentKeyPrefix)
	if err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("agent/" + id)
	a, err := h.Agents.RotateAgentKey(r.Context(), principal(r).OrgID, id, hash, auth.LastFour(key), in.APIKeyExpiresAt,
		entry.Prepare(http.StatusOK))
	if err != nil {
		return agentNotFound(err)
	}
	h.agentRevoked(a)
	h.resealAfterChange(r, a.OrgID, a.ID)
	out := agentView(a)
	out["agent_id"], out["api_key"] = a.ID, key
	return writeJSON(w, http.StatusOK, out)
}

// DeleteAgent answers DELETE /v1/agents/{id} (human users): the agent
// becomes inactive, its policies are deleted and its JWTs stop working.
func (h *Handlers) DeleteAgent(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id", "agent")
	if err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("agent/" + id)
	a, changes, err := h.Agents.DeactivateAgent(r.Context(), principal(r).OrgID, id, entry.Prepare(http.StatusNoContent))
	if err != nil {
		return agentNotFound(err)
	}
	h.agentRevoked(a)
	for _, ch := range changes {
		h.sealPolicySet(r, ch)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// agentRevoked applies a stored revocation cutoff on this replica at once
// (the others learn it from the database notification).
func (h *Handlers) agentRevoked(a store.Agent) {
	if h.Verifier != nil && h.Verifier.Agents != nil && a.TokensValidAfter != nil {
		h.Verifier.Agents.Set(a.ID, *a.TokensValidAfter)
	}
}
