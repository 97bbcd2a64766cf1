package intents

import (
	"context"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/chain/evm"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// maxBalanceTokens bounds the tokens of one balance request.
const maxBalanceTokens = 20

// Balance is the native balance of agent a's ethereum address on the EVM
// chain chainRef and the balances of tokens (up to 20 comma-separated
// ERC-20 contracts; empty for none).
func (s *Service) Balance(ctx context.Context, a store.Agent, chainRef, tokens string) (api.Balance, error) {
	chain, err := s.evmChain(ctx, chainRef)
	if err != nil {
		return api.Balance{}, err
	}
	var contracts []common.Address
	if tokens != "" {
		for _, t := range strings.Split(tokens, ",") {
			t = strings.TrimSpace(t)
			if !common.IsHexAddress(t) || len(contracts) == maxBalanceTokens {
				return api.Balance{}, problem.BadRequest(problem.TypeInvalidRequest, "tokens must be up to 20 comma-separated contract addresses")
			}
			contracts = append(contracts, common.HexToAddress(t))
		}
	}
	key, err := s.evmKey(ctx, a)
	if err != nil {
		return api.Balance{}, err
	}
	auditlog.FromContext(ctx).SetResource("agent/" + a.ID + "/signing-keys/ethereum")
	cl, err := s.chainClient(ctx, chain)
	if err != nil {
		return api.Balance{}, err
	}
	holder := common.HexToAddress(key.Address)
	native, err := cl.BalanceAt(ctx, holder)
	if err != nil {
		return api.Balance{}, rpcProblem(err)
	}
	out := api.Balance{Chain: chain.ID, ChainID: chain.ChainID, Address: key.Address,
		Native: api.NativeBalance{Balance: native.String(), Formatted: evm.FormatEth(native), Decimals: evmDecimals},
		Tokens: make([]api.TokenBalance, 0, len(contracts))}
	for _, t := range contracts {
		bal, err := cl.TokenBalance(ctx, t, holder)
		if err != nil {
			return api.Balance{}, rpcProblem(err)
		}
		item := api.TokenBalance{ContractAddress: strings.ToLower(t.Hex()), Balance: bal.String()}
		if k, err := s.keys.KnownTokenOf(ctx, chain.ID, strings.ToLower(t.Hex())); err == nil {
			formatted := evm.FormatTokenAmount(bal, k.Decimals)
			item.Symbol, item.Decimals, item.Formatted = &k.Symbol, &k.Decimals, &formatted
		}
		out.Tokens = append(out.Tokens, item)
	}
	return out, nil
}
