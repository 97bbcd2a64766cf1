package evm

import (
	"bytes"
	"math/big"
	"reflect"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"
)

// ceMutate returns a copy of data with b written at offset i.
func ceMutate(data []byte, i int, b ...byte) []byte {
	out := append([]byte{}, data...)
	copy(out[i:], b)
	return out
}

func TestCallEffectsStrict(t *testing.T) {
	pay := ceTransferData(t, ceBob, big.NewInt(3))
	setAll := cePack(t, "setApprovalForAll(address,bool)", []ceABIArg{ceArg("address"), ceArg("bool")}, ceAttacker, true)
	permit := cePack(t, "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)",
		[]ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint256"), ceArg("uint256"), ceArg("uint8"), ceArg("bytes32"), ceArg("bytes32")},
		ceAlice, ceBob, big.NewInt(1), big.NewInt(2), uint8(27), [32]byte{1}, [32]byte{2})
	p2approve := cePack(t, "approve(address,address,uint160,uint48)", []ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint160"), ceArg("uint48")},
		ceToken, ceBob, big.NewInt(1), big.NewInt(2))
	mc := ceMulticallData(t, pay)                       // head: offset 0x20; array: len 1, elem offset 0x20, bytes len 68
	exec := ceExecData(t, ceBob, big.NewInt(0), nil, 0) // operation is head word 3
	batch := cePack(t, "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
		[]ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint256[]"), ceArg("uint256[]"), ceArg("bytes")},
		ceAlice, ceBob, []*big.Int{big.NewInt(1), big.NewInt(2)}, []*big.Int{big.NewInt(10)}, []byte{})
	tests := map[string]struct {
		data     []byte
		function string
	}{
		// Adversarial: each case is calldata an honest ABI encoder never
		// produces; decoding must refuse it rather than guess.
		"fail unknown selector":          {data: []byte{0xde, 0xad, 0xbe, 0xef, 0}},
		"fail shorter than a selector":   {data: []byte{0xa9, 0x05, 0x9c}},
		"fail transfer short":            {data: pay[:4+32+31], function: "transfer"},
		"fail dirty address word":        {data: ceMutate(pay, 4, 1), function: "transfer"},
		"fail dirty bool word":           {data: ceMutate(setAll, 4+32+31, 2), function: "setApprovalForAll"},
		"fail bool high bytes":           {data: ceMutate(setAll, 4+32, 1), function: "setApprovalForAll"},
		"fail uint8 v out of range":      {data: ceMutate(permit, 4+4*32+30, 1), function: "permit"},
		"fail uint160 out of range":      {data: ceMutate(p2approve, 4+2*32+11, 1), function: "approve"},
		"fail uint48 out of range":       {data: ceMutate(p2approve, 4+3*32+25, 1), function: "approve"},
		"fail Safe operation 2":          {data: ceMutate(exec, 4+3*32+31, 2), function: "execTransaction"},
		"fail unaligned offset":          {data: ceMutate(mc, 4+31, 0x21), function: "multicall"},
		"fail offset out of range":       {data: ceMutate(mc, 4+30, 0xff), function: "multicall"},
		"fail huge offset":               {data: ceMutate(mc, 4, 0xff), function: "multicall"},
		"fail array length too large":    {data: ceMutate(mc, 4+32+31, 9), function: "multicall"},
		"fail bytes length past the end": {data: ceMutate(mc, 4+3*32+31, 0xff), function: "multicall"},
		"fail nonzero bytes padding":     {data: ceMutate(mc, len(mc)-1, 1), function: "multicall"},
		"fail missing bytes padding":     {data: mc[:len(mc)-1], function: "multicall"},
		"fail batch lengths differ":      {data: batch, function: "safeBatchTransferFrom"},
		"fail multiSend truncated item": {
			data:     cePack(t, "multiSend(bytes)", []ceABIArg{ceArg("bytes")}, cePackMultiSend(ceMultiSendItem{op: 0, to: ceBob, value: big.NewInt(1)})[:50]),
			function: "multiSend",
		},
		"fail multiSend operation 2": {
			data:     ceMultiSendData(t, ceMultiSendItem{op: 2, to: ceBob, value: big.NewInt(1)}),
			function: "multiSend",
		},
		"fail multiSend data length past the end": {
			data:     cePack(t, "multiSend(bytes)", []ceABIArg{ceArg("bytes")}, cePackMultiSend(ceMultiSendItem{op: 0, to: ceBob, value: big.NewInt(1), data: pay})[:85+10]),
			function: "multiSend",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			want := Effect{Kind: EffectCall, Function: tc.function, Target: ceToken, DecodeFailed: true}
			if len(tc.data) >= 4 {
				want.Selector = ceSel(tc.data)
			}
			require.Equal(t, ceEffectStrings([]Effect{want}), ceEffectStrings(CallEffects(ceToken, tc.data)))
		})
	}
	t.Run("the well-formed originals decode", func(t *testing.T) {
		for _, d := range [][]byte{pay, setAll, permit, p2approve, mc, exec} {
			for _, e := range CallEffects(ceToken, d) {
				require.False(t, e.DecodeFailed, ceSel(d))
			}
		}
	})
	t.Run("empty data has no effects", func(t *testing.T) {
		require.Empty(t, CallEffects(ceToken, nil))
	})
}

