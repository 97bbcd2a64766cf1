package handlers

import (
	"net"
	"net/url"
	"strings"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/internal/store"
)

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
