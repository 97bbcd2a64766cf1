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
// Decoding is strict (see abiTuple): anything an honest ABI encoder would
// not produce is a failed decode, never a guess.
func CallEffects(to common.Address, data []byte) []Effect {
	if len(data) == 0 {
		return nil
	}
	d := &effectDecoder{}
	d.call(to, data, 0, common.Address{})
	if d.overflow || len(d.effects) > MaxEffects {
		return []Effect{failedCall(to, data, 0)}
	}
	return d.effects
}

// innerCall is one call a wrapper makes.
type innerCall struct {
	target common.Address
	value  *big.Int
	data   []byte
	// from is whose assets the inner call moves when not the signer's (the
	// Safe of execTransaction); zero inherits the wrapper's.
	from common.Address
}

// callSpec decodes the arguments of one known function. It returns the
// call's own effects (Kind and arguments; the decoder fills Function,
// Selector, Target, Depth) and the inner calls it wraps. args.ok false
// after it returns means malformed.
type callSpec struct {
	name   string
	decode func(to common.Address, args abiTuple) ([]Effect, []innerCall)
}

type effectDecoder struct {
	effects  []Effect
	calls    int
	overflow bool
}

func selectorString(data []byte) string {
	if len(data) < 4 {
		return ""
	}
	return "0x" + hex.EncodeToString(data[:4])
}

func failedCall(to common.Address, data []byte, depth int) Effect {
	e := Effect{Kind: EffectCall, Selector: selectorString(data), Target: to, Depth: depth, DecodeFailed: true}
	if len(data) >= 4 {
		if s, ok := callSpecs[[4]byte(data[:4])]; ok {
			e.Function = s.name
		}
	}
	return e
}

func (d *effectDecoder) add(e Effect) {
	if len(d.effects) >= MaxEffects {
		d.overflow = true
		return
	}
	d.effects = append(d.effects, e)
}

// call decodes one call at depth; from (when set) replaces a zero From.
func (d *effectDecoder) call(to common.Address, data []byte, depth int, from common.Address) {
	if len(data) == 0 || d.overflow {
		return
	}
	if depth > MaxEffectDepth || len(data) < 4 {
		d.add(withFrom(failedCall(to, data, depth), from))
		return
	}
	spec, known := callSpecs[[4]byte(data[:4])]
	if !known {
		d.add(withFrom(failedCall(to, data, depth), from))
		return
	}
	args := newABITuple(data[4:])
	own, inner := spec.decode(to, args)
	if !*args.ok {
		d.add(withFrom(failedCall(to, data, depth), from))
		return
	}
	sel := selectorString(data)
	for _, e := range own {
		e.Function, e.Selector, e.Target, e.Depth = spec.name, sel, to, depth
		d.add(withFrom(e, from))
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
			d.add(withFrom(Effect{Kind: EffectNativeTransfer, Counterparty: ic.target, Amount: ic.value, Depth: depth + 1}, innerFrom))
		}
		d.call(ic.target, ic.data, depth+1, innerFrom)
	}
}

func withFrom(e Effect, from common.Address) Effect {
	if e.From == (common.Address{}) {
		e.From = from
	}
	return e
}

// callSpecs maps selectors to decoders. Signatures are hashed at init so
// the table cannot drift from the functions it names.
var callSpecs = map[[4]byte]callSpec{}

func register(signature, name string, decode func(common.Address, abiTuple) ([]Effect, []innerCall)) {
	var sel [4]byte
	copy(sel[:], keccakSelector(signature))
	if _, dup := callSpecs[sel]; dup {
		panic("evm: duplicate selector for " + signature)
	}
	callSpecs[sel] = callSpec{name: name, decode: decode}
}
