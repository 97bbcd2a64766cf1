package evm

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"
)

var (
	ceToken    = ceAddr(0x70)
	ceAlice    = ceAddr(0xa1)
	ceBob      = ceAddr(0xb0)
	ceAttacker = ceAddr(0xee)
	ceSafe     = ceAddr(0x5a)
	ceMC3      = ceAddr(0x3c)
	cePermit2  = ceAddr(0x22)
	ceRouter   = ceAddr(0x4e)
	ceImpl     = ceAddr(0x1e)
)

func ceTransferData(t testing.TB, to common.Address, amount *big.Int) []byte {
	return cePack(t, "transfer(address,uint256)", []ceABIArg{ceArg("address"), ceArg("uint256")}, to, amount)
}

func ceApproveData(t testing.TB, spender common.Address, amount *big.Int) []byte {
	return cePack(t, "approve(address,uint256)", []ceABIArg{ceArg("address"), ceArg("uint256")}, spender, amount)
}

func ceExecData(t testing.TB, to common.Address, value *big.Int, data []byte, op uint8) []byte {
	return cePack(t, "execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)",
		[]ceABIArg{ceArg("address"), ceArg("uint256"), ceArg("bytes"), ceArg("uint8"), ceArg("uint256"), ceArg("uint256"), ceArg("uint256"), ceArg("address"), ceArg("address"), ceArg("bytes")},
		to, value, data, op, big.NewInt(0), big.NewInt(0), big.NewInt(0), common.Address{}, common.Address{}, []byte{1, 2, 3})
}

func ceMulticallData(t testing.TB, calls ...[]byte) []byte {
	return cePack(t, "multicall(bytes[])", []ceABIArg{ceArg("bytes[]")}, calls)
}

func ceMultiSendData(t testing.TB, items ...ceMultiSendItem) []byte {
	return cePack(t, "multiSend(bytes)", []ceABIArg{ceArg("bytes")}, cePackMultiSend(items...))
}

type ceMC3Call struct {
	Target   common.Address
	CallData []byte
}

type ceMC3Call3Value struct {
	Target       common.Address
	AllowFailure bool
	Value        *big.Int
	CallData     []byte
}

var ceMC3CallComps = []abi.ArgumentMarshaling{ceComp("target", "address"), ceComp("callData", "bytes")}

