package evm

import (
	"bytes"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"
)

// mutate returns a copy of data with b written at offset i.
func mutate(data []byte, i int, b ...byte) []byte {
	out := append([]byte{}, data...)
	copy(out[i:], b)
	return out
}

func TestCallEffectsStrict(t *testing.T) {
	pay := transferData(t, bob, big.NewInt(3))
	setAll := packCall(t, "setApprovalForAll(address,bool)", []abiArg{arg("address"), arg("bool")}, attacker, true)
	permit := packCall(t, "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)",
		[]abiArg{arg("address"), arg("address"), arg("uint256"), arg("uint256"), arg("uint8"), arg("bytes32"), arg("bytes32")},
		alice, bob, big.NewInt(1), big.NewInt(2), uint8(27), [32]byte{1}, [32]byte{2})
	p2approve := packCall(t, "approve(address,address,uint160,uint48)", []abiArg{arg("address"), arg("address"), arg("uint160"), arg("uint48")},
		tokenA, bob, big.NewInt(1), big.NewInt(2))
	mc := multicallData(t, pay)                                // head: offset 0x20; array: len 1, elem offset 0x20, bytes len 68
	exec := execTransactionData(t, bob, big.NewInt(0), nil, 0) // operation is head word 3
	batch := packCall(t, "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
		[]abiArg{arg("address"), arg("address"), arg("uint256[]"), arg("uint256[]"), arg("bytes")},
		alice, bob, []*big.Int{big.NewInt(1), big.NewInt(2)}, []*big.Int{big.NewInt(10)}, []byte{})
	tests := map[string]struct {
		data     []byte
		function string
	}{
		// Adversarial: each case is calldata an honest ABI encoder never
		// produces; decoding must refuse it rather than guess.
		"fail unknown selector":          {data: []byte{0xde, 0xad, 0xbe, 0xef, 0}},
		"fail shorter than a selector":   {data: []byte{0xa9, 0x05, 0x9c}},
		"fail transfer short":            {data: pay[:4+32+31], function: "transfer"},
		"fail dirty address word":        {data: mutate(pay, 4, 1), function: "transfer"},
		"fail dirty bool word":           {data: mutate(setAll, 4+32+31, 2), function: "setApprovalForAll"},
		"fail bool high bytes":           {data: mutate(setAll, 4+32, 1), function: "setApprovalForAll"},
		"fail uint8 v out of range":      {data: mutate(permit, 4+4*32+30, 1), function: "permit"},
		"fail uint160 out of range":      {data: mutate(p2approve, 4+2*32+11, 1), function: "approve"},
		"fail uint48 out of range":       {data: mutate(p2approve, 4+3*32+25, 1), function: "approve"},
		"fail Safe operation 2":          {data: mutate(exec, 4+3*32+31, 2), function: "execTransaction"},
		"fail unaligned offset":          {data: mutate(mc, 4+31, 0x21), function: "multicall"},
		"fail offset out of range":       {data: mutate(mc, 4+30, 0xff), function: "multicall"},
		"fail huge offset":               {data: mutate(mc, 4, 0xff), function: "multicall"},
		"fail array length too large":    {data: mutate(mc, 4+32+31, 9), function: "multicall"},
		"fail bytes length past the end": {data: mutate(mc, 4+3*32+31, 0xff), function: "multicall"},
		"fail nonzero bytes padding":     {data: mutate(mc, len(mc)-1, 1), function: "multicall"},
		"fail missing bytes padding":     {data: mc[:len(mc)-1], function: "multicall"},
		"fail batch lengths differ":      {data: batch, function: "safeBatchTransferFrom"},
		"fail multiSend truncated item": {
			data:     packCall(t, "multiSend(bytes)", []abiArg{arg("bytes")}, packMultiSend(multiSendItem{op: 0, to: bob, value: big.NewInt(1)})[:50]),
			function: "multiSend",
		},
		"fail multiSend operation 2": {
			data:     multiSendData(t, multiSendItem{op: 2, to: bob, value: big.NewInt(1)}),
			function: "multiSend",
		},
		"fail multiSend data length past the end": {
			data:     packCall(t, "multiSend(bytes)", []abiArg{arg("bytes")}, packMultiSend(multiSendItem{op: 0, to: bob, value: big.NewInt(1), data: pay})[:85+10]),
			function: "multiSend",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			want := Effect{Kind: EffectCall, Function: tc.function, Target: tokenA, DecodeFailed: true}
			if len(tc.data) >= 4 {
				want.Selector = sel(tc.data)
			}
			require.Equal(t, effectStrings([]Effect{want}), effectStrings(CallEffects(tokenA, tc.data)))
		})
	}
	t.Run("the well-formed originals decode", func(t *testing.T) {
		for _, d := range [][]byte{pay, setAll, permit, p2approve, mc, exec} {
			for _, e := range CallEffects(tokenA, d) {
				require.False(t, e.DecodeFailed, sel(d))
			}
		}
	})
	t.Run("empty data has no effects", func(t *testing.T) {
		require.Empty(t, CallEffects(tokenA, nil))
	})
}

func TestCallEffectsInnerFailure(t *testing.T) {
	// An unknown inner call fails alone; its siblings still decode.
	unknown := []byte{0xde, 0xad, 0xbe, 0xef}
	pay := transferData(t, bob, big.NewInt(3))
	got := CallEffects(router, multicallData(t, pay, unknown))
	require.Equal(t, effectStrings([]Effect{
		{Kind: EffectTokenTransfer, Function: "transfer", Selector: sel(pay), Target: router, Token: router, Counterparty: bob, Amount: big.NewInt(3), Depth: 1},
		{Kind: EffectCall, Selector: "0xdeadbeef", Target: router, Depth: 1, DecodeFailed: true},
	}), effectStrings(got))
}

