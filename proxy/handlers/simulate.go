package handlers

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/chainrpc"
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
	out, err := h.simulate(r, a, []apiTx{in})
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
	txs := make([]apiTx, 0, len(items))
	for _, raw := range items {
		t, err := parseAPITx(raw)
		if err != nil {
			return err
		}
		txs = append(txs, t)
	}
	out, err := h.simulate(r, a, txs)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, map[string]any{"results": out})
}

// simulate runs txs (one chain) from the agent's ethereum address.
func (h *Handlers) simulate(r *http.Request, a store.Agent, txs []apiTx) ([]map[string]any, error) {
	ctx := r.Context()
	var chain store.Chain
	for i, t := range txs {
		if len(t.ChainID) == 0 && len(t.Chain) == 0 {
			return nil, problem.BadRequest(problem.TypeInvalidRequest, "chain_id is required")
		}
		ref, err := chainRef(firstRaw(t.ChainID, t.Chain))
		if err != nil {
			return nil, err
		}
		c, err := h.evmChain(r, ref)
		if err != nil {
			return nil, err
		}
		if i > 0 && c.ID != chain.ID {
			return nil, problem.BadRequest(problem.TypeInvalidRequest, "every transaction of a bundle must be on the same chain")
		}
		chain = c
	}
	key, err := h.evmKey(r, a)
	if err != nil {
		return nil, err
	}
	auditlog.FromContext(ctx).SetResource("agent/" + a.ID + "/transactions/simulate")
	from := common.HexToAddress(key.Address)
	calls := make([]ethereum.CallMsg, 0, len(txs))
	for _, t := range txs {
		p, err := t.plan(uint64(chain.ChainID), func(token string) (int, bool) {
			k, err := h.Keys.KnownTokenOf(ctx, chain.ID, token)
			return k.Decimals, err == nil
		})
		if err != nil {
			return nil, err
		}
		calls = append(calls, callMsg(from, p))
	}
	cl, err := h.chainClient(ctx, chain)
	if err != nil {
		return nil, err
	}
	results, err := cl.Simulate(ctx, from, calls)
	if err != nil {
		return nil, rpcProblem(err)
	}
	out := make([]map[string]any, 0, len(results))
	for _, res := range results {
		out = append(out, simulationView(chain, res))
	}
	return out, nil
}

// simulationView is one simulated call as the API shows it.
func simulationView(chain store.Chain, res chainrpc.SimResult) map[string]any {
	changes := make([]map[string]any, 0, len(res.BalanceChanges))
	for _, c := range res.BalanceChanges {
		asset := "native"
		if c.Token != "" {
			asset = strings.ToLower(c.Token)
		}
		changes = append(changes, map[string]any{"address": c.Address.Hex(), "asset": asset, "delta": c.Delta.String()})
	}
	out := map[string]any{
		"chain": chain.ID, "chain_id": chain.ChainID, "success": res.Status == 1, "gas_used": res.GasUsed,
		"gas_estimate": res.GasEstimate, "return_data": hexutil.Encode(res.ReturnData), "balance_changes": changes,
		"partial": res.Partial,
	}
	if res.Revert != nil {
		out["revert_reason"] = res.Revert.Reason
	}
	if res.Error != "" {
		out["error"] = res.Error
	}
	if chain.ExplorerURL != "" {
		out["link"] = chain.ExplorerURL
	}
	return out
}