func TestCallEffectsInnerFailure(t *testing.T) {
	// An unknown inner call fails alone; its siblings still decode.
	unknown := []byte{0xde, 0xad, 0xbe, 0xef}
	pay := ceTransferData(t, ceBob, big.NewInt(3))
	got := CallEffects(ceRouter, ceMulticallData(t, pay, unknown))
	require.Equal(t, ceEffectStrings([]Effect{
		{Kind: EffectTokenTransfer, Function: "transfer", Selector: ceSel(pay), Target: ceRouter, Token: ceRouter, Counterparty: ceBob, Amount: big.NewInt(3), Depth: 1},
		{Kind: EffectCall, Selector: "0xdeadbeef", Target: ceRouter, Depth: 1, DecodeFailed: true},
	}), ceEffectStrings(got))
}

func TestCallEffectsDepth(t *testing.T) {
	approve := ceApproveData(t, ceAttacker, big.NewInt(1))
	nest := func(levels int) []byte {
		d := approve
		for i := 0; i < levels; i++ {
			d = ceMulticallData(t, d)
		}
		return d
	}
	tests := map[string]struct {
		levels int
		want   Effect
	}{
		"approve at the depth limit decodes": {
			levels: MaxEffectDepth,
			want:   Effect{Kind: EffectApprove, Function: "approve", Selector: ceSel(approve), Target: ceRouter, Token: ceRouter, Counterparty: ceAttacker, Amount: big.NewInt(1), Depth: MaxEffectDepth},
		},
		// A call below the limit must not be judged by its selector alone.
		"fail approve below the depth limit": {
			levels: MaxEffectDepth + 1,
			want:   Effect{Kind: EffectCall, Function: "approve", Selector: ceSel(approve), Target: ceRouter, Depth: MaxEffectDepth + 1, DecodeFailed: true},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, ceEffectStrings([]Effect{tc.want}), ceEffectStrings(CallEffects(ceRouter, nest(tc.levels))))
		})
	}
}

func TestCallEffectsBounds(t *testing.T) {
	pay := ceTransferData(t, ceBob, big.NewInt(3))
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
		"MaxEffects inner calls decode":   {data: ceMulticallData(t, many(MaxEffects, pay)...), want: MaxEffects},
		"fail one inner call too many":    {data: ceMulticallData(t, many(MaxEffects+1, pay)...)},
		"fail nested fan-out past budget": {data: ceMulticallData(t, many(200, ceMulticallData(t, many(200, pay)...))...)},
		"fail ERC-1155 batch too long": {data: cePack(t, "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
			[]ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint256[]"), ceArg("uint256[]"), ceArg("bytes")},
			ceAlice, ceBob, ceZeros(MaxEffects+1), ceZeros(MaxEffects+1), []byte{})},
		"fail Multicall3 value calls past MaxEffects effects": {data: cePack(t, "aggregate3Value((address,bool,uint256,bytes)[])",
			[]ceABIArg{ceArg("tuple[]", ceComp("target", "address"), ceComp("allowFailure", "bool"), ceComp("value", "uint256"), ceComp("callData", "bytes"))},
			func() []ceMC3Call3Value {
				out := make([]ceMC3Call3Value, MaxEffects/2+1)
				for i := range out {
					out[i] = ceMC3Call3Value{ceToken, false, big.NewInt(1), pay}
				}
				return out
			}())},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := CallEffects(ceRouter, tc.data)
			if tc.want > 0 {
				require.Len(t, got, tc.want)
				return
			}
			require.Equal(t, ceEffectStrings([]Effect{{Kind: EffectCall, Function: CallEffects(ceRouter, tc.data[:4])[0].Function, Selector: ceSel(tc.data), Target: ceRouter, DecodeFailed: true}}), ceEffectStrings(got))
		})
	}
}

func TestCallEffectsKeepsDecodeCall(t *testing.T) {
	// DecodeCall (proxy intents, Facts) and CallEffects agree on the
	// token calls both know.
	pay := ceTransferData(t, ceBob, big.NewInt(3))
	f := DecodeCall(pay)
	e := CallEffects(ceToken, pay)
	require.Len(t, e, 1)
	require.Equal(t, f.Selector, e[0].Selector)
	require.Equal(t, f.Function, e[0].Function)
	require.Equal(t, f.TokenRecipient, e[0].Counterparty)
	require.Equal(t, 0, f.TokenAmount.Cmp(e[0].Amount))
}

