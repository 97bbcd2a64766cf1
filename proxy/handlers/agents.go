package handlers

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/metering"
)

// AgentKeyPrefix starts every agent API key.
const AgentKeyPrefix = "ocv_"

// CreateAgent answers POST /v1/agents (owners and admins; the enclave
// seals an agent's record only for them): the agent, its id as agent_id
// and its API key, shown once; only the key's SHA-256 is stored.
func (h *Handlers) CreateAgent(w http.ResponseWriter, r *http.Request) error {
	if err := orgAdmin(r, "create agents"); err != nil {
		return err
	}
	var body map[string]json.RawMessage
	if err := decodeJSON(r, &body); err != nil {
		return err
	}
	in, err := parseAgentInput(body, true, h.now())
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
	a := store.Agent{OrgID: p.OrgID, ID: newID(), Guardrails: guardrails, KeyHash: hash,
		KeyLastFour: auth.LastFour(key), APIKeyExpiresAt: in.APIKeyExpiresAt, CreatedBy: p.ID}
	in.applyFields(&a)
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("agent/" + a.ID)
	a, err = h.Agents.CreateAgent(r.Context(), a, entry.Prepare(http.StatusCreated))
	if err != nil {
		return err
	}
	h.resealAfterChange(r, a.OrgID, a.ID)
	return writeJSON(w, http.StatusCreated, agentCreatedView(a, key))
}

// listAgents answers a page of the organization's agents, inactive ones
// included, each shown by view.
func listAgents[T any](h *Handlers, w http.ResponseWriter, r *http.Request, resource string, view func(store.Agent) T) error {
	orgID := principal(r).OrgID
	return listByID(w, r, resource, func(ctx context.Context, after string, limit int) ([]store.Agent, error) {
		return h.Agents.ListAgents(ctx, orgID, after, limit)
	}, view, func(a store.Agent) string { return a.ID })
}

// ListAgents answers GET /v1/agents (human users), inactive agents included.
func (h *Handlers) ListAgents(w http.ResponseWriter, r *http.Request) error {
	return listAgents(h, w, r, "agents", agentView)
}

// AgentDirectory answers GET /v1/agents/org-directory (any principal): the
// organization's agents by name, description, capabilities and status.
func (h *Handlers) AgentDirectory(w http.ResponseWriter, r *http.Request) error {
	return listAgents(h, w, r, "agents/directory", toDirectoryEntry)
}

// writeAgent answers with the agent id of orgID and its usage of the day.
func (h *Handlers) writeAgent(w http.ResponseWriter, r *http.Request, orgID, id string) error {
	auditlog.FromContext(r.Context()).SetResource("agent/" + id)
	a, err := h.Agents.GetAgent(r.Context(), orgID, id)
	if err != nil {
		return err
	}
	return h.writeAgentUsage(w, r, a)
}

// writeAgentUsage answers 200 with a and its usage of the day.
func (h *Handlers) writeAgentUsage(w http.ResponseWriter, r *http.Request, a store.Agent) error {
	v, err := h.withUsage(r.Context(), a)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, v)
}

// GetAgent answers GET /v1/agents/{id} (human users).
func (h *Handlers) GetAgent(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id", "agent")
	if err != nil {
		return err
	}
	return h.writeAgent(w, r, principal(r).OrgID, id)
}

// AgentMe answers GET /v1/agents/me: the calling agent's own profile
// (created_by included). Users get 403 forbidden.
func (h *Handlers) AgentMe(w http.ResponseWriter, r *http.Request) error {
	p := principal(r)
	if p.Type != auth.PrincipalAgent {
		return problem.New(http.StatusForbidden, problem.TypeForbidden, "this route is for agents only")
	}
	return h.writeAgent(w, r, p.OrgID, p.ID)
}
