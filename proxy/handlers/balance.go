package handlers

import (
	"net/http"
)

// SigningKeyBalance answers GET /v1/agents/{id}/signing-keys/{chain}/balance
// ?tokens=0x..,0x..: the native balance of the key's address on the chain
// and the balances of the named ERC-20 tokens (EVM chains).
func (h *Handlers) SigningKeyBalance(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	out, err := h.Intents.Balance(r.Context(), a, r.PathValue("chain"), r.URL.Query().Get("tokens"))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out)
}
