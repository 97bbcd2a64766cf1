package handlers

import (
	"errors"
	"net/http"
	"regexp"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// ChainFamilies are the chain families of the registry.
var ChainFamilies = map[string]bool{"evm": true, "bitcoin": true, "solana": true, "xrp": true, "cardano": true, "tron": true}

// chainSlugRE is the syntax of chain ids and aliases: never all digits, so
// that a numeric reference always means an EVM chain id.
var chainSlugRE = regexp.MustCompile(`^[a-z][a-z0-9-]{0,31}$`)

// maxChainAliases bounds the aliases of one chain.
const maxChainAliases = 16

// toChain renders c; the RPC URL (it may embed a provider key) only for
// platform administrators.
func toChain(c store.Chain, admin bool) api.Chain {
	out := api.Chain{ID: c.ID, Family: c.Family, Name: c.Name, Aliases: c.Aliases, ExplorerURL: c.ExplorerURL,
		IsTestnet: c.IsTestnet, IsEnabled: c.IsEnabled}
	if out.Aliases == nil {
		out.Aliases = []string{}
	}
	if c.ChainID > 0 {
		id := c.ChainID
		out.ChainID = &id
	}
	if admin {
		u := c.RPCURL
		out.RPCURL = &u
	}
	return out
}

func isPlatformAdmin(r *http.Request) bool {
	pr := principal(r).PlatformRole
	return pr == "admin" || pr == "super_admin"
}

// ListChains answers GET /v1/chains: the chain registry in id order.
func (h *Handlers) ListChains(w http.ResponseWriter, r *http.Request) error {
	auditlog.FromContext(r.Context()).SetResource("chains")
	cs, err := h.Admin.ListChains(r.Context())
	if err != nil {
		return err
	}
	admin := isPlatformAdmin(r)
	out := api.List[api.Chain]{Items: make([]api.Chain, 0, len(cs))}
	for _, c := range cs {
		out.Items = append(out.Items, toChain(c, admin))
	}
	return writeJSON(w, http.StatusOK, out)
}

// resolveChain finds a chain by id, alias or numeric chain id; 404 else.
func (h *Handlers) resolveChain(r *http.Request, ref string) (store.Chain, error) {
	if ref == "" || len(ref) > 64 {
		return store.Chain{}, problem.NotFound("chain")
	}
	return h.Admin.ResolveChain(r.Context(), ref)
}

// GetChain answers GET /v1/chains/{id_or_chain_id}: `ethereum`, `mainnet`,
// `1`, `base`, `8453`, … all resolve.
func (h *Handlers) GetChain(w http.ResponseWriter, r *http.Request) error {
	ref := r.PathValue("id_or_chain_id")
	auditlog.FromContext(r.Context()).SetResource("chains/" + ref)
	c, err := h.resolveChain(r, ref)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toChain(c, isPlatformAdmin(r)))
}

// AdminPutChain answers POST /v1/admin/chains: creates the chain (201) or
// replaces every field of the chain with that id (200). 409 when the chain
// id or a name is taken by another chain.
func (h *Handlers) AdminPutChain(w http.ResponseWriter, r *http.Request) error {
	var in api.ChainWrite
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	c, err := validateChain(in)
	if err != nil {
		return err
	}
	if err := h.checkOutboundURL("rpc_url", c.RPCURL); err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("chains/" + c.ID)
	status := http.StatusOK // the audited status: a create racing another one may record 200
	if _, err := h.Admin.ResolveChain(r.Context(), c.ID); errors.Is(err, store.ErrNotFound) {
		status = http.StatusCreated
	}
	out, created, err := h.Admin.UpsertChain(r.Context(), c, entry.Prepare(status))
	if errors.Is(err, store.ErrConflict) {
		return problem.New(http.StatusConflict, problem.TypeConflict, "the chain id or one of the names is used by another chain")
	}
	if err != nil {
		return err
	}
	h.forgetChains()
	status = http.StatusOK
	if created {
		status = http.StatusCreated
	}
	return writeJSON(w, status, toChain(out, true))
}
