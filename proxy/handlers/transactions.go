package handlers

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"math/big"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/chainrpc"
)

// txMode says what happens after a transaction is signed.
type txMode int

const (
	txSignOnly txMode = iota
	txBroadcast
)

// gasHeadroom is the margin added to an estimate (in percent) when the
// request names no gas limit.
const gasHeadroom = 20

// txResult is a signed transaction and its record.
type txResult struct {
	rec  store.AgentTx
	resp wire.SignIntentResponse
}

// signView is the answer to a transaction sign intent.
func (t txResult) signView() map[string]any {
	out := transactionView(t.rec, true)
	out["intent_type"] = wire.IntentTransaction
	out["hash"] = hexutil.Encode(t.resp.Digest)
	if len(t.resp.Signature) == 65 {
		out["signature"] = hexutil.Encode(t.resp.Signature)
	}
	return out
}

// transactionView is a transaction record as the API shows it; signed_tx
// only when asked for.
func transactionView(t store.AgentTx, withSigned bool) map[string]any {
	value, _ := new(big.Int).SetString(t.Value, 10)
	if value == nil {
		value = new(big.Int)
	}
	out := map[string]any{
		"id": t.ID, "agent_id": t.AgentID, "chain": t.Chain, "chain_id": t.ChainID, "key_version": t.KeyVersion,
		"type": t.TxType, "from": t.From, "to": t.To, "value": hexutil.EncodeBig(value), "nonce": t.Nonce,
		"tx_hash": t.TxHash, "status": t.Status, "created_at": rfc3339(t.CreatedAt), "updated_at": rfc3339(t.UpdatedAt),
	}
	if t.TokenAddress != "" {
		out["token_address"], out["token_amount"] = t.TokenAddress, t.TokenAmount
	}
	if t.Error != "" {
		out["error"] = t.Error
	}
	if t.BlockNumber != nil {
		out["block_number"] = *t.BlockNumber
	}
	if t.GasUsed != nil {
		out["gas_used"] = *t.GasUsed
	}
	if withSigned {
		out["signed_tx"] = "0x" + hex.EncodeToString(t.SignedTx)
	}
	return out
}

// chainClient is the RPC client of chain's node; 503 chain_unavailable
// when none is configured. The URL never reaches the caller.
func (h *Handlers) chainClient(ctx context.Context, c store.Chain) (*chainrpc.Client, error) {
	if h.Chains == nil || c.RPCURL == "" {
		return nil, errChainUnavailable
	}
	cl, err := h.Chains.Client(ctx, c.RPCURL)
	if err != nil {
		return nil, errChainUnavailable
	}
	return cl, nil
}

var errChainUnavailable = problem.New(http.StatusServiceUnavailable, problem.TypeChainUnavailable,
	"the chain's RPC node is not configured or did not answer")

