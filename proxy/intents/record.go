package intents

import (
	"context"
	"net/http"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/google/uuid"

	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/chainrpc"
)

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
func (s *Service) recordTx(ctx context.Context, a store.Agent, key store.SigningKey, chain store.Chain, p txPlan,
	resp wire.SignIntentResponse, mode Mode, nonceReserved bool) (store.AgentTx, error) {
	typ, _ := p.req.TxType()
	t := store.AgentTx{OrgID: a.OrgID, ID: uuid.Must(uuid.NewV7()).String(), AgentID: a.ID, Chain: chain.ID,
		ChainID: chain.ChainID, KeyVersion: key.Version, TxType: int(typ), From: key.Address, Value: p.value.String(),
		Nonce: int64(*p.req.Nonce), TxHash: hexutil.Encode(resp.TxHash), SignedTx: resp.SignedTx, Status: store.TxSigned,
		Watch: mode == Broadcast || nonceReserved, SignOnly: mode == SignOnly, NonceReserved: nonceReserved}
	if p.hasTo {
		t.To = p.to.Hex()
	}
	if p.token != "" {
		t.TokenAddress = p.token
		if p.tokenAmount != nil {
			t.TokenAmount = p.tokenAmount.String()
		}
	}
	entry := auditlog.FromContext(ctx)
	entry.SetResource("agent/" + a.ID + "/transactions/" + t.ID)
	return s.txs.InsertAgentTx(ctx, t, entry.Prepare(http.StatusOK), "agent.transaction.signed", txEventData(t))
}

// txEventData is the data of agent.transaction.* events: never the signed
// transaction.
func txEventData(t store.AgentTx) map[string]any {
	return map[string]any{"transaction_id": t.ID, "agent_id": t.AgentID, "chain": t.Chain, "chain_id": t.ChainID,
		"tx_hash": t.TxHash, "from": t.From, "to": t.To, "value": t.Value, "nonce": t.Nonce}
}
