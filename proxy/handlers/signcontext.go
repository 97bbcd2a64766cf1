package handlers

import (
	"context"
	"errors"
	"net/http"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/intents"
)

// signingParty reads, in one query, the agent of the {id} path parameter
// (the caller itself), its active ethereum key and its transaction rules.
// A missing or inactive agent, or another agent's id, answers 404.
func (h *Handlers) signingParty(r *http.Request) (store.SigningParty, error) {
	id, err := pathID(r, "id", "agent")
	if err != nil {
		return store.SigningParty{}, err
	}
	p := principal(r)
	if p.Type == auth.PrincipalAgent && p.ID != id {
		return store.SigningParty{}, problem.NotFound("agent")
	}
	party, err := h.Keys.SigningPartyOf(r.Context(), p.OrgID, id, "ethereum")
	if err != nil {
		return store.SigningParty{}, err
	}
	if party.Agent.Status != store.AgentActive {
		return store.SigningParty{}, problem.NotFound("agent")
	}
	if party.Key.Version == 0 {
		return store.SigningParty{}, intents.ErrNoEthereumKey
	}
	return party, nil
}

// agentOf checks that the caller may act on agent id: a human of its
// organization (the agent must exist), or the agent itself. Anything else
// answers 404, like a missing agent.
func (h *Handlers) agentOf(r *http.Request) (store.Agent, error) {
	id, err := pathID(r, "id", "agent")
	if err != nil {
		return store.Agent{}, err
	}
	p := principal(r)
	if p.Type == auth.PrincipalAgent && p.ID != id {
		return store.Agent{}, problem.NotFound("agent")
	}
	a, err := h.Agents.GetAgent(r.Context(), p.OrgID, id)
	if err != nil {
		return store.Agent{}, err
	}
	if a.Status != store.AgentActive {
		return store.Agent{}, problem.NotFound("agent")
	}
	return a, nil
}

// errGuardrailsUnsealed answers a sign intent while the agent's guardrail
// set is not sealed (a change whose sealing failed).
var errGuardrailsUnsealed = problem.New(http.StatusConflict, "guardrails_unsealed",
	"the agent's guardrails changed and the enclave has not sealed them; PATCH /v1/agents/{id} (an empty object will do) to seal them again")

// intentErr is the answer to an error of the intents service.
func intentErr(err error) error {
	if errors.Is(err, intents.ErrGuardrailsUnsealed) {
		return errGuardrailsUnsealed
	}
	return err
}

// callerToken is the access token the enclave checks for the request's
// caller.
func (h *Handlers) callerToken(ctx context.Context) (string, error) {
	c, err := h.caller(ctx)
	return c.Token, err
}

// resealAfterChange seals the agent's guardrails after a change made by
// the request's human caller; failures leave the agent unable to sign
// (fail closed) and are not the request's failure.
func (h *Handlers) resealAfterChange(r *http.Request, orgID, agentID string) {
	token, err := h.callerToken(r.Context())
	if err != nil {
		return
	}
	_ = h.Intents.SealAgentGuardrails(context.WithoutCancel(r.Context()), orgID, agentID, token)
	h.sealAgentRecord(r, orgID, agentID, token)
}

// forgetChains drops the intents service's cached chains (after a registry
// change on this replica).
func (h *Handlers) forgetChains() { h.Intents.ForgetChains() }
