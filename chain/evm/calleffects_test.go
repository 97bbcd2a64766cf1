package evm

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/stretchr/testify/require"
)

var (
	tokenA   = addr(0x70)
	alice    = addr(0xa1)
	bob      = addr(0xb0)
	attacker = addr(0xee)
	safeAddr = addr(0x5a)
	mc3Addr  = addr(0x3c)
	permit2  = addr(0x22)
	router   = addr(0x4e)
	impl     = addr(0x1e)
)

func transferData(t testing.TB, to common.Address, amount *big.Int) []byte {
	return packCall(t, "transfer(address,uint256)", []abiArg{arg("address"), arg("uint256")}, to, amount)
}

func approveData(t testing.TB, spender common.Address, amount *big.Int) []byte {
	return packCall(t, "approve(address,uint256)", []abiArg{arg("address"), arg("uint256")}, spender, amount)
}

func execTransactionData(t testing.TB, to common.Address, value *big.Int, data []byte, op uint8) []byte {
	return packCall(t, "execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)",
		[]abiArg{arg("address"), arg("uint256"), arg("bytes"), arg("uint8"), arg("uint256"), arg("uint256"), arg("uint256"), arg("address"), arg("address"), arg("bytes")},
		to, value, data, op, big.NewInt(0), big.NewInt(0), big.NewInt(0), common.Address{}, common.Address{}, []byte{1, 2, 3})
}

func multicallData(t testing.TB, calls ...[]byte) []byte {
	return packCall(t, "multicall(bytes[])", []abiArg{arg("bytes[]")}, calls)
}

func multiSendData(t testing.TB, items ...multiSendItem) []byte {
	return packCall(t, "multiSend(bytes)", []abiArg{arg("bytes")}, packMultiSend(items...))
}

type mc3Call struct {
	Target   common.Address
	CallData []byte
}

type mc3Call3Value struct {
	Target       common.Address
	AllowFailure bool
	Value        *big.Int
	CallData     []byte
}

var mc3CallComps = []abi.ArgumentMarshaling{comp("target", "address"), comp("callData", "bytes")}

