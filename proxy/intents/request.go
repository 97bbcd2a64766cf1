package intents

import (
	"encoding/json"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/chain/evm"
)

// CheckTransaction refuses what an EVM transaction cannot carry, and
// makes gas_limit the gas when gas is absent.
func CheckTransaction(t *api.TransactionRequest) error {
	for name, v := range map[string]json.RawMessage{"destination_tag": t.DestinationTag, "memo": t.Memo,
		"fee_rate_sat_per_vbyte": t.FeeRateSatPerVbyte, "fee_limit_sun": t.FeeLimitSun, "ttl": t.TTL,
		"xrpl_tx_json": t.XRPLTxJSON} {
		if len(v) > 0 && string(v) != "null" {
			return problem.BadRequest(problem.TypeInvalidRequest, name+" applies to other chains, not to EVM transactions")
		}
	}
	if t.Mode != nil && *t.Mode == "treasury" || t.TreasuryID != nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "treasury mode needs an active delegation, which this server does not offer yet")
	}
	if t.Gas != nil && t.GasLimit != nil && *t.Gas != *t.GasLimit {
		return problem.BadRequest(problem.TypeInvalidRequest, "gas and gas_limit disagree")
	}
	if t.Gas == nil {
		t.Gas = t.GasLimit
	}
	return nil
}

// hasFees reports whether the request sets its own fees.
func hasFees(t api.TransactionRequest) bool {
	return t.GasPrice != "" || t.MaxFeePerGas != "" || t.MaxPriorityFeePerGas != ""
}

// txPlan is a transaction request turned into what the enclave signs,
// before nonce, gas and fees are filled in.
type txPlan struct {
	req         evm.TxRequest
	value       *big.Int // native value, wei
	token       string   // token contract when the server built the transfer
	tokenAmount *big.Int
	to          common.Address
	data        []byte
	hasTo       bool
}

// plan builds the evm request: for token_mint, ERC-20 transfer calldata
// with value as the token amount (hex base units, or decimal major units
// scaled by token_decimals, else by the registry's decimals).
func plan(t api.TransactionRequest, chainID uint64, registryDecimals func(token string) (int, bool)) (txPlan, error) {
	p := txPlan{req: evm.TxRequest{ChainID: chainID, Type: t.Type, Nonce: t.Nonce, Gas: t.Gas,
		GasPrice: string(t.GasPrice), MaxFeePerGas: string(t.MaxFeePerGas), MaxPriorityFeePerGas: string(t.MaxPriorityFeePerGas),
		MaxFeePerBlobGas: string(t.MaxFeePerBlobGas), AccessList: convert(t.AccessList, toEVMTuple),
		BlobVersionedHashes: t.BlobVersionedHashes, AuthorizationList: convert(t.AuthorizationList, toEVMAuth)}}
	bad := func(detail string) (txPlan, error) {
		return txPlan{}, problem.BadRequest(problem.TypeInvalidRequest, detail)
	}
	if t.To != "" && !common.IsHexAddress(t.To) {
		return bad("to must be a 0x-prefixed 20-byte address")
	}
	if t.TokenMint == "" {
		v, err := new(big.Int), error(nil)
		if t.Value != "" {
			v, err = evm.ParseQuantity(string(t.Value))
		}
		if err != nil || v.Sign() < 0 {
			return bad("value must be a 0x-hex (or decimal) amount of wei")
		}
		p.value, p.req.To, p.req.Value, p.req.Data = v, t.To, hexutil.EncodeBig(v), t.Data
		if t.To != "" {
			p.to, p.hasTo = common.HexToAddress(t.To), true
		}
		if t.Data != "" {
			d, err := hexutil.Decode(t.Data)
			if err != nil {
				return bad("data must be 0x-prefixed hex")
			}
			p.data = d
		}
		return p, nil
	}
	if !common.IsHexAddress(t.TokenMint) || t.To == "" {
		return bad("token_mint must be a token contract address, and to the recipient")
	}
	if t.Data != "" {
		return bad("data cannot be combined with token_mint: the server builds the transfer")
	}
	token := strings.ToLower(t.TokenMint)
	amount, err := tokenAmount(string(t.Value), t.TokenDecimals, func() (int, bool) { return registryDecimals(token) })
	if err != nil {
		return txPlan{}, err
	}
	data, err := evm.ERC20TransferData(common.HexToAddress(t.To), amount)
	if err != nil {
		return bad("the token amount does not fit a transfer")
	}
	p.value, p.token, p.tokenAmount = new(big.Int), token, amount
	p.to, p.hasTo, p.data = common.HexToAddress(token), true, data
	p.req.To, p.req.Value, p.req.Data = common.HexToAddress(token).Hex(), "0x0", hexutil.Encode(data)
	return p, nil
}

// tokenAmount reads a token amount: 0x-hex base units, or a decimal amount
// of whole tokens scaled by the given (or the registry's) decimals.
func tokenAmount(v string, decimals *int, registry func() (int, bool)) (*big.Int, error) {
	bad := problem.BadRequest(problem.TypeInvalidRequest,
		"value must be the token amount: 0x-hex base units, or a decimal amount with token_decimals")
	if v == "" {
		return nil, bad
	}
	if strings.HasPrefix(v, "0x") || strings.HasPrefix(v, "0X") {
		n, err := evm.ParseQuantity(v)
		if err != nil || n.Sign() < 0 {
			return nil, bad
		}
		return n, nil
	}
	d := -1
	if decimals != nil {
		d = *decimals
	} else if rd, ok := registry(); ok {
		d = rd
	}
	if d < 0 || d > 36 {
		return nil, problem.BadRequest(problem.TypeInvalidRequest, "token_decimals (0 to 36) is required for a token not in the registry")
	}
	n, err := evm.ParseTokenAmount(v, d)
	if err != nil {
		return nil, bad
	}
	return n, nil
}

// convert maps a list of the contract's shapes to the codec's, keeping an
// absent list absent.
func convert[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

func toEVMTuple(t api.AccessTuple) evm.AccessTuple { return evm.AccessTuple(t) }

func toEVMAuth(a api.Authorization) evm.Authorization { return evm.Authorization(a) }
