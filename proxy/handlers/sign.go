package handlers

import (
	"net/http"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/proxy/intents"
)

// SignIntent answers POST /v1/agents/{id}/sign (agents with the intents
// API): personal_sign (EIP-191), typed_data (EIP-712), transaction (EIP-2718
// types 0 to 4, signed only) or eip712_digest (alias digest; needs
// raw_signing_enabled). The enclave computes what it signs from the
// structured request and weighs the agent's guardrails first.
func (h *Handlers) SignIntent(w http.ResponseWriter, r *http.Request) error {
	party, err := h.signingParty(r)
	if err != nil {
		return err
	}
	var in api.SignIntentRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if err := intents.CheckSigningKeyPath(in.SigningKeyPath, party.Agent.ID); err != nil {
		return err
	}
	kind := in.IntentType
	if kind == "digest" {
		kind = wire.IntentDigest
	}
	if kind != wire.IntentTransaction {
		token, err := h.callerToken(r.Context())
		if err != nil {
			return err
		}
		out, err := h.Intents.SignMessage(r.Context(), token, party, kind, in)
		if err != nil {
			return intentErr(err)
		}
		return writeJSON(w, http.StatusOK, out)
	}
	if len(in.Transaction) == 0 {
		return problem.BadRequest(problem.TypeInvalidRequest, "transaction is required for intent_type transaction")
	}
	tx, err := parseAPITx(in.Transaction)
	if err != nil {
		return err
	}
	if tx.ChainID == nil {
		tx.ChainID = intents.FirstRaw(in.ChainID, in.Chain)
	}
	res, err := h.signTransaction(r, party, tx, intents.SignOnly)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, intents.SignedIntentOf(res))
}