func TestCallEffectsTokens(t *testing.T) {
	max := new(big.Int).Set(maxUint256)
	erc721Data := packCall(t, "safeTransferFrom(address,address,uint256,bytes)",
		[]abiArg{arg("address"), arg("address"), arg("uint256"), arg("bytes")}, alice, bob, big.NewInt(7), []byte("hi"))
	tests := map[string]struct {
		data []byte
		want []Effect
	}{
		"transfer": {
			data: transferData(t, bob, big.NewInt(1500)),
			want: []Effect{{Kind: EffectTokenTransfer, Function: "transfer", Token: tokenA, Counterparty: bob, Amount: big.NewInt(1500)}},
		},
		"transferFrom (ERC-20 or ERC-721: amount, no token id)": {
			data: packCall(t, "transferFrom(address,address,uint256)", []abiArg{arg("address"), arg("address"), arg("uint256")}, alice, bob, big.NewInt(9)),
			want: []Effect{{Kind: EffectTokenTransfer, Function: "transferFrom", Token: tokenA, From: alice, Counterparty: bob, Amount: big.NewInt(9)}},
		},
		"approve unlimited": {
			data: approveData(t, attacker, max),
			want: []Effect{{Kind: EffectApprove, Function: "approve", Token: tokenA, Counterparty: attacker, Amount: max, Unlimited: true}},
		},
		"approve limited": {
			data: approveData(t, bob, big.NewInt(5)),
			want: []Effect{{Kind: EffectApprove, Function: "approve", Token: tokenA, Counterparty: bob, Amount: big.NewInt(5)}},
		},
		"increaseAllowance 2^255 is unlimited": {
			data: packCall(t, "increaseAllowance(address,uint256)", []abiArg{arg("address"), arg("uint256")}, bob, unlimitedThreshold),
			want: []Effect{{Kind: EffectApprove, Function: "increaseAllowance", Token: tokenA, Counterparty: bob, Amount: unlimitedThreshold, Unlimited: true}},
		},
		"setApprovalForAll": {
			data: packCall(t, "setApprovalForAll(address,bool)", []abiArg{arg("address"), arg("bool")}, attacker, true),
			want: []Effect{{Kind: EffectApprovalForAll, Function: "setApprovalForAll", Token: tokenA, Counterparty: attacker, Approved: true}},
		},
		"ERC-721 safeTransferFrom": {
			data: packCall(t, "safeTransferFrom(address,address,uint256)", []abiArg{arg("address"), arg("address"), arg("uint256")}, alice, bob, big.NewInt(7)),
			want: []Effect{{Kind: EffectTokenTransfer, Function: "safeTransferFrom", Token: tokenA, From: alice, Counterparty: bob, Amount: big.NewInt(1), TokenID: big.NewInt(7)}},
		},
		"ERC-721 safeTransferFrom with data": {
			data: erc721Data,
			want: []Effect{{Kind: EffectTokenTransfer, Function: "safeTransferFrom", Token: tokenA, From: alice, Counterparty: bob, Amount: big.NewInt(1), TokenID: big.NewInt(7)}},
		},
		"ERC-1155 safeTransferFrom": {
			data: packCall(t, "safeTransferFrom(address,address,uint256,uint256,bytes)",
				[]abiArg{arg("address"), arg("address"), arg("uint256"), arg("uint256"), arg("bytes")}, alice, bob, big.NewInt(3), big.NewInt(40), []byte{}),
			want: []Effect{{Kind: EffectTokenTransfer, Function: "safeTransferFrom", Token: tokenA, From: alice, Counterparty: bob, Amount: big.NewInt(40), TokenID: big.NewInt(3)}},
		},
		"ERC-1155 safeBatchTransferFrom": {
			data: packCall(t, "safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)",
				[]abiArg{arg("address"), arg("address"), arg("uint256[]"), arg("uint256[]"), arg("bytes")},
				alice, bob, []*big.Int{big.NewInt(1), big.NewInt(2)}, []*big.Int{big.NewInt(10), big.NewInt(20)}, []byte("x")),
			want: []Effect{
				{Kind: EffectTokenTransfer, Function: "safeBatchTransferFrom", Token: tokenA, From: alice, Counterparty: bob, Amount: big.NewInt(10), TokenID: big.NewInt(1)},
				{Kind: EffectTokenTransfer, Function: "safeBatchTransferFrom", Token: tokenA, From: alice, Counterparty: bob, Amount: big.NewInt(20), TokenID: big.NewInt(2)},
			},
		},
		"EIP-2612 permit": {
			data: packCall(t, "permit(address,address,uint256,uint256,uint8,bytes32,bytes32)",
				[]abiArg{arg("address"), arg("address"), arg("uint256"), arg("uint256"), arg("uint8"), arg("bytes32"), arg("bytes32")},
				alice, attacker, max, big.NewInt(1700000000), uint8(27), [32]byte{1}, [32]byte{2}),
			want: []Effect{{Kind: EffectApprove, Function: "permit", Token: tokenA, From: alice, Counterparty: attacker, Amount: max, Unlimited: true, Deadline: big.NewInt(1700000000)}},
		},
		"DAI permit allowed": {
			data: packCall(t, "permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)",
				[]abiArg{arg("address"), arg("address"), arg("uint256"), arg("uint256"), arg("bool"), arg("uint8"), arg("bytes32"), arg("bytes32")},
				alice, bob, big.NewInt(4), big.NewInt(0), true, uint8(28), [32]byte{1}, [32]byte{2}),
			want: []Effect{{Kind: EffectApprove, Function: "permit", Token: tokenA, From: alice, Counterparty: bob, Amount: max, Unlimited: true, Deadline: big.NewInt(0)}},
		},
		"DAI permit revoke": {
			data: packCall(t, "permit(address,address,uint256,uint256,bool,uint8,bytes32,bytes32)",
				[]abiArg{arg("address"), arg("address"), arg("uint256"), arg("uint256"), arg("bool"), arg("uint8"), arg("bytes32"), arg("bytes32")},
				alice, bob, big.NewInt(4), big.NewInt(9), false, uint8(28), [32]byte{1}, [32]byte{2}),
			want: []Effect{{Kind: EffectApprove, Function: "permit", Token: tokenA, From: alice, Counterparty: bob, Amount: big.NewInt(0), Deadline: big.NewInt(9)}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for i := range tc.want {
				tc.want[i].Selector, tc.want[i].Target = sel(tc.data), tokenA
			}
			require.Equal(t, effectStrings(tc.want), effectStrings(CallEffects(tokenA, tc.data)))
		})
	}
}

