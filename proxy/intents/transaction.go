package intents

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/chainrpc"
)

// Mode says what happens after a transaction is signed.
type Mode int

const (
	// SignOnly returns the signed transaction without sending it.
	SignOnly Mode = iota
	// Broadcast sends the signed transaction to the chain's node.
	Broadcast
)

// gasHeadroom is the margin added to an estimate (in percent) when the
// request names no gas limit.
const gasHeadroom = 20

// TxResult is a signed transaction and its record.
type TxResult struct {
	Record store.AgentTx
	Signed wire.SignIntentResponse
}

// SignTransaction prepares, guards, signs and (in Broadcast) sends one EVM
// transaction for the signing party, whose caller's access token is
// token. Nothing is counted or reserved before a simulate_first revert; a
// refusal or failure after the reservations gives them back. The
// transaction's maximum fee is reserved with its value: the enclave judges
// it against the overhead budget (or the value cap) with the fees reserved
// before it today.
func (s *Service) SignTransaction(ctx context.Context, token string, party store.SigningParty, in api.TransactionRequest,
	mode Mode) (res TxResult, err error) {
	a, key := party.Agent, party.Key
	if err := CheckSigningKeyPath(in.SigningKeyPath, a.ID); err != nil {
		return TxResult{}, err
	}
	chain, err := s.txChain(ctx, chainSelector{in.ChainID, in.Chain})
	if err != nil {
		return TxResult{}, err
	}
	g, err := guardrailsOf(a)
	if err != nil {
		return TxResult{}, err
	}
	from := common.HexToAddress(key.Address)
	p, err := plan(in, uint64(chain.ChainID), s.registryDecimals(ctx, chain))
	if err != nil {
		return TxResult{}, err
	}
	auditlog.FromContext(ctx).SetResource("agent/" + a.ID + "/transactions")

	var cl *chainrpc.Client
	if mode == Broadcast || in.SimulateFirst || in.Nonce == nil || in.Gas == nil || !hasFees(in) {
		if cl, err = s.chainClient(ctx, chain); err != nil {
			return TxResult{}, err
		}
	}
	if err := prepare(ctx, cl, from, in, &p); err != nil {
		return TxResult{}, err
	}

	fee, err := maxFee(p.req)
	if err != nil {
		return TxResult{}, problem.BadRequest(problem.TypeInvalidRequest, "invalid transaction: "+err.Error())
	}
	now := s.now()
	counters, err := s.reserveDay(ctx, a, g, chain.ID, p.value, fee, now)
	if err != nil {
		return TxResult{}, err
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
		_ = s.txs.ReleaseTxFee(bg, a.OrgID, a.ID, chain.ID, now, p.value, fee)
		if reservedNonce {
			_ = s.txs.ReleaseNonce(bg, a.OrgID, chain.ChainID, strings.ToLower(from.Hex()), *p.req.Nonce)
		}
	}()
	if p.req.Nonce == nil {
		pending, err := cl.PendingNonceAt(ctx, from)
		if err != nil {
			return TxResult{}, rpcProblem(err)
		}
		n, err := s.txs.ReserveNonce(ctx, a.OrgID, chain.ChainID, strings.ToLower(from.Hex()), pending)
		if err != nil {
			return TxResult{}, err
		}
		p.req.Nonce, reservedNonce = &n, true
	}
	payload, err := json.Marshal(p.req)
	if err != nil {
		return TxResult{}, err
	}
	tokenKnown := false
	if call := evm.DecodeCall(p.data); call.TokenAmount != nil && p.hasTo {
		_, kerr := s.keys.KnownTokenOf(ctx, chain.ID, strings.ToLower(p.to.Hex()))
		tokenKnown = kerr == nil
		if p.token == "" {
			p.token, p.tokenAmount = strings.ToLower(p.to.Hex()), call.TokenAmount
		}
	}
	resp, err := s.enclaveSign(ctx, token, signRequest{party: party, chain: chain, kind: wire.IntentTransaction,
		payload: payload, counters: counters, tokenKnown: tokenKnown})
	if err != nil {
		return TxResult{}, err
	}
	rec, err := s.recordTx(ctx, a, key, chain, p, resp, mode, reservedNonce)
	if err != nil {
		return TxResult{}, err
	}
	res = TxResult{Record: rec, Signed: resp}
	if mode == SignOnly {
		return res, nil
	}
	if err := s.checkpoint(ctx, rec); err != nil {
		keep = true // rolled back with the reservations: nothing to give back
		return TxResult{}, err
	}
	if res.Record, err = s.broadcast(ctx, cl, a.OrgID, rec, resp.SignedTx); err != nil {
		// Only a refusal gives the nonce and the spend back: otherwise
		// the transaction may be (or is) on the chain.
		keep = !errors.Is(err, errRejected)
		if !keep {
			s.forgetCheckpoint(ctx)
		}
		return TxResult{}, broadcastProblem(err, rec.ID)
	}
	return res, nil
}

