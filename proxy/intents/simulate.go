package intents

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/chainrpc"
)

// Simulate runs txs (one chain) in order from agent a's ethereum address
// against the chain's latest state: gas, balance changes (native and
// ERC-20 transfers) and decoded revert reasons. Nothing is signed.
func (s *Service) Simulate(ctx context.Context, a store.Agent, txs []api.TransactionRequest) ([]api.SimulationResult, error) {
	var chain store.Chain
	for i, t := range txs {
		c, err := s.txChain(ctx, chainSelector{t.ChainID, t.Chain})
		if err != nil {
			return nil, err
		}
		if i > 0 && c.ID != chain.ID {
			return nil, problem.BadRequest(problem.TypeInvalidRequest, "every transaction of a bundle must be on the same chain")
		}
		chain = c
	}
	key, err := s.evmKey(ctx, a)
	if err != nil {
		return nil, err
	}
	auditlog.FromContext(ctx).SetResource("agent/" + a.ID + "/transactions/simulate")
	from := common.HexToAddress(key.Address)
	calls := make([]ethereum.CallMsg, 0, len(txs))
	for _, t := range txs {
		p, err := plan(t, uint64(chain.ChainID), s.registryDecimals(ctx, chain))
		if err != nil {
			return nil, err
		}
		calls = append(calls, callMsg(from, p))
	}
	cl, err := s.chainClient(ctx, chain)
	if err != nil {
		return nil, err
	}
	results, err := cl.Simulate(ctx, from, calls)
	if err != nil {
		return nil, rpcProblem(err)
	}
	out := make([]api.SimulationResult, 0, len(results))
	for _, res := range results {
		out = append(out, simulationOf(chain, res))
	}
	return out, nil
}

// simulationOf is one simulated call as the API shows it.
func simulationOf(chain store.Chain, res chainrpc.SimResult) api.SimulationResult {
	changes := make([]api.BalanceChange, 0, len(res.BalanceChanges))
	for _, c := range res.BalanceChanges {
		asset := "native"
		if c.Token != "" {
			asset = strings.ToLower(c.Token)
		}
		changes = append(changes, api.BalanceChange{Address: c.Address.Hex(), Asset: asset, Delta: c.Delta.String()})
	}
	out := api.SimulationResult{Chain: chain.ID, ChainID: chain.ChainID, Success: res.Status == 1, GasUsed: res.GasUsed,
		GasEstimate: res.GasEstimate, ReturnData: hexutil.Encode(res.ReturnData), BalanceChanges: changes,
		Partial: res.Partial, Error: res.Error, Link: chain.ExplorerURL}
	if res.Revert != nil {
		reason := res.Revert.Reason
		out.RevertReason = &reason
	}
	return out
}

// ErrNoEthereumKey answers an intent of an agent that has no active
// ethereum key.
var ErrNoEthereumKey = problem.New(http.StatusNotFound, problem.TypeNotFound,
	"the agent has no ethereum signing key; create one with POST /v1/agents/{id}/signing-keys")

// evmKey is the agent's active ethereum key, which signs on every EVM chain.
func (s *Service) evmKey(ctx context.Context, a store.Agent) (store.SigningKey, error) {
	k, err := s.keys.ActiveSigningKey(ctx, a.OrgID, a.ID, "ethereum")
	if errors.Is(err, store.ErrNotFound) {
		return store.SigningKey{}, ErrNoEthereumKey
	}
	return k, err
}