func TestCallEffectsPermit2(t *testing.T) {
	max160 := new(big.Int).Set(maxUint160)
	details := []abi.ArgumentMarshaling{comp("token", "address"), comp("amount", "uint160"), comp("expiration", "uint48"), comp("nonce", "uint48")}
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
	tokenB := addr(0x71)
	tests := map[string]struct {
		data []byte
		want []Effect
	}{
		"approve max uint160 is unlimited": {
			data: packCall(t, "approve(address,address,uint160,uint48)", []abiArg{arg("address"), arg("address"), arg("uint160"), arg("uint48")},
				tokenA, attacker, max160, big.NewInt(1800000000)),
			want: []Effect{{Kind: EffectApprove, Function: "approve", Token: tokenA, Counterparty: attacker, Amount: max160, Unlimited: true, Deadline: big.NewInt(1800000000)}},
		},
		"permit single": {
			data: packCall(t, "permit(address,((address,uint160,uint48,uint48),address,uint256),bytes)",
				[]abiArg{arg("address"), arg("tuple", comp("details", "tuple", details...), comp("spender", "address"), comp("sigDeadline", "uint256")), arg("bytes")},
				alice, permitSingle{permitDetails{tokenA, big.NewInt(100), big.NewInt(5), big.NewInt(0)}, bob, big.NewInt(6)}, make([]byte, 65)),
			want: []Effect{{Kind: EffectApprove, Function: "permit", Token: tokenA, From: alice, Counterparty: bob, Amount: big.NewInt(100), Deadline: big.NewInt(5)}},
		},
		"permit batch": {
			data: packCall(t, "permit(address,((address,uint160,uint48,uint48)[],address,uint256),bytes)",
				[]abiArg{arg("address"), arg("tuple", comp("details", "tuple[]", details...), comp("spender", "address"), comp("sigDeadline", "uint256")), arg("bytes")},
				alice, permitBatch{[]permitDetails{{tokenA, big.NewInt(1), big.NewInt(2), big.NewInt(3)}, {tokenB, max160, big.NewInt(4), big.NewInt(5)}}, bob, big.NewInt(6)}, make([]byte, 65)),
			want: []Effect{
				{Kind: EffectApprove, Function: "permit", Token: tokenA, From: alice, Counterparty: bob, Amount: big.NewInt(1), Deadline: big.NewInt(2)},
				{Kind: EffectApprove, Function: "permit", Token: tokenB, From: alice, Counterparty: bob, Amount: max160, Unlimited: true, Deadline: big.NewInt(4)},
			},
		},
		"transferFrom single": {
			data: packCall(t, "transferFrom(address,address,uint160,address)", []abiArg{arg("address"), arg("address"), arg("uint160"), arg("address")},
				alice, attacker, big.NewInt(77), tokenB),
			want: []Effect{{Kind: EffectTokenTransfer, Function: "transferFrom", Token: tokenB, From: alice, Counterparty: attacker, Amount: big.NewInt(77)}},
		},
		"transferFrom batch": {
			data: packCall(t, "transferFrom((address,address,uint160,address)[])",
				[]abiArg{arg("tuple[]", comp("from", "address"), comp("to", "address"), comp("amount", "uint160"), comp("token", "address"))},
				[]transferDetails{{alice, bob, big.NewInt(1), tokenA}, {alice, attacker, big.NewInt(2), tokenB}}),
			want: []Effect{
				{Kind: EffectTokenTransfer, Function: "transferFrom", Token: tokenA, From: alice, Counterparty: bob, Amount: big.NewInt(1)},
				{Kind: EffectTokenTransfer, Function: "transferFrom", Token: tokenB, From: alice, Counterparty: attacker, Amount: big.NewInt(2)},
			},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for i := range tc.want {
				tc.want[i].Selector, tc.want[i].Target = sel(tc.data), permit2
			}
			require.Equal(t, effectStrings(tc.want), effectStrings(CallEffects(permit2, tc.data)))
		})
	}
}