func TestCallEffectsDepth(t *testing.T) {
	approve := approveData(t, attacker, big.NewInt(1))
	nest := func(levels int) []byte {
		d := approve
		for i := 0; i < levels; i++ {
			d = multicallData(t, d)
		}
		return d
	}
	tests := map[string]struct {
		levels int
		want   Effect
	}{
		"approve at the depth limit decodes": {
			levels: MaxEffectDepth,
			want:   Effect{Kind: EffectApprove, Function: "approve", Selector: sel(approve), Target: router, Token: router, Counterparty: attacker, Amount: big.NewInt(1), Depth: MaxEffectDepth},
		},
		// A call below the limit must not be judged by its selector alone.
		"fail approve below the depth limit": {
			levels: MaxEffectDepth + 1,
			want:   Effect{Kind: EffectCall, Function: "approve", Selector: sel(approve), Target: router, Depth: MaxEffectDepth + 1, DecodeFailed: true},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, effectStrings([]Effect{tc.want}), effectStrings(CallEffects(router, nest(tc.levels))))
		})
	}
}

func TestCallEffectsBounds(t *testing.T) {
	pay := transferData(t, bob, big.NewInt(3))
	many := func(n int, call []byte) [][]byte {
		out := make([][]byte, n)
		for i := range out {
			out[i] = call
		}
		return out
	}
	tests := map[string]struct {
		data []byte
		want int // effects; 0 means one failed decode of the whole call
	}{
		"MaxEffects inner calls decode":   {data: multicallData(t, many(MaxEffects, pay)...), want: MaxEffects},
		"fail one inner call too many":    {data: multicallData(t, many(MaxEffects+1, pay)...)},
		"fail nested fan-out past budget": {data: multicallData(t, many(200, multicallData(t, many(200, pay)...))...)},
		"fail ERC-1155 batch too long": {data: packCall(t, "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
			[]abiArg{arg("address"), arg("address"), arg("uint256[]"), arg("uint256[]"), arg("bytes")},
			alice, bob, zeros(MaxEffects+1), zeros(MaxEffects+1), []byte{})},
		"fail Multicall3 value calls past MaxEffects effects": {data: packCall(t, "aggregate3Value((address,bool,uint256,bytes)[])",
			[]abiArg{arg("tuple[]", comp("target", "address"), comp("allowFailure", "bool"), comp("value", "uint256"), comp("callData", "bytes"))},
			func() []mc3Call3Value {
				out := make([]mc3Call3Value, MaxEffects/2+1)
				for i := range out {
					out[i] = mc3Call3Value{tokenA, false, big.NewInt(1), pay}
				}
				return out
			}())},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := CallEffects(router, tc.data)
			if tc.want > 0 {
				require.Len(t, got, tc.want)
				return
			}
			require.Equal(t, effectStrings([]Effect{{Kind: EffectCall, Function: CallEffects(router, tc.data[:4])[0].Function, Selector: sel(tc.data), Target: router, DecodeFailed: true}}), effectStrings(got))
		})
	}
}

func TestCallEffectsKeepsDecodeCall(t *testing.T) {
	// DecodeCall (proxy intents, Facts) and CallEffects agree on the
	// token calls both know.
	pay := transferData(t, bob, big.NewInt(3))
	f := DecodeCall(pay)
	e := CallEffects(tokenA, pay)
	require.Len(t, e, 1)
	require.Equal(t, f.Selector, e[0].Selector)
	require.Equal(t, f.Function, e[0].Function)
	require.Equal(t, f.TokenRecipient, e[0].Counterparty)
	require.Equal(t, 0, f.TokenAmount.Cmp(e[0].Amount))
}

func FuzzCallEffects(f *testing.F) {
	t := f
	pay := transferData(t, bob, big.NewInt(3))
	approve := approveData(t, attacker, maxUint256)
	seeds := [][]byte{
		pay, approve,
		multicallData(t, pay, approve),
		multicallData(t, multicallData(t, multicallData(t, approve))),
		execTransactionData(t, router, big.NewInt(1), multiSendData(t, multiSendItem{op: 1, to: bob, value: big.NewInt(1), data: approve}), 1),
		packCall(t, "aggregate3Value((address,bool,uint256,bytes)[])",
			[]abiArg{arg("tuple[]", comp("target", "address"), comp("allowFailure", "bool"), comp("value", "uint256"), comp("callData", "bytes"))},
			[]mc3Call3Value{{tokenA, false, big.NewInt(5), pay}}),
		packCall(t, "transferFrom((address,address,uint160,address)[])",
			[]abiArg{arg("tuple[]", comp("from", "address"), comp("to", "address"), comp("amount", "uint160"), comp("token", "address"))},
			[]struct {
				From, To common.Address
				Amount   *big.Int
				Token    common.Address
			}{{alice, bob, big.NewInt(1), tokenA}}),
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := CallEffects(router, data)
		require.LessOrEqual(t, len(got), MaxEffects)
		for _, e := range got {
			require.LessOrEqual(t, e.Depth, MaxEffectDepth+1)
			require.Equal(t, e.DecodeFailed, e.Kind == EffectCall, "only EffectCall reports a failed decode")
			if e.Kind == EffectApprove && e.Amount != nil && IsUnlimitedAmount(e.Amount) {
				require.True(t, e.Unlimited)
			}
		}
		// Decoding is a pure function of its input.
		again := CallEffects(router, bytes.Clone(data))
		require.Equal(t, effectStrings(got), effectStrings(again))
	})
}

func zeros(n int) []*big.Int {
	out := make([]*big.Int, n)
	for i := range out {
		out[i] = new(big.Int)
	}
	return out
}
