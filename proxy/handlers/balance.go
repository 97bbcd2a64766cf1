package handlers

import (
	"net/http"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// maxBalanceTokens bounds the tokens of one balance request.
const maxBalanceTokens = 20

// SigningKeyBalance answers GET /v1/agents/{id}/signing-keys/{chain}/balance
// ?tokens=0x..,0x..: the native balance of the key's address on the chain
// and the balances of the named ERC-20 tokens (EVM chains).
func (h *Handlers) SigningKeyBalance(w http.ResponseWriter, r *http.Request) error {
	a, err := h.agentOf(r)
	if err != nil {
		return err
	}
	chain, err := h.evmChain(r, r.PathValue("chain"))
	if err != nil {
		return err
	}
	var tokens []common.Address
	if s := r.URL.Query().Get("tokens"); s != "" {
		for _, t := range strings.Split(s, ",") {
			t = strings.TrimSpace(t)
			if !common.IsHexAddress(t) || len(tokens) == maxBalanceTokens {
				return problem.BadRequest(problem.TypeInvalidRequest, "tokens must be up to 20 comma-separated contract addresses")
			}
			tokens = append(tokens, common.HexToAddress(t))
		}
	}
	key, err := h.evmKey(r, a)
	if err != nil {
		return err
	}
	ctx := r.Context()
	auditlog.FromContext(ctx).SetResource("agent/" + a.ID + "/signing-keys/ethereum")
	cl, err := h.chainClient(ctx, chain)
	if err != nil {
		return err
	}
	holder := common.HexToAddress(key.Address)
	native, err := cl.BalanceAt(ctx, holder)
	if err != nil {
		return rpcProblem(err)
	}
	items := make([]map[string]any, 0, len(tokens))
	for _, t := range tokens {
		bal, err := cl.TokenBalance(ctx, t, holder)
		if err != nil {
			return rpcProblem(err)
		}
		item := map[string]any{"contract_address": strings.ToLower(t.Hex()), "balance": bal.String()}
		if k, err := h.Keys.KnownTokenOf(ctx, chain.ID, strings.ToLower(t.Hex())); err == nil {
			item["symbol"], item["decimals"] = k.Symbol, k.Decimals
			item["formatted"] = evm.FormatTokenAmount(bal, k.Decimals)
		}
		items = append(items, item)
	}
	return writeJSON(w, http.StatusOK, map[string]any{
		"chain": chain.ID, "chain_id": chain.ChainID, "address": key.Address,
		"native": map[string]any{"balance": native.String(), "formatted": evm.FormatEth(native), "decimals": evmDecimals},
		"tokens": items,
	})
}