func TestCallEffectsPrivileged(t *testing.T) {
	a := func(types ...string) []abiArg {
		out := make([]abiArg, len(types))
		for i, s := range types {
			out[i] = arg(s)
		}
		return out
	}
	tests := map[string]struct {
		data []byte
		want Effect
	}{
		"upgradeTo":         {data: packCall(t, "upgradeTo(address)", a("address"), impl), want: Effect{Function: "upgradeTo", Counterparty: impl}},
		"upgradeToAndCall":  {data: packCall(t, "upgradeToAndCall(address,bytes)", a("address", "bytes"), impl, []byte{0xde, 0xad}), want: Effect{Function: "upgradeToAndCall", Counterparty: impl}},
		"changeAdmin":       {data: packCall(t, "changeAdmin(address)", a("address"), attacker), want: Effect{Function: "changeAdmin", Counterparty: attacker}},
		"transferOwnership": {data: packCall(t, "transferOwnership(address)", a("address"), attacker), want: Effect{Function: "transferOwnership", Counterparty: attacker}},
		"renounceOwnership": {data: packCall(t, "renounceOwnership()", nil), want: Effect{Function: "renounceOwnership"}},
		"addOwnerWithThreshold": {
			data: packCall(t, "addOwnerWithThreshold(address,uint256)", a("address", "uint256"), attacker, big.NewInt(1)),
			want: Effect{Function: "addOwnerWithThreshold", Counterparty: attacker, Amount: big.NewInt(1)},
		},
		"removeOwner": {
			data: packCall(t, "removeOwner(address,address,uint256)", a("address", "address", "uint256"), alice, bob, big.NewInt(1)),
			want: Effect{Function: "removeOwner", Counterparty: bob, Amount: big.NewInt(1)},
		},
		"swapOwner": {
			data: packCall(t, "swapOwner(address,address,address)", a("address", "address", "address"), alice, bob, attacker),
			want: Effect{Function: "swapOwner", Counterparty: attacker},
		},
		"changeThreshold":    {data: packCall(t, "changeThreshold(uint256)", a("uint256"), big.NewInt(1)), want: Effect{Function: "changeThreshold", Amount: big.NewInt(1)}},
		"enableModule":       {data: packCall(t, "enableModule(address)", a("address"), attacker), want: Effect{Function: "enableModule", Counterparty: attacker}},
		"disableModule":      {data: packCall(t, "disableModule(address,address)", a("address", "address"), alice, bob), want: Effect{Function: "disableModule", Counterparty: bob}},
		"setGuard":           {data: packCall(t, "setGuard(address)", a("address"), attacker), want: Effect{Function: "setGuard", Counterparty: attacker}},
		"setFallbackHandler": {data: packCall(t, "setFallbackHandler(address)", a("address"), attacker), want: Effect{Function: "setFallbackHandler", Counterparty: attacker}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			want := tc.want
			want.Kind, want.Selector, want.Target = EffectPrivileged, sel(tc.data), safeAddr
			require.Equal(t, effectStrings([]Effect{want}), effectStrings(CallEffects(safeAddr, tc.data)))
		})
	}
}

