package handlers

import (
	"errors"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strings"

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

// checkNodeURL accepts an https URL, or http to a loopback host only.
func checkNodeURL(field, s string) error {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || len(s) > 2048 {
		return badField(field, "must be an absolute https URL without credentials")
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		host := u.Hostname()
		if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
			return nil
		}
	}
	return badField(field, "must use https (http only for localhost)")
}

// chainSlug derives a chain id from a display name ("Base Sepolia" →
// "base-sepolia") for requests that name no id.
func chainSlug(name string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(name)) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '_':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// validateChain checks a chain request. id defaults to the slug of name and
// family to evm when chain_id is given (the catalogue's request names only
// name and chain_id).
func validateChain(in api.ChainWrite) (store.Chain, error) {
	if in.ID == "" {
		in.ID = chainSlug(in.Name)
	}
	if in.Family == "" && in.ChainID != nil {
		in.Family = "evm"
	}
	c := store.Chain{ID: in.ID, Family: in.Family, Name: strings.TrimSpace(in.Name), RPCURL: in.RPCURL,
		ExplorerURL: in.ExplorerURL, IsTestnet: in.IsTestnet, IsEnabled: in.IsEnabled == nil || *in.IsEnabled}
	if !chainSlugRE.MatchString(c.ID) {
		return c, badField("id", "must be 1 to 32 characters of a-z, 0-9 and '-', starting with a letter")
	}
	if !ChainFamilies[c.Family] {
		return c, badField("family", "must be one of evm, bitcoin, solana, xrp, cardano, tron")
	}
	switch {
	case c.Family == "evm" && (in.ChainID == nil || *in.ChainID <= 0):
		return c, badField("chain_id", "is required for evm chains and must be positive")
	case c.Family != "evm" && in.ChainID != nil:
		return c, badField("chain_id", "is only for evm chains")
	case in.ChainID != nil:
		c.ChainID = *in.ChainID
	}
	if c.Name == "" || len(c.Name) > 64 {
		return c, badField("name", "must be 1 to 64 characters")
	}
	if len(in.Aliases) > maxChainAliases {
		return c, badField("aliases", "may hold at most 16 names")
	}
	seen := map[string]bool{c.ID: true}
	c.Aliases = []string{}
	for _, a := range in.Aliases {
		if !chainSlugRE.MatchString(a) || seen[a] {
			return c, badField("aliases", "must be distinct names like id, none equal to id")
		}
		seen[a] = true
		c.Aliases = append(c.Aliases, a)
	}
	if err := checkNodeURL("rpc_url", c.RPCURL); err != nil {
		return c, err
	}
	if c.ExplorerURL != "" {
		if err := checkNodeURL("explorer_url", c.ExplorerURL); err != nil {
			return c, err
		}
	}
	return c, nil
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
	c, err := h.Admin.ResolveChain(r.Context(), ref)
	if errors.Is(err, store.ErrNotFound) {
		return store.Chain{}, problem.NotFound("chain")
	}
	return c, err
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
