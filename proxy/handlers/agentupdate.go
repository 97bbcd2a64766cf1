package handlers

import (
	"encoding/json"
	"net/http"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

// UpdateAgent answers PATCH /v1/agents/{id} (human users): present fields
// change, null clears environment, scopes (derived again) or a guardrail.
// The agent's JWTs are revoked, since they carry the old claims (in the
// enclave first: agentCutoffFirst).
func (h *Handlers) UpdateAgent(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id", "agent")
	if err != nil {
		return err
	}
	var body map[string]json.RawMessage
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in, err := parseAgentInput(body, false, h.now())
	if err != nil {
		return err
	}
	if err := h.agentCutoffFirst(r, id, 0); err != nil {
		return err
	}
	p := principal(r)
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("agent/" + id)
	a, err := h.Agents.UpdateAgent(r.Context(), p.OrgID, id, func(a *store.Agent) error {
		in.applyFields(a)
		g, err := mergeGuardrails(a.Guardrails, in.Guardrails)
		a.Guardrails = g
		return err
	}, entry.Prepare(http.StatusOK))
	if err != nil {
		return err
	}
	h.agentChanged(r, a)
	return h.writeAgentUsage(w, r, a)
}

// RotateAgentKey answers POST /v1/agents/{id}/rotate-key (human users): a
// new key, shown once; the old key and every JWT of the agent stop working
// (in the enclave first: agentCutoffFirst).
func (h *Handlers) RotateAgentKey(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id", "agent")
	if err != nil {
		return err
	}
	var in api.AgentRotateKey
	if _, err := decodeOptionalJSON(r, &in); err != nil {
		return err
	}
	if in.APIKeyExpiresAt != nil && !in.APIKeyExpiresAt.After(h.now()) {
		return badField("api_key_expires_at", "must be in the future")
	}
	if err := h.agentCutoffFirst(r, id, 0); err != nil {
		return err
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
		return err
	}
	h.agentChanged(r, a)
	return writeJSON(w, http.StatusOK, agentCreatedView(a, key))
}

// DeleteAgent answers DELETE /v1/agents/{id} (human users): the agent
// becomes inactive, its policies are deleted and its JWTs stop working,
// for ever in the enclave (agentCutoffFirst).
func (h *Handlers) DeleteAgent(w http.ResponseWriter, r *http.Request) error {
	id, entry, err := auditedID(r, "id", "agent", "agent/")
	if err != nil {
		return err
	}
	if err := h.agentCutoffFirst(r, id, wire.CutoffDelete); err != nil {
		return err
	}
	a, changes, err := h.Agents.DeactivateAgent(r.Context(), principal(r).OrgID, id, entry.Prepare(http.StatusNoContent))
	if err != nil {
		return err
	}
	h.agentRevoked(a)
	h.resealAfterChange(r, a.OrgID, a.ID) // its sealed record says inactive
	for _, ch := range changes {
		h.sealPolicySet(r, ch)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// agentCutoffFirst checks that the caller (an owner or admin: as for
// every change of an agent) may change agent id of its organization and
// has the enclave cut off the agent's tokens before the change's
// transaction starts: an enclave refusal or outage fails the request with
// nothing changed, a retry converges, and the cut-off the database then
// records (which new tokens are stamped with) is never before the
// enclave's (enclave/internal/ops.CutoffMargin).
func (h *Handlers) agentCutoffFirst(r *http.Request, id string, flags uint32) error {
	if err := orgAdmin(r, "change agents"); err != nil {
		return err
	}
	orgID := principal(r).OrgID
	if _, err := h.Agents.GetAgent(r.Context(), orgID, id); err != nil {
		return err
	}
	return h.callerCutoff(r, orgID, id, wire.CutoffAgent|flags)
}

// agentChanged applies the revocation of a's JWTs on this replica and has
// its guardrails sealed again, after a change of its record or key.
func (h *Handlers) agentChanged(r *http.Request, a store.Agent) {
	h.agentRevoked(a)
	h.resealAfterChange(r, a.OrgID, a.ID)
}

// agentRevoked applies a stored revocation cutoff on this replica at once
// (the others learn it from the database notification).
func (h *Handlers) agentRevoked(a store.Agent) {
	if h.Verifier != nil && h.Verifier.Agents != nil && a.TokensValidAfter != nil {
		h.Verifier.Agents.Set(a.ID, *a.TokensValidAfter)
	}
}