// registryDecimals looks a token's decimals up in the registry of chain.
func (s *Service) registryDecimals(ctx context.Context, chain store.Chain) func(token string) (int, bool) {
	return func(token string) (int, bool) {
		k, err := s.keys.KnownTokenOf(ctx, chain.ID, token)
		return k.Decimals, err == nil
	}
}

// prepare runs the simulate_first call and fills in fees and gas from the
// node where the request names none.
func prepare(ctx context.Context, cl *chainrpc.Client, from common.Address, in api.TransactionRequest, p *txPlan) error {
	msg := callMsg(from, *p)
	if in.SimulateFirst {
		if _, err := cl.Call(ctx, msg); err != nil {
			return rpcProblem(err)
		}
	}
	if !hasFees(in) {
		if err := fillFees(ctx, cl, &p.req); err != nil {
			return err
		}
	}
	if p.req.Gas == nil {
		est, err := cl.EstimateGas(ctx, msg)
		if err != nil {
			return rpcProblem(err)
		}
		gas := est + est*gasHeadroom/100
		p.req.Gas = &gas
	}
	if err := p.req.Validate(); err != nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "invalid transaction: "+err.Error())
	}
	return nil
}

var (
	errOutcomeUnknown = errors.New("the broadcast's outcome is unknown")
	errRejected       = errors.New("the node rejected the transaction")
)

// broadcast sends the signed transaction rec and marks it broadcast. A
// node's refusal marks it failed (errRejected: nothing reached the chain);
// any other failure is errOutcomeUnknown (the node may have it: the
// record stays "signed" with its raw bytes, which are safe to send again).
func (s *Service) broadcast(ctx context.Context, cl *chainrpc.Client, orgID string, rec store.AgentTx, raw []byte) (store.AgentTx, error) {
	if _, err := cl.SendRawTransaction(ctx, raw); err != nil {
		if !errors.Is(err, chainrpc.ErrNonceTooLow) && !errors.Is(err, chainrpc.ErrRejected) {
			return store.AgentTx{}, errOutcomeUnknown
		}
		_, _ = s.txs.SetAgentTxStatus(context.WithoutCancel(ctx), orgID, rec.ID, store.TxFailed, "broadcast rejected", "", nil)
		return store.AgentTx{}, errRejected
	}
	return s.txs.SetAgentTxStatus(ctx, orgID, rec.ID, store.TxBroadcast, "", "agent.transaction.broadcast", txEventData(rec))
}

// broadcastProblem is the answer to a failed broadcast of transaction id.
func broadcastProblem(err error, id string) error {
	switch {
	case errors.Is(err, errOutcomeUnknown):
		return problem.New(http.StatusServiceUnavailable, problem.TypeChainUnavailable,
			"the broadcast's outcome is unknown; transaction "+id+" is signed and may be resent")
	case errors.Is(err, errRejected):
		return problem.New(http.StatusBadGateway, problem.TypeBroadcastRejected,
			"the node rejected the transaction ("+id+"); nothing was sent")
	}
	return err
}