func FuzzCallEffects(f *testing.F) {
	t := f
	pay := ceTransferData(t, ceBob, big.NewInt(3))
	approve := ceApproveData(t, ceAttacker, maxUint256)
	seeds := [][]byte{
		pay, approve,
		ceMulticallData(t, pay, approve),
		ceMulticallData(t, ceMulticallData(t, ceMulticallData(t, approve))),
		ceExecData(t, ceRouter, big.NewInt(1), ceMultiSendData(t, ceMultiSendItem{op: 1, to: ceBob, value: big.NewInt(1), data: approve}), 1),
		cePack(t, "aggregate3Value((address,bool,uint256,bytes)[])",
			[]ceABIArg{ceArg("tuple[]", ceComp("target", "address"), ceComp("allowFailure", "bool"), ceComp("value", "uint256"), ceComp("callData", "bytes"))},
			[]ceMC3Call3Value{{ceToken, false, big.NewInt(5), pay}}),
		cePack(t, "transferFrom((address,address,uint160,address)[])",
			[]ceABIArg{ceArg("tuple[]", ceComp("from", "address"), ceComp("to", "address"), ceComp("amount", "uint160"), ceComp("token", "address"))},
			[]struct {
				From, To common.Address
				Amount   *big.Int
				Token    common.Address
			}{{ceAlice, ceBob, big.NewInt(1), ceToken}}),
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got := CallEffects(ceRouter, data)
		require.LessOrEqual(t, len(got), MaxEffects)
		for _, e := range got {
			require.LessOrEqual(t, e.Depth, MaxEffectDepth+1)
			require.Equal(t, e.DecodeFailed, e.Kind == EffectCall, "only EffectCall reports a failed decode")
			if e.Kind == EffectApprove && e.Amount != nil && IsUnlimitedAmount(e.Amount) {
				require.True(t, e.Unlimited)
			}
		}
		// Decoding is a pure function of its input.
		again := CallEffects(ceRouter, bytes.Clone(data))
		require.Equal(t, ceEffectStrings(got), ceEffectStrings(again))
	})
}

func ceZeros(n int) []*big.Int {
	out := make([]*big.Int, n)
	for i := range out {
		out[i] = new(big.Int)
	}
	return out
}

// FuzzCallABITupleMatchesGoEthereum checks the strict reader against
// go-ethereum's decoder: whatever the reader accepts, go-ethereum decodes
// to the same values (the reader may refuse more, never read differently).
func FuzzCallABITupleMatchesGoEthereum(f *testing.F) {
	pay := ceTransferData(f, ceBob, big.NewInt(3))
	bytesArr, err := abi.NewType("bytes[]", "", nil)
	require.NoError(f, err)
	callsArr, err := abi.NewType("tuple[]", "", []abi.ArgumentMarshaling{ceComp("target", "address"), ceComp("allowFailure", "bool"),
		ceComp("value", "uint256"), ceComp("callData", "bytes")})
	require.NoError(f, err)
	f.Add(byte(0), ceMulticallData(f, pay, nil, pay[:5])[4:])
	f.Add(byte(1), cePack(f, "aggregate3Value((address,bool,uint256,bytes)[])",
		[]ceABIArg{ceArg("tuple[]", ceComp("target", "address"), ceComp("allowFailure", "bool"), ceComp("value", "uint256"), ceComp("callData", "bytes"))},
		[]ceMC3Call3Value{{ceToken, true, big.NewInt(5), pay}, {ceBob, false, big.NewInt(0), nil}})[4:])
	f.Fuzz(func(t *testing.T, which byte, data []byte) {
		a := newCallABITuple(data)
		if which%2 == 0 {
			n, elems := a.array(0, 1, MaxEffects)
			var ours [][]byte
			for j := 0; j < n && *a.ok; j++ {
				ours = append(ours, elems.bytes(j))
			}
			if !*a.ok {
				return
			}
			vals, err := abi.Arguments{{Type: bytesArr}}.UnpackValues(data)
			require.NoError(t, err)
			theirs := vals[0].([][]byte)
			require.Len(t, theirs, len(ours))
			for j := range ours {
				require.True(t, bytes.Equal(ours[j], theirs[j]))
			}
			return
		}
		type call struct {
			target common.Address
			flag   bool
			value  *big.Int
			data   []byte
		}
		n, elems := a.array(0, 1, MaxEffects)
		var ours []call
		for j := 0; j < n && *a.ok; j++ {
			e := elems.at(j)
			ours = append(ours, call{e.addr(0), e.boolean(1), e.uint(2, 256), e.bytes(3)})
		}
		if !*a.ok {
			return
		}
		vals, err := abi.Arguments{{Type: callsArr}}.UnpackValues(data)
		require.NoError(t, err)
		theirs := reflect.ValueOf(vals[0])
		require.Equal(t, len(ours), theirs.Len())
		for j, c := range ours {
			v := theirs.Index(j)
			require.Equal(t, c.target, v.FieldByName("Target").Interface().(common.Address))
			require.Equal(t, c.flag, v.FieldByName("AllowFailure").Bool())
			require.Zero(t, c.value.Cmp(v.FieldByName("Value").Interface().(*big.Int)))
			require.True(t, bytes.Equal(c.data, v.FieldByName("CallData").Bytes()))
		}
	})
}
