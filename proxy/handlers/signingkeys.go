package handlers

import (
	"errors"
	"net/http"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/intents"
	"github.com/opencustody/ocv/proxy/metering"
)

// CreateSigningKey answers POST /v1/agents/{id}/signing-keys: a new key for
// the chain, generated in the HSM (409 when the agent has one), for an
// owner or admin or the agent itself (members: 403).
func (h *Handlers) CreateSigningKey(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	if !mayManageKeys(principal(r), nil, false) {
		return errKeysAdminOnly
	}
	var in api.SigningKeyCreate
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Chain == nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "chain is required")
	}
	chain, err := h.Intents.KeyChain(r.Context(), *in.Chain)
	if err != nil {
		return err
	}
	if _, err := h.Keys.ActiveSigningKey(r.Context(), a.OrgID, a.ID, chain); err == nil {
		return problem.New(http.StatusConflict, problem.TypeConflict, "the agent already has a "+chain+" key; rotate it instead")
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err := h.checkResource(r, metering.ResourceWallets, h.Keys.CountSigningKeys); err != nil {
		return err
	}
	k, err := h.makeSigningKey(r, a, chain, nil, false)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, intents.SigningKeyOf(k))
}

// errKeysAdminOnly answers a member who would create, import, rotate or
// delete an agent's signing key: the enclave makes, imports and destroys
// key versions for humans only when they are an owner or admin.
var errKeysAdminOnly = problem.New(http.StatusForbidden, problem.TypeForbidden,
	"only owners and admins may create, import, rotate or delete an agent's signing key")

// mayManageKeys reports whether p may make a key version: an owner or
// admin, or (a new key only, never a rotation or an import) the agent
// itself, as the enclave decides too (enclave/internal/ops.SigningKey).
func mayManageKeys(p auth.Principal, private []byte, rotate bool) bool {
	if p.Type == auth.PrincipalAgent {
		return !rotate && len(private) == 0
	}
	return bypasses(p)
}

// makeSigningKey has the intents service make (or import) the agent's
// next key version for the request's caller; rotate retires the active
// version (owners and admins only: the retired versions are destroyed).
func (h *Handlers) makeSigningKey(r *http.Request, a store.Agent, chain string, private []byte, rotate bool) (store.SigningKey, error) {
	if !mayManageKeys(principal(r), private, rotate) {
		clear(private)
		return store.SigningKey{}, errKeysAdminOnly
	}
	token, err := h.callerToken(r.Context())
	if err != nil {
		clear(private)
		return store.SigningKey{}, err
	}
	return h.Intents.MakeSigningKey(r.Context(), token, a, chain, private, rotate)
}

// ListSigningKeys answers GET /v1/agents/{id}/signing-keys.
func (h *Handlers) ListSigningKeys(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("agent/" + a.ID + "/signing-keys")
	keys, err := h.Keys.ListSigningKeys(r.Context(), a.OrgID, a.ID)
	if err != nil {
		return err
	}
	out := api.List[api.SigningKey]{Items: make([]api.SigningKey, 0, len(keys))}
	for _, k := range keys {
		out.Items = append(out.Items, intents.SigningKeyOf(k))
	}
	return writeJSON(w, http.StatusOK, out)
}

// keyChainOf resolves the {chain} path parameter to its key's chain family
// and names the key as the request's audit resource.
func (h *Handlers) keyChainOf(r *http.Request, a store.Agent) (string, error) {
	chain, err := h.Intents.KeyChain(r.Context(), r.PathValue("chain"))
	if err != nil {
		return "", err
	}
	auditlog.FromContext(r.Context()).SetResource("agent/" + a.ID + "/signing-keys/" + chain)
	return chain, nil
}

// activeKey reads the agent's active key for the {chain} path parameter.
func (h *Handlers) activeKey(r *http.Request, a store.Agent) (store.SigningKey, error) {
	chain, err := h.keyChainOf(r, a)
	if err != nil {
		return store.SigningKey{}, err
	}
	return h.Keys.ActiveSigningKey(r.Context(), a.OrgID, a.ID, chain)
}

// GetSigningKey answers GET /v1/agents/{id}/signing-keys/{chain}.
func (h *Handlers) GetSigningKey(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	k, err := h.activeKey(r, a)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, intents.SigningKeyOf(k))
}

// RotateSigningKey answers POST /v1/agents/{id}/signing-keys/{chain}/rotate
// (owners and admins): a new version is made and becomes the active one;
// the old ones are destroyed in the HSM. Emits signing_key.rotated.
func (h *Handlers) RotateSigningKey(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	old, err := h.activeKey(r, a)
	if err != nil {
		return err
	}
	k, err := h.makeSigningKey(r, a, old.Chain, nil, true)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, intents.SigningKeyRotatedOf(k, old.Version))
}

// DeleteSigningKey answers DELETE /v1/agents/{id}/signing-keys/{chain}
// (owners and admins): every version of the key is destroyed in the HSM,
// then the key is recorded as deleted (a retry after a failure in between
// finds the key still active and finishes).
func (h *Handlers) DeleteSigningKey(w http.ResponseWriter, r *http.Request) error {
	if !bypasses(principal(r)) {
		return errKeysAdminOnly
	}
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	k, err := h.activeKey(r, a)
	if err != nil {
		return err
	}
	token, err := h.callerToken(r.Context())
	if err != nil {
		return err
	}
	if err := h.Intents.DestroyRetiredKeys(r.Context(), token, a, k.Chain, 0); err != nil {
		return err
	}
	chain := k.Chain
	k, err = h.Keys.DeleteSigningKey(r.Context(), a.OrgID, a.ID, chain, auditlog.FromContext(r.Context()).Prepare(http.StatusOK))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, intents.SigningKeyOf(k))
}
