package evm

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// BuildTx validates r, requires nonce, gas and the fees of its type, and
// builds the unsigned transaction (types 0 to 4). A type 3 transaction is
// built for signing only: it carries the blob hashes and blob fee cap but
// no sidecar. A type 4 transaction needs every authorization signed first
// (see UnsignedAuthorizations).
//
// An unsigned legacy transaction has no chain ID field, so BuildTx records
// it in V in EIP-155 form (V = 2·chain_id + 35, R = S = 0); SigningHash and
// AssembleTx read it back, and WithSignature replaces all three values.
func BuildTx(r TxRequest) (*types.Transaction, error) {
	p, err := r.parse()
	if err != nil {
		return nil, err
	}
	if err := p.requireBuildFields(); err != nil {
		return nil, err
	}
	switch p.typ {
	case types.LegacyTxType:
		v := new(big.Int).SetUint64(r.ChainID)
		v.Lsh(v, 1).Add(v, big.NewInt(35))
		return types.NewTx(&types.LegacyTx{
			Nonce: *p.nonce, GasPrice: p.gasPrice.ToBig(), Gas: *p.gas, To: p.to,
			Value: p.value.ToBig(), Data: p.data, V: v, R: new(big.Int), S: new(big.Int),
		}), nil
	case types.AccessListTxType:
		return types.NewTx(&types.AccessListTx{
			ChainID: p.chainID.ToBig(), Nonce: *p.nonce, GasPrice: p.gasPrice.ToBig(), Gas: *p.gas,
			To: p.to, Value: p.value.ToBig(), Data: p.data, AccessList: p.accessList,
		}), nil
	case types.DynamicFeeTxType:
		return types.NewTx(&types.DynamicFeeTx{
			ChainID: p.chainID.ToBig(), Nonce: *p.nonce, GasTipCap: p.maxTip.ToBig(), GasFeeCap: p.maxFee.ToBig(),
			Gas: *p.gas, To: p.to, Value: p.value.ToBig(), Data: p.data, AccessList: p.accessList,
		}), nil
	case types.BlobTxType:
		return types.NewTx(&types.BlobTx{
			ChainID: p.chainID, Nonce: *p.nonce, GasTipCap: p.maxTip, GasFeeCap: p.maxFee, Gas: *p.gas,
			To: *p.to, Value: p.value, Data: p.data, AccessList: p.accessList,
			BlobFeeCap: p.blobFee, BlobHashes: p.blobHashes,
		}), nil
	case types.SetCodeTxType:
		for i, signed := range p.authSigned {
			if !signed {
				return nil, fieldErr(fmt.Sprintf("authorization_list[%d]", i), "not signed yet")
			}
		}
		return types.NewTx(&types.SetCodeTx{
			ChainID: p.chainID, Nonce: *p.nonce, GasTipCap: p.maxTip, GasFeeCap: p.maxFee, Gas: *p.gas,
			To: *p.to, Value: p.value, Data: p.data, AccessList: p.accessList, AuthList: p.auths,
		}), nil
	default:
		return nil, fieldErr("type", "unsupported type %d", p.typ)
	}
}

// requireBuildFields checks what Validate lets a caller fill in later.
func (p *parsedTx) requireBuildFields() error {
	switch {
	case p.nonce == nil:
		return fieldErr("nonce", "required to build the transaction")
	case p.gas == nil || *p.gas == 0:
		return fieldErr("gas", "required (non-zero) to build the transaction")
	}
	if p.typ == types.LegacyTxType || p.typ == types.AccessListTxType {
		if p.gasPrice == nil {
			return fieldErr("gas_price", "required for type %d", p.typ)
		}
		return nil
	}
	switch {
	case p.maxFee == nil:
		return fieldErr("max_fee_per_gas", "required for type %d", p.typ)
	case p.maxTip == nil:
		return fieldErr("max_priority_fee_per_gas", "required for type %d", p.typ)
	case p.typ == types.BlobTxType && p.blobFee == nil:
		return fieldErr("max_fee_per_blob_gas", "required for type 3")
	}
	return nil
}

// chainIDOf returns the chain ID a transaction is signed for. A legacy
// transaction without EIP-155 protection has none and is refused: its
// signature would be replayable on every chain.
func chainIDOf(tx *types.Transaction) (*big.Int, error) {
	if tx == nil {
		return nil, fmt.Errorf("%w: nil transaction", ErrInvalidTx)
	}
	if tx.Type() == types.LegacyTxType && !tx.Protected() {
		return nil, fmt.Errorf("%w: legacy transaction without EIP-155 chain ID", ErrInvalidTx)
	}
	if tx.Type() == types.LegacyTxType {
		v, _, _ := tx.RawSignatureValues()
		if v == nil || v.Cmp(big.NewInt(37)) < 0 {
			return nil, fmt.Errorf("%w: legacy transaction without EIP-155 chain ID", ErrInvalidTx)
		}
	}
	id := tx.ChainId()
	if id == nil || id.Sign() <= 0 || id.BitLen() > 256 {
		return nil, fmt.Errorf("%w: transaction chain ID missing", ErrInvalidTx)
	}
	return id, nil
}

// SigningHash is the digest to sign for tx, computed by
// types.LatestSignerForChainID for the transaction's own chain ID.
func SigningHash(tx *types.Transaction) (common.Hash, error) {
	id, err := chainIDOf(tx)
	if err != nil {
		return common.Hash{}, err
	}
	return types.LatestSignerForChainID(id).Hash(tx), nil
}

// AssembleTx attaches a 65-byte r‖s‖v signature (v in {0,1}, low s) to tx
// and returns the signed transaction, its EIP-2718 binary encoding (what
// eth_sendRawTransaction takes) and its hash. The result is checked by
// recovering its sender, so a signature that does not fit tx is an error.
func AssembleTx(tx *types.Transaction, sig65 []byte) (*types.Transaction, []byte, common.Hash, error) {
	id, err := chainIDOf(tx)
	if err != nil {
		return nil, nil, common.Hash{}, err
	}
	if err := checkSig65(sig65); err != nil {
		return nil, nil, common.Hash{}, err
	}
	signer := types.LatestSignerForChainID(id)
	signed, err := tx.WithSignature(signer, sig65)
	if err != nil {
		return nil, nil, common.Hash{}, fmt.Errorf("%w: attaching signature: %w", ErrInvalidSignature, err)
	}
	if _, err := types.Sender(signer, signed); err != nil {
		return nil, nil, common.Hash{}, fmt.Errorf("%w: recovering sender: %w", ErrInvalidSignature, err)
	}
	raw, err := signed.MarshalBinary()
	if err != nil {
		return nil, nil, common.Hash{}, fmt.Errorf("encoding signed transaction: %w", err)
	}
	return signed, raw, signed.Hash(), nil
}
