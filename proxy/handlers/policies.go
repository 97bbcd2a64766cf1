package handlers

import (
	"context"
	"errors"
	"net/http"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/policy"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// policyAdmin refuses members (and agents, though routes keep them out):
// only owners and admins manage policies.
func policyAdmin(r *http.Request) error {
	if !policy.Role(principal(r).Role).BypassesPolicies() {
		return problem.New(http.StatusForbidden, problem.TypeForbidden, "only owners and admins may manage policies")
	}
	return nil
}

func policyWriteError(err error) error {
	switch {
	case errors.Is(err, store.ErrUnknownPrincipal):
		return badField("principal_id", "names no member (principal_type user) or active agent (agent) of the organization")
	case errors.Is(err, store.ErrLimit):
		return problem.BadRequest(problem.TypeInvalidRequest, "the vault already has 1000 policies, the maximum")
	case errors.Is(err, store.ErrNotFound):
		return problem.NotFound("vault or policy")
	}
	return err
}

// CreatePolicy answers POST /v1/vaults/{vault_id}/policies.
func (h *Handlers) CreatePolicy(w http.ResponseWriter, r *http.Request) error {
	return h.writePolicy(w, r, false)
}

// UpdatePolicy answers PUT /v1/vaults/{vault_id}/policies/{policy_id}: the
// body replaces every field.
func (h *Handlers) UpdatePolicy(w http.ResponseWriter, r *http.Request) error {
	return h.writePolicy(w, r, true)
}

func (h *Handlers) writePolicy(w http.ResponseWriter, r *http.Request, update bool) error {
	vaultID, err := pathID(r, "vault_id", "vault")
	if err != nil {
		return err
	}
	id := newID()
	if update {
		if id, err = pathID(r, "policy_id", "policy"); err != nil {
			return err
		}
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("vault/" + vaultID + "/policy/" + id)
	if err := policyAdmin(r); err != nil {
		return err
	}
	var in api.PolicyWrite
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	p, err := policyRule(in, id, h.now())
	if err != nil {
		return err
	}
	p.OrgID, p.VaultID = principal(r).OrgID, vaultID
	status := http.StatusCreated
	write := h.Policies.CreatePolicy
	if update {
		status, write = http.StatusOK, h.Policies.UpdatePolicy
	}
	out, ch, err := write(r.Context(), p, entry.Prepare(status))
	if err != nil {
		return policyWriteError(err)
	}
	h.policiesChanged(r, ch)
	return writeJSON(w, status, toPolicy(out))
}

// ListPolicies answers GET /v1/vaults/{vault_id}/policies.
func (h *Handlers) ListPolicies(w http.ResponseWriter, r *http.Request) error {
	vaultID, err := pathID(r, "vault_id", "vault")
	if err != nil {
		return err
	}
	limit, cursor, err := idPageParams(r)
	if err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("vault/" + vaultID + "/policies")
	if err := policyAdmin(r); err != nil {
		return err
	}
	orgID := principal(r).OrgID
	if _, err := h.Vaults.GetVault(r.Context(), orgID, vaultID); err != nil {
		return err
	}
	ps, err := h.Policies.ListPolicies(r.Context(), orgID, vaultID, cursor, limit+1)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, listPage(ps, limit, toPolicy, func(p store.Policy) string { return p.Rule.ID }))
}

// DeletePolicy answers DELETE /v1/vaults/{vault_id}/policies/{policy_id}.
func (h *Handlers) DeletePolicy(w http.ResponseWriter, r *http.Request) error {
	vaultID, err := pathID(r, "vault_id", "vault")
	if err != nil {
		return err
	}
	id, err := pathID(r, "policy_id", "policy")
	if err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("vault/" + vaultID + "/policy/" + id)
	if err := policyAdmin(r); err != nil {
		return err
	}
	ch, err := h.Policies.DeletePolicy(r.Context(), principal(r).OrgID, vaultID, id, entry.Prepare(http.StatusNoContent))
	if err != nil {
		return policyWriteError(err)
	}
	h.policiesChanged(r, ch)
	return noContent(w, nil)
}

// policiesChanged applies the agents' revocations on this replica at once
// and has the enclave seal the vault's new policy set with the changer's
// token, storing the MAC. The change is committed already: when sealing
// fails the stored set stays without a MAC, so the enclave refuses members
// and agents on the vault (fail closed) until the next change seals it.
func (h *Handlers) policiesChanged(r *http.Request, ch store.PolicyChange) {
	for _, a := range ch.Revoked {
		h.agentRevoked(a)
	}
	h.sealPolicySet(r, ch)
	// The agents' tx_conditions rules may have changed with the policies.
	for _, a := range ch.Revoked {
		if a.Status == store.AgentActive {
			h.resealAfterChange(r, a.OrgID, a.ID)
		}
	}
}

// sealPolicySet has the enclave MAC a changed policy set for the caller
// and stores the MAC. The enclave seals only for owners and admins; a
// member's change (deleting an agent) leaves the set unsealed, so members
// and agents are refused on that vault until an owner or admin changes a
// policy of it (fail closed).
func (h *Handlers) sealPolicySet(r *http.Request, ch store.PolicyChange) {
	c, err := h.caller(r.Context())
	if err != nil {
		return
	}
	h.sealPolicySetFor(r.Context(), principal(r).OrgID, c.Token, ch)
}

// sealPolicySetFor has the enclave MAC a changed policy set of orgID for
// the changer whose access token is token, and stores the MAC (a refusal
// leaves the set unsealed: fail closed, as above).
func (h *Handlers) sealPolicySetFor(ctx context.Context, orgID, token string, ch store.PolicyChange) {
	mac, err := h.Enclave.SealPolicySet(ctx, wire.SealPolicySetRequest{OrgID: orgID, VaultID: ch.VaultID,
		Version: ch.Version, Set: ch.Set, ChangerToken: token})
	if err != nil {
		return
	}
	_, _ = h.Policies.SetPolicySetMAC(ctx, orgID, ch.VaultID, ch.Version, mac)
}
