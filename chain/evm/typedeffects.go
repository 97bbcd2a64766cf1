package evm

import (
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// TypedDataEffects recognises the EIP-712 standards that move assets or
// grant rights and returns the standard's name and its effects (see
// Effect). Typed data of no known standard gives "" and no effects; a
// known standard whose message is malformed gives an error wrapping
// ErrInvalidTypedData.
//
// TODO(issue 12, typed-data helper): decode the standards the issue lists.
func TypedDataEffects(td apitypes.TypedData) (standard string, effects []Effect, err error) {
	return "", nil, nil
}