// rpcProblem maps a chain RPC failure to its answer.
func rpcProblem(err error) error {
	var rev *chainrpc.RevertError
	if errors.As(err, &rev) {
		return problem.New(http.StatusUnprocessableEntity, problem.TypeSimulationReverted, "the transaction reverts: "+rev.Reason)
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	return errChainUnavailable
}

// signTransaction prepares, guards, signs and (in txBroadcast) sends one
// EVM transaction for agent a. Nothing is counted or reserved before a
// simulate_first revert; a refusal or failure after the reservations gives
// them back.
func (h *Handlers) signTransaction(r *http.Request, party store.SigningParty, in apiTx, mode txMode) (res txResult, err error) {
	ctx := r.Context()
	a, key := party.Agent, party.Key
	if err := checkSigningKeyPath(in.SigningKeyPath, a.ID); err != nil {
		return txResult{}, err
	}
	if len(in.ChainID) == 0 && len(in.Chain) == 0 {
		return txResult{}, problem.BadRequest(problem.TypeInvalidRequest, "chain_id is required")
	}
	ref, err := chainRef(firstRaw(in.ChainID, in.Chain))
	if err != nil {
		return txResult{}, err
	}
	chain, err := h.evmChain(r, ref)
	if err != nil {
		return txResult{}, err
	}
	g, err := guardrailsOf(a)
	if err != nil {
		return txResult{}, err
	}
	from := common.HexToAddress(key.Address)
	p, err := in.plan(uint64(chain.ChainID), func(token string) (int, bool) {
		k, err := h.Keys.KnownTokenOf(ctx, chain.ID, token)
		return k.Decimals, err == nil
	})
	if err != nil {
		return txResult{}, err
	}
	auditlog.FromContext(ctx).SetResource("agent/" + a.ID + "/transactions")

	var cl *chainrpc.Client
	if mode == txBroadcast || in.SimulateFirst || in.Nonce == nil || in.Gas == nil || !in.hasFees() {
		if cl, err = h.chainClient(ctx, chain); err != nil {
			return txResult{}, err
		}
	}
	msg := callMsg(from, p)
	if in.SimulateFirst {
		if _, err := cl.Call(ctx, msg); err != nil {
			return txResult{}, rpcProblem(err)
		}
	}
	if !in.hasFees() {
		if err := fillFees(ctx, cl, &p.req); err != nil {
			return txResult{}, err
		}
	}
	if p.req.Gas == nil {
		est, err := cl.EstimateGas(ctx, msg)
		if err != nil {
			return txResult{}, rpcProblem(err)
		}
		gas := est + est*gasHeadroom/100
		p.req.Gas = &gas
	}
	if err := p.req.Validate(); err != nil {
		return txResult{}, problem.BadRequest(problem.TypeInvalidRequest, "invalid transaction: "+err.Error())
	}

	now := time.Now()
	counters, err := h.reserveDay(ctx, a, g, chain.ID, p.value, now)
	if err != nil {
		return txResult{}, err
	}
	reservedNonce, keep := false, false
	defer func() {
		if err == nil || keep {
			return
		}
		// Give back what this request took (a fresh context: the
		// request's may be what failed).
		bg, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = h.Txs.ReleaseTx(bg, a.OrgID, a.ID, chain.ID, now, p.value)
		if reservedNonce {
			_ = h.Txs.ReleaseNonce(bg, a.OrgID, chain.ChainID, strings.ToLower(from.Hex()), *p.req.Nonce)
		}
	}()
	if p.req.Nonce == nil {
		pending, err := cl.PendingNonceAt(ctx, from)
		if err != nil {
			return txResult{}, rpcProblem(err)
		}
		n, err := h.Txs.ReserveNonce(ctx, a.OrgID, chain.ChainID, strings.ToLower(from.Hex()), pending)
		if err != nil {
			return txResult{}, err
		}
		p.req.Nonce, reservedNonce = &n, true
	}
	payload, err := json.Marshal(p.req)
	if err != nil {
		return txResult{}, err
	}
	tokenKnown := false
	if call := evm.DecodeCall(p.data); call.TokenAmount != nil && p.hasTo {
		_, kerr := h.Keys.KnownTokenOf(ctx, chain.ID, strings.ToLower(p.to.Hex()))
		tokenKnown = kerr == nil
		if p.token == "" {
			p.token, p.tokenAmount = strings.ToLower(p.to.Hex()), call.TokenAmount
		}
	}
	resp, err := h.enclaveSign(r, signRequest{party: party, chain: chain, kind: wire.IntentTransaction,
		payload: payload, counters: counters, tokenKnown: tokenKnown})
	if err != nil {
		return txResult{}, err
	}
	rec, err := h.recordTx(r, a, key, chain, p, resp, mode, reservedNonce)
	if err != nil {
		return txResult{}, err
	}
	res = txResult{rec: rec, resp: resp}
	if mode == txSignOnly {
		return res, nil
	}
	if _, serr := cl.SendRawTransaction(ctx, resp.SignedTx); serr != nil {
		if !errors.Is(serr, chainrpc.ErrNonceTooLow) && !errors.Is(serr, chainrpc.ErrRejected) {
			// The outcome is unknown (a timeout, a lost connection): the
			// node may have the transaction. Its nonce and spend stay
			// reserved and the record stays "signed" with its raw bytes,
			// which are safe to send again.
			keep = true
			return txResult{}, problem.New(http.StatusServiceUnavailable, problem.TypeChainUnavailable,
				"the broadcast's outcome is unknown; transaction "+rec.ID+" is signed and may be resent")
		}
		// The node refused it: nothing reached the chain, so its nonce and
		// its spend are given back (by the deferred release) and it is
		// marked failed.
		err = serr
		_, _ = h.Txs.SetAgentTxStatus(context.WithoutCancel(ctx), a.OrgID, rec.ID, store.TxFailed, "broadcast rejected", "", nil)
		return txResult{}, problem.New(http.StatusBadGateway, problem.TypeBroadcastRejected,
			"the node rejected the transaction ("+rec.ID+"); nothing was sent")
	}
	keep = true // on the chain now: its nonce and spend are used
	data := txEventData(rec)
	rec, err = h.Txs.SetAgentTxStatus(ctx, a.OrgID, rec.ID, store.TxBroadcast, "", "agent.transaction.broadcast", data)
	if err != nil {
		return txResult{}, err
	}
	res.rec = rec
	return res, nil
}

// callMsg is the call a transaction plan makes, for simulation and gas
// estimation.
func callMsg(from common.Address, p txPlan) ethereum.CallMsg {
	m := ethereum.CallMsg{From: from, Value: p.value, Data: p.data}
	if p.hasTo {
		to := p.to
		m.To = &to
	}
	return m
}

// fillFees sets EIP-1559 fees from the node (legacy gas price on chains
// without a base fee, or when the request asks for type 0 or 1).
func fillFees(ctx context.Context, cl *chainrpc.Client, req *evm.TxRequest) error {
	gasPrice, tip, maxFee, err := cl.SuggestFees(ctx)
	if err != nil {
		return rpcProblem(err)
	}
	legacy := req.Type != nil && *req.Type <= 1
	if legacy || maxFee == nil {
		req.GasPrice = hexutil.EncodeBig(gasPrice)
		return nil
	}
	req.MaxFeePerGas, req.MaxPriorityFeePerGas = hexutil.EncodeBig(maxFee), hexutil.EncodeBig(tip)
	return nil
}

// recordTx stores a signed transaction and emits agent.transaction.signed.
// One to be broadcast is watched until the chain has its receipt; so is a
// sign-only one whose nonce the server reserved (its nonce is given back
// if it is never sent).
func (h *Handlers) recordTx(r *http.Request, a store.Agent, key store.SigningKey, chain store.Chain, p txPlan,
	resp wire.SignIntentResponse, mode txMode, nonceReserved bool) (store.AgentTx, error) {
	typ, _ := p.req.TxType()
	t := store.AgentTx{OrgID: a.OrgID, ID: newID(), AgentID: a.ID, Chain: chain.ID, ChainID: chain.ChainID,
		KeyVersion: key.Version, TxType: int(typ), From: key.Address, Value: p.value.String(), Nonce: int64(*p.req.Nonce),
		TxHash: hexutil.Encode(resp.TxHash), SignedTx: resp.SignedTx, Status: store.TxSigned,
		Watch: mode == txBroadcast || nonceReserved, SignOnly: mode == txSignOnly, NonceReserved: nonceReserved}
	if p.hasTo {
		t.To = p.to.Hex()
	}
	if p.token != "" {
		t.TokenAddress = p.token
		if p.tokenAmount != nil {
			t.TokenAmount = p.tokenAmount.String()
		}
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("agent/" + a.ID + "/transactions/" + t.ID)
	rec, err := h.Txs.InsertAgentTx(r.Context(), t, entry.Prepare(http.StatusOK), "agent.transaction.signed", txEventData(t))
	if err != nil {
		return store.AgentTx{}, err
	}
	return rec, nil
}

// txEventData is the data of agent.transaction.* events: never the signed
// transaction.
func txEventData(t store.AgentTx) map[string]any {
	return map[string]any{"transaction_id": t.ID, "agent_id": t.AgentID, "chain": t.Chain, "chain_id": t.ChainID,
		"tx_hash": t.TxHash, "from": t.From, "to": t.To, "value": t.Value, "nonce": t.Nonce}
}

// SendTransaction answers POST /v1/agents/{id}/transactions: sign and
// broadcast.
func (h *Handlers) SendTransaction(w http.ResponseWriter, r *http.Request) error {
	return h.transaction(w, r, txBroadcast)
}

// SignTransactionOnly answers POST /v1/agents/{id}/transactions/sign: sign
// only; the signed transaction is returned and not sent.
func (h *Handlers) SignTransactionOnly(w http.ResponseWriter, r *http.Request) error {
	return h.transaction(w, r, txSignOnly)
}

func (h *Handlers) transaction(w http.ResponseWriter, r *http.Request, mode txMode) error {
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
	return writeJSON(w, http.StatusOK, transactionView(res.rec, true))
}

// ListTransactions answers GET /v1/agents/{id}/transactions, newest first;
// signed_tx only with include_signed_tx=true.
func (h *Handlers) ListTransactions(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	limit, cursor, err := pageParams(r)
	if err != nil {
		return err
	}
	if err := cursorID(cursor); err != nil {
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
		func(t store.AgentTx) map[string]any { return transactionView(t, withSigned) },
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
	if errors.Is(err, store.ErrNotFound) {
		return problem.NotFound("transaction")
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, transactionView(t, withSigned))
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
