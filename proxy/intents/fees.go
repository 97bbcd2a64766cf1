package intents

import (
	"errors"
	"math/big"

	"github.com/opencustody/ocv/chain/evm"
)

// blobGasPerBlob is the blob gas of one blob (EIP-4844).
const blobGasPerBlob = 1 << 17

// maxFee is the most a prepared transaction can pay in fees, in wei: its
// gas limit times its max fee per gas (gas price for types 0 and 1), plus
// its blob gas times its blob fee cap. The request must carry its gas and
// fees (prepare fills them in).
func maxFee(r evm.TxRequest) (*big.Int, error) {
	if r.Gas == nil {
		return nil, errors.New("the transaction has no gas limit")
	}
	perGas := r.MaxFeePerGas
	if perGas == "" {
		perGas = r.GasPrice
	}
	if perGas == "" {
		return nil, errors.New("the transaction has no fee per gas")
	}
	price, err := evm.ParseQuantity(perGas)
	if err != nil || price.Sign() < 0 {
		return nil, errors.New("the transaction's fee per gas does not parse")
	}
	fee := new(big.Int).Mul(new(big.Int).SetUint64(*r.Gas), price)
	if n := len(r.BlobVersionedHashes); n > 0 {
		if r.MaxFeePerBlobGas == "" {
			return nil, errors.New("a blob transaction has no max_fee_per_blob_gas")
		}
		blobFee, err := evm.ParseQuantity(r.MaxFeePerBlobGas)
		if err != nil || blobFee.Sign() < 0 {
			return nil, errors.New("the transaction's blob fee cap does not parse")
		}
		blobGas := new(big.Int).SetUint64(uint64(n) * blobGasPerBlob)
		fee.Add(fee, blobGas.Mul(blobGas, blobFee))
	}
	return fee, nil
}
