package evm

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// Safe operations: 0 call, 1 delegatecall.
const (
	callSafeOpCall         = 0
	callSafeOpDelegateCall = 1
)

// registerWrapperCalls: calls that make other calls. The wrapper adds no
// effect of its own except EffectPrivileged for a delegatecall.
func registerWrapperCalls() {
	// Safe execTransaction(to, value, data, operation, safeTxGas, baseGas,
	// gasPrice, gasToken, refundReceiver, signatures): the inner call
	// moves the Safe's assets.
	registerCall("execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)", "execTransaction",
		func(safe common.Address, a callABITuple) ([]Effect, []callInner) {
			ic := callInner{target: a.addr(0), value: a.uint(1, 256), data: a.bytes(2), from: safe}
			op := a.small(3, callSafeOpDelegateCall)
			for i := 4; i <= 6; i++ {
				a.uint(i, 256)
			}
			a.addr(7)
			a.addr(8)
			a.bytes(9)
			var own []Effect
			if op == callSafeOpDelegateCall {
				own = append(own, Effect{Kind: EffectPrivileged, Counterparty: ic.target})
			}
			return own, []callInner{ic}
		})
	// Safe multiSend(bytes): packed (operation uint8, to address, value
	// uint256, dataLength uint256, data) items.
	registerCall("multiSend(bytes)", "multiSend", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		b := a.bytes(0)
		if !*a.ok {
			return nil, nil
		}
		var own []Effect
		var inner []callInner
		for len(b) > 0 {
			if len(b) < 85 || b[0] > callSafeOpDelegateCall || len(inner) >= MaxEffects {
				a.fail()
				return nil, nil
			}
			n := new(big.Int).SetBytes(b[53:85])
			if !n.IsInt64() || n.Int64() > int64(len(b)-85) {
				a.fail()
				return nil, nil
			}
			ic := callInner{
				target: common.BytesToAddress(b[1:21]),
				value:  new(big.Int).SetBytes(b[21:53]),
				data:   b[85 : 85+int(n.Int64())],
			}
			if b[0] == callSafeOpDelegateCall {
				own = append(own, Effect{Kind: EffectPrivileged, Counterparty: ic.target})
			}
			inner = append(inner, ic)
			b = b[85+int(n.Int64()):]
		}
		return own, inner
	})
	// multicall(bytes[]) and multicall(deadline, bytes[]): calls to the
	// contract itself, on behalf of the caller.
	selfCalls := func(to common.Address, a callABITuple, head int) []callInner {
		n, elems := a.array(head, 1, MaxEffects)
		inner := make([]callInner, 0, n)
		for j := 0; j < n && *a.ok; j++ {
			inner = append(inner, callInner{target: to, data: elems.bytes(j)})
		}
		return inner
	}
	registerCall("multicall(bytes[])", "multicall", func(to common.Address, a callABITuple) ([]Effect, []callInner) {
		return nil, selfCalls(to, a, 0)
	})
	registerCall("multicall(uint256,bytes[])", "multicall", func(to common.Address, a callABITuple) ([]Effect, []callInner) {
		a.uint(0, 256)
		return nil, selfCalls(to, a, 1)
	})
	registerMulticall3()
}

// registerMulticall3: Multicall3's batch calls. Their calls' tuple shapes
// differ only in the flags and value in front of the call data.
func registerMulticall3() {
	// calls reads the array at head word `head`; each element is a tuple
	// (target, [allowFailure bool], [value uint256], callData).
	calls := func(a callABITuple, head int, withFlag, withValue bool) []callInner {
		n, elems := a.array(head, 1, MaxEffects)
		inner := make([]callInner, 0, n)
		for j := 0; j < n && *a.ok; j++ {
			t := elems.at(j)
			ic := callInner{target: t.addr(0)}
			i := 1
			if withFlag {
				t.boolean(i)
				i++
			}
			if withValue {
				ic.value = t.uint(i, 256)
				i++
			}
			ic.data = t.bytes(i)
			inner = append(inner, ic)
		}
		return inner
	}
	plain := func(sig, name string) {
		registerCall(sig, name, func(_ common.Address, a callABITuple) ([]Effect, []callInner) { return nil, calls(a, 0, false, false) })
	}
	flagged := func(sig, name string) {
		registerCall(sig, name, func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
			a.boolean(0)
			return nil, calls(a, 1, false, false)
		})
	}
	plain("aggregate((address,bytes)[])", "aggregate")
	plain("blockAndAggregate((address,bytes)[])", "blockAndAggregate")
	flagged("tryAggregate(bool,(address,bytes)[])", "tryAggregate")
	flagged("tryBlockAndAggregate(bool,(address,bytes)[])", "tryBlockAndAggregate")
	registerCall("aggregate3((address,bool,bytes)[])", "aggregate3", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		return nil, calls(a, 0, true, false)
	})
	registerCall("aggregate3Value((address,bool,uint256,bytes)[])", "aggregate3Value", func(_ common.Address, a callABITuple) ([]Effect, []callInner) {
		return nil, calls(a, 0, true, true)
	})
}