func TestCallEffectsWrappers(t *testing.T) {
	max := new(big.Int).Set(maxUint256)
	oneEth := big.NewInt(1e18)
	approveMax := approveData(t, attacker, max)
	pay := transferData(t, bob, big.NewInt(3))
	msend := multiSendData(t,
		multiSendItem{op: 0, to: tokenA, value: big.NewInt(0), data: approveMax},
		multiSendItem{op: 0, to: bob, value: oneEth},
		multiSendItem{op: 1, to: impl, value: big.NewInt(0), data: pay},
	)
	tests := map[string]struct {
		to   common.Address
		data []byte
		want []Effect
	}{
		"execTransaction call with value: the Safe's assets move": {
			to:   safeAddr,
			data: execTransactionData(t, tokenA, oneEth, pay, 0),
			want: []Effect{
				{Kind: EffectNativeTransfer, From: safeAddr, Counterparty: tokenA, Amount: oneEth, Depth: 1},
				{Kind: EffectTokenTransfer, Function: "transfer", Selector: sel(pay), Target: tokenA, Token: tokenA, From: safeAddr, Counterparty: bob, Amount: big.NewInt(3), Depth: 1},
			},
		},
		"execTransaction delegatecall is privileged": {
			to:   safeAddr,
			data: execTransactionData(t, attacker, big.NewInt(0), nil, 1),
			want: []Effect{{Kind: EffectPrivileged, Function: "execTransaction", Target: safeAddr, Counterparty: attacker}},
		},
		"execTransaction delegatecall to multiSend": {
			to:   safeAddr,
			data: execTransactionData(t, router, big.NewInt(0), msend, 1),
			want: []Effect{
				{Kind: EffectPrivileged, Function: "execTransaction", Target: safeAddr, Counterparty: router},
				{Kind: EffectPrivileged, Function: "multiSend", Selector: sel(msend), Target: router, From: safeAddr, Counterparty: impl, Depth: 1},
				{Kind: EffectApprove, Function: "approve", Selector: sel(approveMax), Target: tokenA, Token: tokenA, From: safeAddr, Counterparty: attacker, Amount: max, Unlimited: true, Depth: 2},
				{Kind: EffectNativeTransfer, From: safeAddr, Counterparty: bob, Amount: oneEth, Depth: 2},
				{Kind: EffectTokenTransfer, Function: "transfer", Selector: sel(pay), Target: impl, Token: impl, From: safeAddr, Counterparty: bob, Amount: big.NewInt(3), Depth: 2},
			},
		},
		"multicall self-calls": {
			to:   tokenA,
			data: multicallData(t, approveMax, pay),
			want: []Effect{
				{Kind: EffectApprove, Function: "approve", Selector: sel(approveMax), Target: tokenA, Token: tokenA, Counterparty: attacker, Amount: max, Unlimited: true, Depth: 1},
				{Kind: EffectTokenTransfer, Function: "transfer", Selector: sel(pay), Target: tokenA, Token: tokenA, Counterparty: bob, Amount: big.NewInt(3), Depth: 1},
			},
		},
		"multicall with deadline": {
			to:   router,
			data: packCall(t, "multicall(uint256,bytes[])", []abiArg{arg("uint256"), arg("bytes[]")}, big.NewInt(99), [][]byte{approveMax}),
			want: []Effect{
				{Kind: EffectApprove, Function: "approve", Selector: sel(approveMax), Target: router, Token: router, Counterparty: attacker, Amount: max, Unlimited: true, Depth: 1},
			},
		},
		"Multicall3 aggregate3Value": {
			to: mc3Addr,
			data: packCall(t, "aggregate3Value((address,bool,uint256,bytes)[])",
				[]abiArg{arg("tuple[]", comp("target", "address"), comp("allowFailure", "bool"), comp("value", "uint256"), comp("callData", "bytes"))},
				[]mc3Call3Value{{tokenA, false, big.NewInt(0), approveMax}, {bob, true, oneEth, nil}}),
			want: []Effect{
				{Kind: EffectApprove, Function: "approve", Selector: sel(approveMax), Target: tokenA, Token: tokenA, Counterparty: attacker, Amount: max, Unlimited: true, Depth: 1},
				{Kind: EffectNativeTransfer, Counterparty: bob, Amount: oneEth, Depth: 1},
			},
		},
		"Multicall3 aggregate3": {
			to: mc3Addr,
			data: packCall(t, "aggregate3((address,bool,bytes)[])",
				[]abiArg{arg("tuple[]", comp("target", "address"), comp("allowFailure", "bool"), comp("callData", "bytes"))},
				[]struct {
					Target       common.Address
					AllowFailure bool
					CallData     []byte
				}{{tokenA, true, pay}}),
			want: []Effect{
				{Kind: EffectTokenTransfer, Function: "transfer", Selector: sel(pay), Target: tokenA, Token: tokenA, Counterparty: bob, Amount: big.NewInt(3), Depth: 1},
			},
		},
	}
	payAt := []Effect{{Kind: EffectTokenTransfer, Function: "transfer", Selector: sel(pay), Target: tokenA, Token: tokenA, Counterparty: bob, Amount: big.NewInt(3), Depth: 1}}
	for _, sig := range []string{"aggregate((address,bytes)[])", "blockAndAggregate((address,bytes)[])"} {
		tests["Multicall3 "+sig] = struct {
			to   common.Address
			data []byte
			want []Effect
		}{mc3Addr, packCall(t, sig, []abiArg{arg("tuple[]", mc3CallComps...)}, []mc3Call{{tokenA, pay}}), payAt}
	}
	for _, sig := range []string{"tryAggregate(bool,(address,bytes)[])", "tryBlockAndAggregate(bool,(address,bytes)[])"} {
		tests["Multicall3 "+sig] = struct {
			to   common.Address
			data []byte
			want []Effect
		}{mc3Addr, packCall(t, sig, []abiArg{arg("bool"), arg("tuple[]", mc3CallComps...)}, true, []mc3Call{{tokenA, pay}}), payAt}
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for i := range tc.want {
				if tc.want[i].Depth == 0 && tc.want[i].Selector == "" {
					tc.want[i].Selector = sel(tc.data)
				}
			}
			require.Equal(t, effectStrings(tc.want), effectStrings(CallEffects(tc.to, tc.data)))
		})
	}
}
