package handlers

import (
	"encoding/hex"
	"errors"
	"net/http"
	"strings"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/metering"
)

// maxKeyVersionTries bounds the retries of a key version another request
// (or an earlier failed attempt) already made in the HSM.
const maxKeyVersionTries = 3

// signingKeyView is a signing key as the API shows it: public data only.
func signingKeyView(k store.SigningKey) map[string]any {
	pub := hex.EncodeToString(k.PublicKey)
	if k.Curve == "secp256k1" {
		pub = "0x" + pub
	}
	return map[string]any{
		"agent_id": k.AgentID, "chain": k.Chain, "address": k.Address, "public_key": pub, "curve": k.Curve,
		"version": k.Version, "key_version": k.Version, "imported": k.Imported, "status": k.Status,
		"created_at": rfc3339(k.CreatedAt),
	}
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
		return store.Agent{}, agentNotFound(err)
	}
	if a.Status != store.AgentActive {
		return store.Agent{}, problem.NotFound("agent")
	}
	return a, nil
}

// keyChain resolves a chain reference (a name, alias or EVM chain id) to
// the chain family whose key signs for it: every EVM chain uses the
// agent's "ethereum" key.
func (h *Handlers) keyChain(r *http.Request, ref string) (string, error) {
	ref = strings.ToLower(strings.TrimSpace(ref))
	if _, ok := addressDerivers[ref]; ok {
		return ref, nil
	}
	c, err := h.cachedChain(r.Context(), ref)
	if errors.Is(err, store.ErrNotFound) {
		return "", problem.BadRequest(problem.TypeUnsupportedChain, "unknown chain; see GET /v1/chains")
	}
	if err != nil {
		return "", err
	}
	if c.Family == "evm" {
		return "ethereum", nil
	}
	return c.Family, nil
}

type createSigningKeyRequest struct {
	Chain *string `json:"chain"`
}

// CreateSigningKey answers POST /v1/agents/{id}/signing-keys: a new key for
// the chain, generated in the HSM (409 when the agent has one).
func (h *Handlers) CreateSigningKey(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	var in createSigningKeyRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Chain == nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "chain is required")
	}
	chain, err := h.keyChain(r, *in.Chain)
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
	return writeJSON(w, http.StatusCreated, signingKeyView(k))
}

// makeSigningKey has the enclave make (or import) the next key version and
// records it; rotate retires the active version.
func (h *Handlers) makeSigningKey(r *http.Request, a store.Agent, chain string, private []byte, rotate bool) (store.SigningKey, error) {
	ctx := r.Context()
	c, err := h.caller(ctx)
	if err != nil {
		return store.SigningKey{}, err
	}
	v, err := h.Keys.NextSigningKeyVersion(ctx, a.OrgID, a.ID, chain)
	if err != nil {
		return store.SigningKey{}, err
	}
	var resp wire.SigningKeyResponse
	for try := 0; ; try++ {
		resp, err = h.Enclave.SigningKey(ctx, wire.SigningKeyRequest{Token: c.Token, OrgID: a.OrgID, AgentID: a.ID,
			Chain: chain, Version: uint32(v), Private: private})
		if errors.Is(err, wire.ErrConflict) && try < maxKeyVersionTries {
			v++ // a version made in the HSM but never recorded
			continue
		}
		break
	}
	clear(private)
	switch {
	case errors.Is(err, wire.ErrBadRequest) && private != nil:
		return store.SigningKey{}, problem.BadRequest(problem.TypeInvalidRequest, "the private key is not valid for "+chain)
	case err != nil:
		return store.SigningKey{}, err
	}
	addr, err := deriveAddress(chain, resp.PublicKey)
	if err != nil {
		return store.SigningKey{}, err
	}
	entry := auditlog.FromContext(ctx)
	entry.SetResource("agent/" + a.ID + "/signing-keys/" + chain)
	status := http.StatusCreated
	if rotate || private != nil {
		status = http.StatusOK
	}
	k, err := h.Keys.AddSigningKey(ctx, store.SigningKey{OrgID: a.OrgID, AgentID: a.ID, Chain: chain, Version: v,
		Curve: resp.Curve, PublicKey: resp.PublicKey, Address: addr, Imported: private != nil}, rotate, entry.Prepare(status))
	if err != nil {
		return store.SigningKey{}, err
	}
	return k, nil
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
	out := api.List[map[string]any]{Items: make([]map[string]any, 0, len(keys))}
	for _, k := range keys {
		out.Items = append(out.Items, signingKeyView(k))
	}
	return writeJSON(w, http.StatusOK, out)
}

// activeKey reads the agent's active key for the {chain} path parameter.
func (h *Handlers) activeKey(r *http.Request, a store.Agent) (store.SigningKey, error) {
	chain, err := h.keyChain(r, r.PathValue("chain"))
	if err != nil {
		return store.SigningKey{}, err
	}
	auditlog.FromContext(r.Context()).SetResource("agent/" + a.ID + "/signing-keys/" + chain)
	k, err := h.Keys.ActiveSigningKey(r.Context(), a.OrgID, a.ID, chain)
	if errors.Is(err, store.ErrNotFound) {
		return store.SigningKey{}, problem.NotFound("signing key")
	}
	return k, err
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
	return writeJSON(w, http.StatusOK, signingKeyView(k))
}

// RotateSigningKey answers POST /v1/agents/{id}/signing-keys/{chain}/rotate
// (humans): a new version is made and becomes the active one; the old one
// stops signing. Emits signing_key.rotated.
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
	out := signingKeyView(k)
	out["previous_version"] = old.Version
	return writeJSON(w, http.StatusOK, out)
}

// DeleteSigningKey answers DELETE /v1/agents/{id}/signing-keys/{chain}
// (humans): the key is deactivated and signs nothing more.
func (h *Handlers) DeleteSigningKey(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	chain, err := h.keyChain(r, r.PathValue("chain"))
	if err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("agent/" + a.ID + "/signing-keys/" + chain)
	k, err := h.Keys.DeleteSigningKey(r.Context(), a.OrgID, a.ID, chain, entry.Prepare(http.StatusOK))
	if errors.Is(err, store.ErrNotFound) {
		return problem.NotFound("signing key")
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, signingKeyView(k))
}
