package evm

import (
	"github.com/ethereum/go-ethereum/common"
)

// CallEffects decodes the calldata of a call to `to` into the effects
// guardrails judge (see Effect). Empty data has no effects. Unknown
// selectors and malformed arguments give an EffectCall with DecodeFailed.
//
// TODO(issue 12, calldata helper): decode the calls the issue lists.
func CallEffects(to common.Address, data []byte) []Effect {
	if len(data) == 0 {
		return nil
	}
	c := DecodeCall(data)
	return []Effect{{Kind: EffectCall, Function: c.Function, Selector: c.Selector, Target: to, DecodeFailed: true}}
}
