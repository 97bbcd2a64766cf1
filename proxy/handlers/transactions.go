package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/intents"
)

// parseAPITx decodes one transaction request strictly and checks what an
// EVM transaction cannot carry.
func parseAPITx(raw json.RawMessage) (api.TransactionRequest, error) {
	var t api.TransactionRequest
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return api.TransactionRequest{}, problem.BadRequest(problem.TypeInvalidRequest, "malformed transaction: "+describeJSONError(err))
	}
	if dec.More() {
		return api.TransactionRequest{}, problem.BadRequest(problem.TypeInvalidRequest, "malformed transaction: trailing data")
	}
	return t, intents.CheckTransaction(&t)
}

// readAPITx reads a request body that is one transaction request.
func readAPITx(r *http.Request) (api.TransactionRequest, error) {
	body, err := readJSONBody(r)
	if err != nil {
		return api.TransactionRequest{}, err
	}
	return parseAPITx(body)
}

// signTransaction has the intents service sign (and in intents.Broadcast
// send) one transaction of the signing party for the request's caller.
func (h *Handlers) signTransaction(r *http.Request, party store.SigningParty, in api.TransactionRequest,
	mode intents.Mode) (intents.TxResult, error) {
	token, err := h.callerToken(r.Context())
	if err != nil {
		return intents.TxResult{}, err
	}
	res, err := h.Intents.SignTransaction(r.Context(), token, party, in, mode)
	return res, intentErr(err)
}

// SendTransaction answers POST /v1/agents/{id}/transactions: sign and
// broadcast.
func (h *Handlers) SendTransaction(w http.ResponseWriter, r *http.Request) error {
	return h.transaction(w, r, intents.Broadcast)
}

// SignTransactionOnly answers POST /v1/agents/{id}/transactions/sign: sign
// only; the signed transaction is returned and not sent.
func (h *Handlers) SignTransactionOnly(w http.ResponseWriter, r *http.Request) error {
	return h.transaction(w, r, intents.SignOnly)
}

func (h *Handlers) transaction(w http.ResponseWriter, r *http.Request, mode intents.Mode) error {
	party, err := h.signingParty(r)
	if err != nil {
		return err
	}
	in, err := readAPITx(r)
	if err != nil {
		return err
	}
	res, err := h.signTransaction(r, party, in, mode)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, intents.TransactionOf(res.Record, true))
}

// ListTransactions answers GET /v1/agents/{id}/transactions, newest first;
// signed_tx only with include_signed_tx=true.
func (h *Handlers) ListTransactions(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	limit, cursor, err := idPageParams(r)
	if err != nil {
		return err
	}
	withSigned, err := includeSigned(r)
	if err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("agent/" + a.ID + "/transactions")
	rows, err := h.Txs.ListAgentTxs(r.Context(), a.OrgID, a.ID, cursor, limit+1)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, listPage(rows, limit,
		func(t store.AgentTx) api.Transaction { return intents.TransactionOf(t, withSigned) },
		func(t store.AgentTx) string { return t.ID }))
}

// GetTransaction answers GET /v1/agents/{id}/transactions/{tx_id}.
func (h *Handlers) GetTransaction(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, "tx_id", "transaction")
	if err != nil {
		return err
	}
	withSigned, err := includeSigned(r)
	if err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("agent/" + a.ID + "/transactions/" + id)
	t, err := h.Txs.GetAgentTx(r.Context(), a.OrgID, a.ID, id)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, intents.TransactionOf(t, withSigned))
}

func includeSigned(r *http.Request) (bool, error) {
	switch r.URL.Query().Get("include_signed_tx") {
	case "", "false":
		return false, nil
	case "true":
		return true, nil
	}
	return false, problem.BadRequest(problem.TypeInvalidRequest, "include_signed_tx must be true or false")
}