func TestCallEffectsTokens(t *testing.T) {
	max := new(big.Int).Set(maxUint256)
	erc721Data := cePack(t, "safeTransferFrom(address,address,uint256,bytes)",
		[]ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint256"), ceArg("bytes")}, ceAlice, ceBob, big.NewInt(7), []byte("hi"))
	tests := map[string]struct {
		data []byte
		want []Effect
	}{
		"transfer": {
			data: ceTransferData(t, ceBob, big.NewInt(1500)),
			want: []Effect{{Kind: EffectTokenTransfer, Function: "transfer", Token: ceToken, Counterparty: ceBob, Amount: big.NewInt(1500)}},
		},
		"transferFrom (ERC-20 or ERC-721: amount, no token id)": {
			data: cePack(t, "transferFrom(address,address,uint256)", []ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint256")}, ceAlice, ceBob, big.NewInt(9)),
			want: []Effect{{Kind: EffectTokenTransfer, Function: "transferFrom", Token: ceToken, From: ceAlice, Counterparty: ceBob, Amount: big.NewInt(9)}},
		},
		"approve unlimited": {
			data: ceApproveData(t, ceAttacker, max),
			want: []Effect{{Kind: EffectApprove, Function: "approve", Token: ceToken, Counterparty: ceAttacker, Amount: max, Unlimited: true}},
		},
		"approve limited": {
			data: ceApproveData(t, ceBob, big.NewInt(5)),
			want: []Effect{{Kind: EffectApprove, Function: "approve", Token: ceToken, Counterparty: ceBob, Amount: big.NewInt(5)}},
		},
		"increaseAllowance 2^255 is unlimited": {
			data: cePack(t, "increaseAllowance(address,uint256)", []ceABIArg{ceArg("address"), ceArg("uint256")}, ceBob, unlimitedThreshold),
			want: []Effect{{Kind: EffectApprove, Function: "increaseAllowance", Token: ceToken, Counterparty: ceBob, Amount: unlimitedThreshold, Unlimited: true}},
		},
		"setApprovalForAll": {
			data: cePack(t, "setApprovalForAll(address,bool)", []ceABIArg{ceArg("address"), ceArg("bool")}, ceAttacker, true),
			want: []Effect{{Kind: EffectApprovalForAll, Function: "setApprovalForAll", Token: ceToken, Counterparty: ceAttacker, Approved: true}},
		},
		"ERC-721 safeTransferFrom": {
			data: cePack(t, "safeTransferFrom(address,address,uint256)", []ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint256")}, ceAlice, ceBob, big.NewInt(7)),
			want: []Effect{{Kind: EffectTokenTransfer, Function: "safeTransferFrom", Token: ceToken, From: ceAlice, Counterparty: ceBob, Amount: big.NewInt(1), TokenID: big.NewInt(7)}},
		},
		"ERC-721 safeTransferFrom with data": {
			data: erc721Data,
			want: []Effect{{Kind: EffectTokenTransfer, Function: "safeTransferFrom", Token: ceToken, From: ceAlice, Counterparty: ceBob, Amount: big.NewInt(1), TokenID: big.NewInt(7)}},
		},
		"ERC-1155 safeTransferFrom": {
			data: cePack(t, "safeTransferFrom(address,address,uint256,uint256,bytes)",
				[]ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint256"), ceArg("uint256"), ceArg("bytes")}, ceAlice, ceBob, big.NewInt(3), big.NewInt(40), []byte{}),
			want: []Effect{{Kind: EffectTokenTransfer, Function: "safeTransferFrom", Token: ceToken, From: ceAlice, Counterparty: ceBob, Amount: big.NewInt(40), TokenID: big.NewInt(3)}},
		},
		"ERC-1155 safeBatchTransferFrom": {
			data: cePack(t, "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
				[]ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint256[]"), ceArg("uint256[]"), ceArg("bytes")},
				ceAlice, ceBob, []*big.Int{big.NewInt(1), big.NewInt(2)}, []*big.Int{big.NewInt(10), big.NewInt(20)}, []byte("x")),
			want: []Effect{
				{Kind: EffectTokenTransfer, Function: "safeBatchTransferFrom", Token: ceToken, From: ceAlice, Counterparty: ceBob, Amount: big.NewInt(10), TokenID: big.NewInt(1)},
				{Kind: EffectTokenTransfer, Function: "safeBatchTransferFrom", Token: ceToken, From: ceAlice, Counterparty: ceBob, Amount: big.NewInt(20), TokenID: big.NewInt(2)},
			},
		},
		"EIP-2612 permit": {
			data: cePack(t, "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)",
				[]ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint256"), ceArg("uint256"), ceArg("uint8"), ceArg("bytes32"), ceArg("bytes32")},
				ceAlice, ceAttacker, max, big.NewInt(1700000000), uint8(27), [32]byte{1}, [32]byte{2}),
			want: []Effect{{Kind: EffectApprove, Function: "permit", Token: ceToken, From: ceAlice, Counterparty: ceAttacker, Amount: max, Unlimited: true, Deadline: big.NewInt(1700000000)}},
		},
		"DAI permit allowed": {
			data: cePack(t, "permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)",
				[]ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint256"), ceArg("uint256"), ceArg("bool"), ceArg("uint8"), ceArg("bytes32"), ceArg("bytes32")},
				ceAlice, ceBob, big.NewInt(4), big.NewInt(0), true, uint8(28), [32]byte{1}, [32]byte{2}),
			want: []Effect{{Kind: EffectApprove, Function: "permit", Token: ceToken, From: ceAlice, Counterparty: ceBob, Amount: max, Unlimited: true, Deadline: big.NewInt(0)}},
		},
		"DAI permit revoke": {
			data: cePack(t, "permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)",
				[]ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint256"), ceArg("uint256"), ceArg("bool"), ceArg("uint8"), ceArg("bytes32"), ceArg("bytes32")},
				ceAlice, ceBob, big.NewInt(4), big.NewInt(9), false, uint8(28), [32]byte{1}, [32]byte{2}),
			want: []Effect{{Kind: EffectApprove, Function: "permit", Token: ceToken, From: ceAlice, Counterparty: ceBob, Amount: big.NewInt(0), Deadline: big.NewInt(9)}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for i := range tc.want {
				tc.want[i].Selector, tc.want[i].Target = ceSel(tc.data), ceToken
			}
			require.Equal(t, ceEffectStrings(tc.want), ceEffectStrings(CallEffects(ceToken, tc.data)))
		})
	}
}

func TestCallEffectsPermit2(t *testing.T) {
	max160 := new(big.Int).Set(callMaxUint160)
	details := []abi.ArgumentMarshaling{ceComp("token", "address"), ceComp("amount", "uint160"), ceComp("expiration", "uint48"), ceComp("nonce", "uint48")}
	type permitDetails struct {
		Token      common.Address
		Amount     *big.Int
		Expiration *big.Int
		Nonce      *big.Int
	}
	type permitSingle struct {
		Details     permitDetails
		Spender     common.Address
		SigDeadline *big.Int
	}
	type permitBatch struct {
		Details     []permitDetails
		Spender     common.Address
		SigDeadline *big.Int
	}
	type transferDetails struct {
		From   common.Address
		To     common.Address
		Amount *big.Int
		Token  common.Address
	}
	tokenB := ceAddr(0x71)
	tests := map[string]struct {
		data []byte
		want []Effect
	}{
		"approve max uint160 is unlimited": {
			data: cePack(t, "approve(address,address,uint160,uint48)", []ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint160"), ceArg("uint48")},
				ceToken, ceAttacker, max160, big.NewInt(1800000000)),
			want: []Effect{{Kind: EffectApprove, Function: "approve", Token: ceToken, Counterparty: ceAttacker, Amount: max160, Unlimited: true, Deadline: big.NewInt(1800000000)}},
		},
		"permit single": {
			data: cePack(t, "permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)",
				[]ceABIArg{ceArg("address"), ceArg("tuple", ceComp("details", "tuple", details...), ceComp("spender", "address"), ceComp("sigDeadline", "uint256")), ceArg("bytes")},
				ceAlice, permitSingle{permitDetails{ceToken, big.NewInt(100), big.NewInt(5), big.NewInt(0)}, ceBob, big.NewInt(6)}, make([]byte, 65)),
			want: []Effect{{Kind: EffectApprove, Function: "permit", Token: ceToken, From: ceAlice, Counterparty: ceBob, Amount: big.NewInt(100), Deadline: big.NewInt(5)}},
		},
		"permit batch": {
			data: cePack(t, "permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)",
				[]ceABIArg{ceArg("address"), ceArg("tuple", ceComp("details", "tuple[]", details...), ceComp("spender", "address"), ceComp("sigDeadline", "uint256")), ceArg("bytes")},
				ceAlice, permitBatch{[]permitDetails{{ceToken, big.NewInt(1), big.NewInt(2), big.NewInt(3)}, {tokenB, max160, big.NewInt(4), big.NewInt(5)}}, ceBob, big.NewInt(6)}, make([]byte, 65)),
			want: []Effect{
				{Kind: EffectApprove, Function: "permit", Token: ceToken, From: ceAlice, Counterparty: ceBob, Amount: big.NewInt(1), Deadline: big.NewInt(2)},
				{Kind: EffectApprove, Function: "permit", Token: tokenB, From: ceAlice, Counterparty: ceBob, Amount: max160, Unlimited: true, Deadline: big.NewInt(4)},
			},
		},
		"transferFrom single": {
			data: cePack(t, "transferFrom(address,address,uint160,address)", []ceABIArg{ceArg("address"), ceArg("address"), ceArg("uint160"), ceArg("address")},
				ceAlice, ceAttacker, big.NewInt(77), tokenB),
			want: []Effect{{Kind: EffectTokenTransfer, Function: "transferFrom", Token: tokenB, From: ceAlice, Counterparty: ceAttacker, Amount: big.NewInt(77)}},
		},
		"transferFrom batch": {
			data: cePack(t, "transferFrom((address,address,uint160,address)[])",
				[]ceABIArg{ceArg("tuple[]", ceComp("from", "address"), ceComp("to", "address"), ceComp("amount", "uint160"), ceComp("token", "address"))},
				[]transferDetails{{ceAlice, ceBob, big.NewInt(1), ceToken}, {ceAlice, ceAttacker, big.NewInt(2), tokenB}}),
			want: []Effect{
				{Kind: EffectTokenTransfer, Function: "transferFrom", Token: ceToken, From: ceAlice, Counterparty: ceBob, Amount: big.NewInt(1)},
				{Kind: EffectTokenTransfer, Function: "transferFrom", Token: tokenB, From: ceAlice, Counterparty: ceAttacker, Amount: big.NewInt(2)},
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for i := range tc.want {
				tc.want[i].Selector, tc.want[i].Target = ceSel(tc.data), cePermit2
			}
			require.Equal(t, ceEffectStrings(tc.want), ceEffectStrings(CallEffects(cePermit2, tc.data)))
		})
	}
}

func TestCallEffectsPrivileged(t *testing.T) {
	a := func(types ...string) []ceABIArg {
		out := make([]ceABIArg, len(types))
		for i, s := range types {
			out[i] = ceArg(s)
		}
		return out
	}
	tests := map[string]struct {
		data []byte
		want Effect
	}{
		"upgradeTo":         {data: cePack(t, "upgradeTo(address)", a("address"), ceImpl), want: Effect{Function: "upgradeTo", Counterparty: ceImpl}},
		"upgradeToAndCall":  {data: cePack(t, "upgradeToAndCall(address,bytes)", a("address", "bytes"), ceImpl, []byte{0xde, 0xad}), want: Effect{Function: "upgradeToAndCall", Counterparty: ceImpl}},
		"changeAdmin":       {data: cePack(t, "changeAdmin(address)", a("address"), ceAttacker), want: Effect{Function: "changeAdmin", Counterparty: ceAttacker}},
		"transferOwnership": {data: cePack(t, "transferOwnership(address)", a("address"), ceAttacker), want: Effect{Function: "transferOwnership", Counterparty: ceAttacker}},
		"renounceOwnership": {data: cePack(t, "renounceOwnership()", nil), want: Effect{Function: "renounceOwnership"}},
		"addOwnerWithThreshold": {
			data: cePack(t, "addOwnerWithThreshold(address,uint256)", a("address", "uint256"), ceAttacker, big.NewInt(1)),
			want: Effect{Function: "addOwnerWithThreshold", Counterparty: ceAttacker, Amount: big.NewInt(1)},
		},
		"removeOwner": {
			data: cePack(t, "removeOwner(address,address,uint256)", a("address", "address", "uint256"), ceAlice, ceBob, big.NewInt(1)),
			want: Effect{Function: "removeOwner", Counterparty: ceBob, Amount: big.NewInt(1)},
		},
		"swapOwner": {
			data: cePack(t, "swapOwner(address,address,address)", a("address", "address", "address"), ceAlice, ceBob, ceAttacker),
			want: Effect{Function: "swapOwner", Counterparty: ceAttacker},
		},
		"changeThreshold":    {data: cePack(t, "changeThreshold(uint256)", a("uint256"), big.NewInt(1)), want: Effect{Function: "changeThreshold", Amount: big.NewInt(1)}},
		"enableModule":       {data: cePack(t, "enableModule(address)", a("address"), ceAttacker), want: Effect{Function: "enableModule", Counterparty: ceAttacker}},
		"disableModule":      {data: cePack(t, "disableModule(address,address)", a("address", "address"), ceAlice, ceBob), want: Effect{Function: "disableModule", Counterparty: ceBob}},
		"setGuard":           {data: cePack(t, "setGuard(address)", a("address"), ceAttacker), want: Effect{Function: "setGuard", Counterparty: ceAttacker}},
		"setFallbackHandler": {data: cePack(t, "setFallbackHandler(address)", a("address"), ceAttacker), want: Effect{Function: "setFallbackHandler", Counterparty: ceAttacker}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			want := tc.want
			want.Kind, want.Selector, want.Target = EffectPrivileged, ceSel(tc.data), ceSafe
			require.Equal(t, ceEffectStrings([]Effect{want}), ceEffectStrings(CallEffects(ceSafe, tc.data)))
		})
	}
}

func TestCallEffectsWrappers(t *testing.T) {
	max := new(big.Int).Set(maxUint256)
	oneEth := big.NewInt(1e18)
	approveMax := ceApproveData(t, ceAttacker, max)
	pay := ceTransferData(t, ceBob, big.NewInt(3))
	addOwner := cePack(t, "addOwnerWithThreshold(address,uint256)", []ceABIArg{ceArg("address"), ceArg("uint256")}, ceAttacker, big.NewInt(1))
	msend := ceMultiSendData(t,
		ceMultiSendItem{op: 0, to: ceToken, value: big.NewInt(0), data: approveMax},
		ceMultiSendItem{op: 0, to: ceBob, value: oneEth},
		ceMultiSendItem{op: 1, to: ceImpl, value: big.NewInt(0), data: pay},
	)
	tests := map[string]struct {
		to   common.Address
		data []byte
		want []Effect
	}{
		"execTransaction call with value: the Safe's assets move": {
			to:   ceSafe,
			data: ceExecData(t, ceToken, oneEth, pay, 0),
			want: []Effect{
				{Kind: EffectNativeTransfer, From: ceSafe, Counterparty: ceToken, Amount: oneEth, Depth: 1},
				{Kind: EffectTokenTransfer, Function: "transfer", Selector: ceSel(pay), Target: ceToken, Token: ceToken, From: ceSafe, Counterparty: ceBob, Amount: big.NewInt(3), Depth: 1},
			},
		},
		"execTransaction self-call changing the owners is privileged": {
			to:   ceSafe,
			data: ceExecData(t, ceSafe, big.NewInt(0), addOwner, 0),
			want: []Effect{{Kind: EffectPrivileged, Function: "addOwnerWithThreshold", Selector: ceSel(addOwner), Target: ceSafe, From: ceSafe, Counterparty: ceAttacker, Amount: big.NewInt(1), Depth: 1}},
		},
		"execTransaction delegatecall is privileged": {
			to:   ceSafe,
			data: ceExecData(t, ceAttacker, big.NewInt(0), nil, 1),
			want: []Effect{{Kind: EffectPrivileged, Function: "execTransaction", Target: ceSafe, Counterparty: ceAttacker}},
		},
		"execTransaction delegatecall to multiSend": {
			to:   ceSafe,
			data: ceExecData(t, ceRouter, big.NewInt(0), msend, 1),
			want: []Effect{
				{Kind: EffectPrivileged, Function: "execTransaction", Target: ceSafe, Counterparty: ceRouter},
				{Kind: EffectPrivileged, Function: "multiSend", Selector: ceSel(msend), Target: ceRouter, From: ceSafe, Counterparty: ceImpl, Depth: 1},
				{Kind: EffectApprove, Function: "approve", Selector: ceSel(approveMax), Target: ceToken, Token: ceToken, From: ceSafe, Counterparty: ceAttacker, Amount: max, Unlimited: true, Depth: 2},
				{Kind: EffectNativeTransfer, From: ceSafe, Counterparty: ceBob, Amount: oneEth, Depth: 2},
				{Kind: EffectTokenTransfer, Function: "transfer", Selector: ceSel(pay), Target: ceImpl, Token: ceImpl, From: ceSafe, Counterparty: ceBob, Amount: big.NewInt(3), Depth: 2},
			},
		},
		"multicall self-calls": {
			to:   ceToken,
			data: ceMulticallData(t, approveMax, pay),
			want: []Effect{
				{Kind: EffectApprove, Function: "approve", Selector: ceSel(approveMax), Target: ceToken, Token: ceToken, Counterparty: ceAttacker, Amount: max, Unlimited: true, Depth: 1},
				{Kind: EffectTokenTransfer, Function: "transfer", Selector: ceSel(pay), Target: ceToken, Token: ceToken, Counterparty: ceBob, Amount: big.NewInt(3), Depth: 1},
			},
		},
		"multicall with deadline": {
			to:   ceRouter,
			data: cePack(t, "multicall(uint256,bytes[])", []ceABIArg{ceArg("uint256"), ceArg("bytes[]")}, big.NewInt(99), [][]byte{approveMax}),
			want: []Effect{
				{Kind: EffectApprove, Function: "approve", Selector: ceSel(approveMax), Target: ceRouter, Token: ceRouter, Counterparty: ceAttacker, Amount: max, Unlimited: true, Depth: 1},
			},
		},
		"Multicall3 aggregate3Value": {
			to: ceMC3,
			data: cePack(t, "aggregate3Value((address,bool,uint256,bytes)[])",
				[]ceABIArg{ceArg("tuple[]", ceComp("target", "address"), ceComp("allowFailure", "bool"), ceComp("value", "uint256"), ceComp("callData", "bytes"))},
				[]ceMC3Call3Value{{ceToken, false, big.NewInt(0), approveMax}, {ceBob, true, oneEth, nil}}),
			want: []Effect{
				{Kind: EffectApprove, Function: "approve", Selector: ceSel(approveMax), Target: ceToken, Token: ceToken, Counterparty: ceAttacker, Amount: max, Unlimited: true, Depth: 1},
				{Kind: EffectNativeTransfer, Counterparty: ceBob, Amount: oneEth, Depth: 1},
			},
		},
		"Multicall3 aggregate3": {
			to: ceMC3,
			data: cePack(t, "aggregate3((address,bool,bytes)[])",
				[]ceABIArg{ceArg("tuple[]", ceComp("target", "address"), ceComp("allowFailure", "bool"), ceComp("callData", "bytes"))},
				[]struct {
					Target       common.Address
					AllowFailure bool
					CallData     []byte
				}{{ceToken, true, pay}}),
			want: []Effect{
				{Kind: EffectTokenTransfer, Function: "transfer", Selector: ceSel(pay), Target: ceToken, Token: ceToken, Counterparty: ceBob, Amount: big.NewInt(3), Depth: 1},
			},
		},
	}
	payAt := []Effect{{Kind: EffectTokenTransfer, Function: "transfer", Selector: ceSel(pay), Target: ceToken, Token: ceToken, Counterparty: ceBob, Amount: big.NewInt(3), Depth: 1}}
	for _, sig := range []string{"aggregate((address,bytes)[])", "blockAndAggregate((address,bytes)[])"} {
		tests["Multicall3 "+sig] = struct {
			to   common.Address
			data []byte
			want []Effect
		}{ceMC3, cePack(t, sig, []ceABIArg{ceArg("tuple[]", ceMC3CallComps...)}, []ceMC3Call{{ceToken, pay}}), payAt}
	}
	for _, sig := range []string{"tryAggregate(bool,(address,bytes)[])", "tryBlockAndAggregate(bool,(address,bytes)[])"} {
		tests["Multicall3 "+sig] = struct {
			to   common.Address
			data []byte
			want []Effect
		}{ceMC3, cePack(t, sig, []ceABIArg{ceArg("bool"), ceArg("tuple[]", ceMC3CallComps...)}, true, []ceMC3Call{{ceToken, pay}}), payAt}
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for i := range tc.want {
				if tc.want[i].Depth == 0 && tc.want[i].Selector == "" {
					tc.want[i].Selector = ceSel(tc.data)
				}
			}
			require.Equal(t, ceEffectStrings(tc.want), ceEffectStrings(CallEffects(tc.to, tc.data)))
		})
	}
}
