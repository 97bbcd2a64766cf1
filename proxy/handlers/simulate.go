package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
)

// maxBundle bounds the transactions of one simulated bundle.
const maxBundle = 16

// SimulateTransaction answers POST /v1/agents/{id}/transactions/simulate:
// the transaction run against the chain's latest state from the agent's
// address, with its gas estimate, balance changes (native and ERC-20
// transfers) and decoded revert reason. Nothing is signed.
func (h *Handlers) SimulateTransaction(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	in, err := readAPITx(r)
	if err != nil {
		return err
	}
	out, err := h.Intents.Simulate(r.Context(), a, []api.TransactionRequest{in})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, out[0])
}

// SimulateBundle answers POST /v1/agents/{id}/transactions/simulate-bundle:
// up to 16 transactions ({"transactions": [...]} or a bare array) run in
// order on one chain, each seeing the state the ones before it left.
func (h *Handlers) SimulateBundle(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	body, err := readJSONBody(r)
	if err != nil {
		return err
	}
	var items []json.RawMessage
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '[' {
		err = json.Unmarshal(body, &items)
	} else {
		var wrapped struct {
			Transactions []json.RawMessage `json:"transactions"`
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.DisallowUnknownFields()
		err = dec.Decode(&wrapped)
		items = wrapped.Transactions
	}
	if err != nil || len(items) == 0 || len(items) > maxBundle {
		return problem.BadRequest(problem.TypeInvalidRequest, "the body must be 1 to 16 transactions")
	}
	txs := make([]api.TransactionRequest, 0, len(items))
	for _, raw := range items {
		t, err := parseAPITx(raw)
		if err != nil {
			return err
		}
		txs = append(txs, t)
	}
	out, err := h.Intents.Simulate(r.Context(), a, txs)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.SimulationBundleResult{Results: out})
}
