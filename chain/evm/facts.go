package evm

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
)

// TxFacts are the properties of a built transaction that guardrails judge.
type TxFacts struct {
	Type    uint8
	ChainID *big.Int
	// To is nil for contract creation.
	To    *common.Address
	Value *big.Int
	// MaxCost is the most the sender can spend: value + gas·fee cap
	// (+ blob gas·blob fee cap for type 3).
	MaxCost *big.Int
	Call    CallFacts
	// Delegations are the code addresses of a type 4 authorization list, in
	// order; AuthorizationChainIDs holds each entry's chain ID (0 = any chain).
	Delegations           []common.Address
	AuthorizationChainIDs []*big.Int
}

// Facts extracts TxFacts from a transaction built by BuildTx. It returns
// an error wrapping ErrInvalidTx for a legacy transaction without chain ID.
func Facts(tx *types.Transaction) (TxFacts, error) {
	id, err := chainIDOf(tx)
	if err != nil {
		return TxFacts{}, err
	}
	f := TxFacts{
		Type:    tx.Type(),
		ChainID: id,
		To:      tx.To(),
		Value:   tx.Value(),
		MaxCost: tx.Cost(),
		Call:    DecodeCall(tx.Data()),
	}
	for _, a := range tx.SetCodeAuthorizations() {
		f.Delegations = append(f.Delegations, a.Address)
		f.AuthorizationChainIDs = append(f.AuthorizationChainIDs, a.ChainID.ToBig())
	}
	return f, nil
}
