package evm

import (
	"encoding/hex"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// CallEffects decodes the calldata of a call to `to` into the effects
// guardrails judge (see Effect). Empty data has no effects. Unknown
// selectors and malformed arguments give an EffectCall with DecodeFailed.
//
// Wrappers (Safe execTransaction and multiSend, Multicall3, multicall
// self-calls) are unwrapped up to MaxEffectDepth; a call deeper than that
// is a failed decode. An inner call's value adds an EffectNativeTransfer to
// its target. A delegatecall (Safe operation 1) is an EffectPrivileged on
// top of its inner call's effects. A call whose effects or inner calls
// exceed MaxEffects is reported as one failed decode of the whole call.
// Decoding is strict (see callABITuple): anything an honest ABI encoder would
// not produce is a failed decode, never a guess.
//
// Known calls, by selector (the contract called is not checked: a selector
// means the same everywhere):
//   - tokens: ERC-20 transfer, transferFrom, approve, increaseAllowance;
//     ERC-721 safeTransferFrom (both), setApprovalForAll; ERC-1155
//     safeTransferFrom, safeBatchTransferFrom; EIP-2612 and DAI permit.
//     ERC-20 and ERC-721 share transferFrom and approve: the last word is
//     Amount and TokenID stays nil.
//   - Permit2: approve(token,spender,uint160,uint48), permit (single and
//     batch), transferFrom (single and batch); max uint160 is unlimited.
//   - privileged: upgradeTo, upgradeToAndCall (its data is checked, not
//     unwrapped), changeAdmin, transferOwnership, renounceOwnership, Safe
//     addOwnerWithThreshold, removeOwner, swapOwner, changeThreshold,
//     enableModule, disableModule, setGuard, setFallbackHandler.
//   - wrappers: Safe execTransaction (inner effects move the Safe's
//     assets: From is the Safe), Safe multiSend, Multicall3 aggregate,
//     tryAggregate, aggregate3, aggregate3Value, blockAndAggregate,
//     tryBlockAndAggregate, and multicall(bytes[]) / multicall(uint256,
//     bytes[]) (calls to `to` itself).
func CallEffects(to common.Address, data []byte) []Effect {
	if len(data) == 0 {
		return nil
	}
	loadCallSpecs()
	d := &callEffectDecoder{}
	d.call(to, data, 0, common.Address{})
	if d.overflow || len(d.effects) > MaxEffects {
		return []Effect{callFailedEffect(to, data, 0)}
	}
	return d.effects
}

// callInner is one call a wrapper makes.
type callInner struct {
	target common.Address
	value  *big.Int
	data   []byte
	// from is whose assets the inner call moves when not the signer's (the
	// Safe of execTransaction); zero inherits the wrapper's.
	from common.Address
}

// callSpecEntry decodes the arguments of one known function. It returns the
// call's own effects (Kind and arguments; the decoder fills Function,
// Selector, Target, Depth) and the inner calls it wraps. args.ok false
// after it returns means malformed.
type callSpecEntry struct {
	name   string
	decode func(to common.Address, args callABITuple) ([]Effect, []callInner)
}

type callEffectDecoder struct {
	effects  []Effect
	calls    int
	overflow bool
}

func callSelectorString(data []byte) string {
	if len(data) < 4 {
		return ""
	}
	return "0x" + hex.EncodeToString(data[:4])
}

func callFailedEffect(to common.Address, data []byte, depth int) Effect {
	e := Effect{Kind: EffectCall, Selector: callSelectorString(data), Target: to, Depth: depth, DecodeFailed: true}
	if len(data) >= 4 {
		if s, ok := callSpecs[[4]byte(data[:4])]; ok {
			e.Function = s.name
		}
	}
	return e
}

func (d *callEffectDecoder) add(e Effect) {
	if len(d.effects) >= MaxEffects {
		d.overflow = true
		return
	}
	d.effects = append(d.effects, e)
}

// call decodes one call at depth; from (when set) replaces a zero From.
func (d *callEffectDecoder) call(to common.Address, data []byte, depth int, from common.Address) {
	if len(data) == 0 || d.overflow {
		return
	}
	if depth > MaxEffectDepth || len(data) < 4 {
		d.add(callWithFrom(callFailedEffect(to, data, depth), from))
		return
	}
	spec, known := callSpecs[[4]byte(data[:4])]
	if !known {
		d.add(callWithFrom(callFailedEffect(to, data, depth), from))
		return
	}
	args := newCallABITuple(data[4:])
	own, inner := spec.decode(to, args)
	if !*args.ok {
		d.add(callWithFrom(callFailedEffect(to, data, depth), from))
		return
	}
	selector := callSelectorString(data)
	for _, e := range own {
		e.Function, e.Selector, e.Target, e.Depth = spec.name, selector, to, depth
		d.add(callWithFrom(e, from))
	}
	for _, ic := range inner {
		d.calls++
		if d.calls > MaxEffects {
			d.overflow = true
			return
		}
		innerFrom := from
		if ic.from != (common.Address{}) {
			innerFrom = ic.from
		}
		if ic.value != nil && ic.value.Sign() > 0 {
			d.add(callWithFrom(Effect{Kind: EffectNativeTransfer, Counterparty: ic.target, Amount: ic.value, Depth: depth + 1}, innerFrom))
		}
		d.call(ic.target, ic.data, depth+1, innerFrom)
	}
}

func callWithFrom(e Effect, from common.Address) Effect {
	if e.From == (common.Address{}) {
		e.From = from
	}
	return e
}

// callSpecs maps selectors to decoders (filled by loadCallSpecs; read
// only afterwards). Signatures are hashed when it is filled so the table
// cannot drift from the functions it names.
var callSpecs = map[[4]byte]callSpecEntry{}

func registerCall(signature, name string, decode func(common.Address, callABITuple) ([]Effect, []callInner)) {
	var selector [4]byte
	copy(selector[:], callSelector(signature))
	if _, dup := callSpecs[selector]; dup {
		panic("evm: duplicate selector for " + signature)
	}
	callSpecs[selector] = callSpecEntry{name: name, decode: decode}
}
