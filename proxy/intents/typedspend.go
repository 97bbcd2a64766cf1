package intents

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"

	"github.com/opencustody/ocv/chain/evm"
)

// typedDataSpend is the native value a typed-data message lets move out of
// the signer's own account (a forward request's value, say): the sum of
// its native transfers from the signer. It is counted on the day's
// counters like a transaction's value, so that typed data cannot spend
// around tx_daily_limit_eth. Value another account holds (a Safe's) and
// token amounts are not the signer's native spend. A document that does
// not decode counts nothing here: the enclave refuses it.
func typedDataSpend(payload []byte) *big.Int {
	total := new(big.Int)
	_, td, err := evm.TypedDataHash(payload)
	if err != nil {
		return total
	}
	_, effects, err := evm.TypedDataEffects(td)
	if err != nil {
		return total
	}
	for _, e := range effects {
		if e.Kind == evm.EffectNativeTransfer && e.From == (common.Address{}) && e.Amount != nil && e.Amount.Sign() > 0 {
			total.Add(total, e.Amount)
		}
	}
	return total
}
