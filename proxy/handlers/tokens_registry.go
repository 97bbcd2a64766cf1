package handlers

import (
	"errors"
	"net/http"
	"regexp"
	"strings"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
)

var (
	tokenSymbolRE = regexp.MustCompile(`^[A-Za-z0-9.$_-]{1,16}$`)
	// nonEVMAddressRE covers the base58, bech32 and hex forms of the other
	// families' token identifiers (mints, issuers, policy ids).
	nonEVMAddressRE = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)
)

func toKnownToken(k store.KnownToken) api.KnownToken {
	return api.KnownToken{Chain: k.Chain, ContractAddress: k.ContractAddress, Symbol: k.Symbol, Decimals: k.Decimals, Name: k.Name}
}

// tokenAddress checks an address for the chain's family and returns its
// stored form: lowercase on EVM chains, as given elsewhere.
func tokenAddress(family, s string) (string, error) {
	if family == "evm" {
		if err := checkEVMAddress("contract_address", s); err != nil {
			return "", err
		}
		return strings.ToLower(s), nil
	}
	if !nonEVMAddressRE.MatchString(s) {
		return "", badField("contract_address", "must be 1 to 128 characters of letters, digits and . _ : -")
	}
	return s, nil
}

// listTokens answers with the registry, of the chain ref when not empty.
func (h *Handlers) listTokens(w http.ResponseWriter, r *http.Request, ref string) error {
	chain := ""
	if ref != "" {
		c, err := h.resolveChain(r, ref)
		if err != nil {
			return err
		}
		chain = c.ID
	}
	ks, err := h.Admin.ListTokens(r.Context(), chain)
	if err != nil {
		return err
	}
	out := api.List[api.KnownToken]{Items: make([]api.KnownToken, 0, len(ks))}
	for _, k := range ks {
		out.Items = append(out.Items, toKnownToken(k))
	}
	return writeJSON(w, http.StatusOK, out)
}

// ListTokens answers GET /v1/tokens[?chain=]: the known-token registry,
// of one chain (id, alias or chain id) when chain is given.
func (h *Handlers) ListTokens(w http.ResponseWriter, r *http.Request) error {
	auditlog.FromContext(r.Context()).SetResource("tokens")
	return h.listTokens(w, r, r.URL.Query().Get("chain"))
}

// ListChainTokens answers GET /v1/chains/{chain}/tokens.
func (h *Handlers) ListChainTokens(w http.ResponseWriter, r *http.Request) error {
	ref := r.PathValue("chain")
	auditlog.FromContext(r.Context()).SetResource("chains/" + ref + "/tokens")
	return h.listTokens(w, r, ref)
}

// AdminCreateToken answers POST /v1/admin/tokens: registers a token (201);
// 409 when the chain already has one at that address.
func (h *Handlers) AdminCreateToken(w http.ResponseWriter, r *http.Request) error {
	var in api.KnownTokenWrite
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	c, err := h.Admin.ResolveChain(r.Context(), in.Chain)
	if errors.Is(err, store.ErrNotFound) || in.Chain == "" {
		return badField("chain", "must name a registered chain")
	}
	if err != nil {
		return err
	}
	k := store.KnownToken{Chain: c.ID, Symbol: in.Symbol, Name: strings.TrimSpace(in.Name)}
	if k.ContractAddress, err = tokenAddress(c.Family, in.ContractAddress); err != nil {
		return err
	}
	if !tokenSymbolRE.MatchString(k.Symbol) {
		return badField("symbol", "must be 1 to 16 characters of letters, digits and . $ _ -")
	}
	if in.Decimals == nil || *in.Decimals < 0 || *in.Decimals > 36 {
		return badField("decimals", "is required and must be an integer from 0 to 36")
	}
	k.Decimals = *in.Decimals
	if len(k.Name) > 64 {
		return badField("name", "must be at most 64 characters")
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("tokens/" + k.Chain + "/" + k.ContractAddress)
	out, err := h.Admin.CreateToken(r.Context(), k, entry.Prepare(http.StatusCreated))
	if errors.Is(err, store.ErrConflict) {
		return problem.New(http.StatusConflict, problem.TypeConflict, "the chain already has a token at this address")
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusCreated, toKnownToken(out))
}

// AdminDeleteToken answers DELETE /v1/admin/tokens/{chain}/{contract_address}.
func (h *Handlers) AdminDeleteToken(w http.ResponseWriter, r *http.Request) error {
	c, err := h.resolveChain(r, r.PathValue("chain"))
	if err != nil {
		return err
	}
	addr, err := tokenAddress(c.Family, r.PathValue("contract_address"))
	if err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("tokens/" + c.ID + "/" + addr)
	if err := h.Admin.DeleteToken(r.Context(), c.ID, addr, entry.Prepare(http.StatusNoContent)); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
