package evm

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
	"github.com/stretchr/testify/require"
)

var (
	tdToken    = common.HexToAddress("0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48")
	tdToken2   = common.HexToAddress("0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2")
	tdSigner   = common.HexToAddress("0x2c7536E3605D9C16a7a3D7b1898e529396a65c23")
	tdSpender  = common.HexToAddress("0x000000000022D473030F116dDEE9F6B43aC78BA3")
	tdAttacker = common.HexToAddress("0xbad0000000000000000000000000000000000bad")
	tdSafe     = common.HexToAddress("0x5afe00000000000000000000000000000000cafe")
	maxU256    = "115792089237316195423570985008687907853269984665640564039457584007913129639935"
	maxU160    = "1461501637330902918203684832716283019655932542975"
)

// typedDoc builds typed data from compact type strings ("address owner,
// uint256 value"), hashes it with TypedDataHash (so every case is data we
// would sign) and returns the decoded result.
func typedDoc(t testing.TB, primary string, types map[string]string, domain, msg map[string]any) apitypes.TypedData {
	t.Helper()
	all := map[string]any{}
	for name, spec := range types {
		var fields []map[string]string
		for _, f := range strings.Split(spec, ",") {
			typ, field, _ := strings.Cut(strings.TrimSpace(f), " ")
			fields = append(fields, map[string]string{"name": field, "type": typ})
		}
		all[name] = fields
	}
	var dom []map[string]string
	for _, f := range domainFields {
		if _, ok := domain[f.Name]; ok {
			dom = append(dom, map[string]string{"name": f.Name, "type": f.Type})
		}
	}
	all["EIP712Domain"] = dom
	raw, err := json.Marshal(map[string]any{"types": all, "primaryType": primary, "domain": domain, "message": msg})
	require.NoError(t, err)
	_, td, err := TypedDataHash(raw)
	require.NoError(t, err, string(raw))
	return td
}

func dom(verifying common.Address) map[string]any {
	return map[string]any{"name": "Test", "version": "1", "chainId": 1, "verifyingContract": verifying.Hex()}
}

func bi(s string) *big.Int {
	v, ok := new(big.Int).SetString(s, 10)
	if !ok {
		panic(s)
	}
	return v
}

// erc20Transfer is transfer(to, amount) calldata packed by accounts/abi.
func erc20Transfer(t testing.TB, to common.Address, amount *big.Int) []byte {
	t.Helper()
	parsed, err := abi.JSON(strings.NewReader(`[{"type":"function","name":"transfer","inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}],"outputs":[{"type":"bool"}]}]`))
	require.NoError(t, err)
	data, err := parsed.Pack("transfer", to, amount)
	require.NoError(t, err)
	return data
}

const (
	permitTypes      = "address owner,address spender,uint256 value,uint256 nonce,uint256 deadline"
	daiTypes         = "address holder,address spender,uint256 nonce,uint256 expiry,bool allowed"
	permitDetails    = "address token,uint160 amount,uint48 expiration,uint48 nonce"
	tokenPermissions = "address token,uint256 amount"
	eip3009Types     = "address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce"
	offerItem        = "uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount"
	considItem       = "uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount,address recipient"
	seaportTypes     = "address offerer,address zone,OfferItem[] offer,ConsiderationItem[] consideration,uint8 orderType,uint256 startTime,uint256 endTime,bytes32 zoneHash,uint256 salt,bytes32 conduitKey,uint256 counter"
	safeTxTypes      = "address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce"
	zeroHash         = "0x0000000000000000000000000000000000000000000000000000000000000000"
)

func permitMsg(value string) map[string]any {
	return map[string]any{"owner": tdSigner.Hex(), "spender": tdSpender.Hex(), "value": value, "nonce": 0, "deadline": 1900000000}
}

func safeTxMsg(to common.Address, value int64, data []byte, op int) map[string]any {
	return map[string]any{"to": to.Hex(), "value": value, "data": hexutil.Encode(data), "operation": op, "safeTxGas": 0,
		"baseGas": 0, "gasPrice": 0, "gasToken": common.Address{}.Hex(), "refundReceiver": common.Address{}.Hex(), "nonce": 7}
}

func TestTypedDataEffectsStandards(t *testing.T) {
	tests := map[string]struct {
		td      apitypes.TypedData
		want    string
		effects []Effect // compared exactly (inner-call effects are checked in TestTypedDataEffectsWrappers)
	}{
		"EIP-2612 unlimited": {
			td:   typedDoc(t, "Permit", map[string]string{"Permit": permitTypes}, dom(tdToken), permitMsg(maxU256)),
			want: StdEIP2612Permit,
			effects: []Effect{{Kind: EffectApprove, Function: StdEIP2612Permit, Target: tdToken, Token: tdToken, Counterparty: tdSpender,
				Amount: bi(maxU256), Unlimited: true, Deadline: big.NewInt(1900000000)}},
		},
		"EIP-2612 limited, renamed type": {
			td:   typedDoc(t, "Allowance", map[string]string{"Allowance": permitTypes}, dom(tdToken), permitMsg("1000")),
			want: StdEIP2612Permit,
			effects: []Effect{{Kind: EffectApprove, Function: StdEIP2612Permit, Target: tdToken, Token: tdToken, Counterparty: tdSpender,
				Amount: big.NewInt(1000), Deadline: big.NewInt(1900000000)}},
		},
		"2^255 is unlimited": {
			td:   typedDoc(t, "Permit", map[string]string{"Permit": permitTypes}, dom(tdToken), permitMsg(new(big.Int).Lsh(big.NewInt(1), 255).String())),
			want: StdEIP2612Permit,
			effects: []Effect{{Kind: EffectApprove, Function: StdEIP2612Permit, Target: tdToken, Token: tdToken, Counterparty: tdSpender,
				Amount: new(big.Int).Lsh(big.NewInt(1), 255), Unlimited: true, Deadline: big.NewInt(1900000000)}},
		},
		"Permit with another field is no standard": {
			td: typedDoc(t, "Permit", map[string]string{"Permit": permitTypes + ",string memo"}, dom(tdToken),
				map[string]any{"owner": tdSigner.Hex(), "spender": tdSpender.Hex(), "value": 1, "nonce": 0, "deadline": 1, "memo": "x"}),
		},
		"Permit with another type is no standard": {
			td: typedDoc(t, "Permit", map[string]string{"Permit": "address owner,address spender,uint128 value,uint256 nonce,uint256 deadline"},
				dom(tdToken), permitMsg("1")),
		},
		"DAI allowed": {
			td: typedDoc(t, "Permit", map[string]string{"Permit": daiTypes}, dom(tdToken),
				map[string]any{"holder": tdSigner.Hex(), "spender": tdAttacker.Hex(), "nonce": 3, "expiry": 0, "allowed": true}),
			want: StdDAIPermit,
			effects: []Effect{{Kind: EffectApprove, Function: StdDAIPermit, Target: tdToken, Token: tdToken, Counterparty: tdAttacker,
				Unlimited: true}},
		},
		"DAI revocation": {
			td: typedDoc(t, "Permit", map[string]string{"Permit": daiTypes}, dom(tdToken),
				map[string]any{"holder": tdSigner.Hex(), "spender": tdAttacker.Hex(), "nonce": 3, "expiry": 1900000000, "allowed": false}),
			want: StdDAIPermit,
			effects: []Effect{{Kind: EffectApprove, Function: StdDAIPermit, Target: tdToken, Token: tdToken, Counterparty: tdAttacker,
				Amount: new(big.Int), Deadline: big.NewInt(1900000000)}},
		},
		"Permit2 single max uint160": {
			td: typedDoc(t, "PermitSingle", map[string]string{"PermitSingle": "PermitDetails details,address spender,uint256 sigDeadline",
				"PermitDetails": permitDetails}, dom(tdSpender), map[string]any{"details": map[string]any{"token": tdToken.Hex(),
				"amount": maxU160, "expiration": 1900000000, "nonce": 0}, "spender": tdAttacker.Hex(), "sigDeadline": 1800000000}),
			want: StdPermit2Single,
			effects: []Effect{{Kind: EffectApprove, Function: StdPermit2Single, Target: tdSpender, Token: tdToken, Counterparty: tdAttacker,
				Amount: bi(maxU160), Unlimited: true, Deadline: big.NewInt(1900000000)}},
		},
		"Permit2 batch": {
			td: typedDoc(t, "PermitBatch", map[string]string{"PermitBatch": "PermitDetails[] details,address spender,uint256 sigDeadline",
				"PermitDetails": permitDetails}, dom(tdSpender), map[string]any{"details": []any{
				map[string]any{"token": tdToken.Hex(), "amount": 5, "expiration": 0, "nonce": 0},
				map[string]any{"token": tdToken2.Hex(), "amount": 6, "expiration": 1900000000, "nonce": 1}},
				"spender": tdAttacker.Hex(), "sigDeadline": 1800000000}),
			want: StdPermit2Batch,
			effects: []Effect{
				{Kind: EffectApprove, Function: StdPermit2Batch, Target: tdSpender, Token: tdToken, Counterparty: tdAttacker, Amount: big.NewInt(5)},
				{Kind: EffectApprove, Function: StdPermit2Batch, Target: tdSpender, Token: tdToken2, Counterparty: tdAttacker, Amount: big.NewInt(6),
					Deadline: big.NewInt(1900000000)}},
		},
		"Permit2 transfer": {
			td: typedDoc(t, "PermitTransferFrom", map[string]string{"PermitTransferFrom": "TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline",
				"TokenPermissions": tokenPermissions}, dom(tdSpender), map[string]any{"permitted": map[string]any{"token": tdToken.Hex(),
				"amount": 99}, "spender": tdAttacker.Hex(), "nonce": 1, "deadline": 1800000000}),
			want: StdPermit2TransferFrom,
			effects: []Effect{{Kind: EffectApprove, Function: StdPermit2TransferFrom, Target: tdSpender, Token: tdToken, Counterparty: tdAttacker,
				Amount: big.NewInt(99), Deadline: big.NewInt(1800000000)}},
		},
		"Permit2 batch witness transfer": {
			td: typedDoc(t, "PermitBatchWitnessTransferFrom", map[string]string{
				"PermitBatchWitnessTransferFrom": "TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline,ExclusiveOrder witness",
				"TokenPermissions":               tokenPermissions, "ExclusiveOrder": "address swapper,uint256 minOut"},
				dom(tdSpender), map[string]any{"permitted": []any{map[string]any{"token": tdToken.Hex(), "amount": maxU256}},
					"spender": tdAttacker.Hex(), "nonce": 1, "deadline": 1800000000, "witness": map[string]any{"swapper": tdSigner.Hex(), "minOut": 1}}),
			want: StdPermit2BatchWitnessTransferFrom,
			effects: []Effect{{Kind: EffectApprove, Function: StdPermit2BatchWitnessTransferFrom, Target: tdSpender, Token: tdToken,
				Counterparty: tdAttacker, Amount: bi(maxU256), Unlimited: true, Deadline: big.NewInt(1800000000)}},
		},
		"EIP-3009 transfer": {
			td: typedDoc(t, "TransferWithAuthorization", map[string]string{"TransferWithAuthorization": eip3009Types}, dom(tdToken),
				map[string]any{"from": tdSigner.Hex(), "to": tdAttacker.Hex(), "value": 1_000_000_000_000, "validAfter": 0,
					"validBefore": 1900000000, "nonce": zeroHash}),
			want: StdTransferWithAuthorization,
			effects: []Effect{{Kind: EffectTokenTransfer, Function: StdTransferWithAuthorization, Target: tdToken, Token: tdToken,
				Counterparty: tdAttacker, Amount: big.NewInt(1_000_000_000_000), Deadline: big.NewInt(1900000000)}},
		},
		"EIP-3009 receive": {
			td: typedDoc(t, "ReceiveWithAuthorization", map[string]string{"ReceiveWithAuthorization": eip3009Types}, dom(tdToken),
				map[string]any{"from": tdSigner.Hex(), "to": tdAttacker.Hex(), "value": 5, "validAfter": 0, "validBefore": 1900000000, "nonce": zeroHash}),
			want: StdReceiveWithAuthorization,
			effects: []Effect{{Kind: EffectTokenTransfer, Function: StdReceiveWithAuthorization, Target: tdToken, Token: tdToken,
				Counterparty: tdAttacker, Amount: big.NewInt(5), Deadline: big.NewInt(1900000000)}},
		},
		"EIP-3009 cancel": {
			td: typedDoc(t, "CancelAuthorization", map[string]string{"CancelAuthorization": "address authorizer,bytes32 nonce"}, dom(tdToken),
				map[string]any{"authorizer": tdSigner.Hex(), "nonce": zeroHash}),
			want: StdCancelAuthorization,
		},
		"Seaport listing with a fee": {
			td: typedDoc(t, "OrderComponents", map[string]string{"OrderComponents": seaportTypes, "OfferItem": offerItem, "ConsiderationItem": considItem},
				dom(tdSpender), map[string]any{"offerer": tdSigner.Hex(), "zone": common.Address{}.Hex(),
					"offer": []any{map[string]any{"itemType": 2, "token": tdToken2.Hex(), "identifierOrCriteria": 42, "startAmount": 1, "endAmount": 1}},
					"consideration": []any{
						map[string]any{"itemType": 0, "token": common.Address{}.Hex(), "identifierOrCriteria": 0, "startAmount": "1000000000000000000",
							"endAmount": "1000000000000000000", "recipient": tdSigner.Hex()},
						map[string]any{"itemType": 1, "token": tdToken.Hex(), "identifierOrCriteria": 0, "startAmount": 10, "endAmount": 20,
							"recipient": tdAttacker.Hex()}},
					"orderType": 0, "startTime": 0, "endTime": 1900000000, "zoneHash": zeroHash, "salt": 1, "conduitKey": zeroHash, "counter": 0}),
			want: StdSeaportOrder,
			effects: []Effect{
				{Kind: EffectTokenTransfer, Function: StdSeaportOrder, Target: tdSpender, Token: tdToken2, Amount: big.NewInt(1),
					TokenID: big.NewInt(42), Deadline: big.NewInt(1900000000)},
				{Kind: EffectTokenTransfer, Function: StdSeaportOrder, Target: tdSpender, Token: tdToken, Counterparty: tdAttacker,
					Amount: big.NewInt(20), Deadline: big.NewInt(1900000000)}},
		},
		"0x limit order": {
			td: typedDoc(t, "LimitOrder", map[string]string{"LimitOrder": "address makerToken,address takerToken,uint128 makerAmount,uint128 takerAmount," +
				"uint128 takerTokenFeeAmount,address maker,address taker,address sender,address feeRecipient,bytes32 pool,uint64 expiry,uint256 salt"},
				dom(tdSpender), map[string]any{"makerToken": tdToken.Hex(), "takerToken": tdToken2.Hex(), "makerAmount": 1_000_000, "takerAmount": 1,
					"takerTokenFeeAmount": 0, "maker": tdSigner.Hex(), "taker": common.Address{}.Hex(), "sender": common.Address{}.Hex(),
					"feeRecipient": common.Address{}.Hex(), "pool": zeroHash, "expiry": 1900000000, "salt": 5}),
			want: StdZeroExLimitOrder,
			effects: []Effect{{Kind: EffectTokenTransfer, Function: StdZeroExLimitOrder, Target: tdSpender, Token: tdToken,
				Amount: big.NewInt(1_000_000), Deadline: big.NewInt(1900000000)}},
		},
		"0x RFQ order": {
			td: typedDoc(t, "RfqOrder", map[string]string{"RfqOrder": "address makerToken,address takerToken,uint128 makerAmount,uint128 takerAmount," +
				"address maker,address taker,address txOrigin,bytes32 pool,uint64 expiry,uint256 salt"},
				dom(tdSpender), map[string]any{"makerToken": tdToken.Hex(), "takerToken": tdToken2.Hex(), "makerAmount": 7, "takerAmount": 1,
					"maker": tdSigner.Hex(), "taker": tdAttacker.Hex(), "txOrigin": tdAttacker.Hex(), "pool": zeroHash, "expiry": 1900000000, "salt": 5}),
			want: StdZeroExRfqOrder,
			effects: []Effect{{Kind: EffectTokenTransfer, Function: StdZeroExRfqOrder, Target: tdSpender, Token: tdToken, Counterparty: tdAttacker,
				Amount: big.NewInt(7), Deadline: big.NewInt(1900000000)}},
		},
		"1inch v5 order with a receiver": {
			td: typedDoc(t, "Order", map[string]string{"Order": "uint256 salt,address makerAsset,address takerAsset,address maker,address receiver," +
				"address allowedSender,uint256 makingAmount,uint256 takingAmount,uint256 offsets,bytes interactions"},
				dom(tdSpender), map[string]any{"salt": 1, "makerAsset": tdToken.Hex(), "takerAsset": tdToken2.Hex(), "maker": tdSigner.Hex(),
					"receiver": tdAttacker.Hex(), "allowedSender": common.Address{}.Hex(), "makingAmount": 100, "takingAmount": 2, "offsets": 0,
					"interactions": "0x"}),
			want: StdOneInchOrder,
			effects: []Effect{
				{Kind: EffectTokenTransfer, Function: StdOneInchOrder, Target: tdSpender, Token: tdToken, Amount: big.NewInt(100)},
				{Kind: EffectTokenTransfer, Function: StdOneInchOrder, Target: tdSpender, Token: tdToken2, Counterparty: tdAttacker, Amount: big.NewInt(2)}},
		},
		"1inch v6 order": {
			td: typedDoc(t, "Order", map[string]string{"Order": "uint256 salt,address maker,address receiver,address makerAsset,address takerAsset," +
				"uint256 makingAmount,uint256 takingAmount,uint256 makerTraits"},
				dom(tdSpender), map[string]any{"salt": 1, "maker": tdSigner.Hex(), "receiver": common.Address{}.Hex(), "makerAsset": tdToken.Hex(),
					"takerAsset": tdToken2.Hex(), "makingAmount": 100, "takingAmount": 2, "makerTraits": 0}),
			want:    StdOneInchOrder,
			effects: []Effect{{Kind: EffectTokenTransfer, Function: StdOneInchOrder, Target: tdSpender, Token: tdToken, Amount: big.NewInt(100)}},
		},
		"CoW order": {
			td: typedDoc(t, "Order", map[string]string{"Order": "address sellToken,address buyToken,address receiver,uint256 sellAmount," +
				"uint256 buyAmount,uint32 validTo,bytes32 appData,uint256 feeAmount,string kind,bool partiallyFillable,string sellTokenBalance,string buyTokenBalance"},
				dom(tdSpender), map[string]any{"sellToken": tdToken.Hex(), "buyToken": tdToken2.Hex(), "receiver": common.Address{}.Hex(),
					"sellAmount": 1000, "buyAmount": 1, "validTo": 1900000000, "appData": zeroHash, "feeAmount": 3, "kind": "sell",
					"partiallyFillable": false, "sellTokenBalance": "erc20", "buyTokenBalance": "erc20"}),
			want: StdCowOrder,
			effects: []Effect{{Kind: EffectTokenTransfer, Function: StdCowOrder, Target: tdSpender, Token: tdToken, Amount: big.NewInt(1003),
				Deadline: big.NewInt(1900000000)}},
		},
		"SafeTx plain value": {
			td: typedDoc(t, "SafeTx", map[string]string{"SafeTx": safeTxTypes}, map[string]any{"chainId": 1, "verifyingContract": tdSafe.Hex()},
				safeTxMsg(tdAttacker, 5, nil, 0)),
			want: StdSafeTx,
			effects: []Effect{{Kind: EffectNativeTransfer, Function: StdSafeTx, Target: tdAttacker, From: tdSafe, Counterparty: tdAttacker,
				Amount: big.NewInt(5), Depth: 1}},
		},
		"SafeTx delegatecall": {
			td: typedDoc(t, "SafeTx", map[string]string{"SafeTx": safeTxTypes}, map[string]any{"chainId": 1, "verifyingContract": tdSafe.Hex()},
				safeTxMsg(tdAttacker, 0, nil, 1)),
			want:    StdSafeTx,
			effects: []Effect{{Kind: EffectPrivileged, Function: "delegatecall", Target: tdSafe, From: tdSafe, Counterparty: tdAttacker}},
		},
		"Mail is no standard": {
			td: typedDoc(t, "Mail", map[string]string{"Mail": "Person from,Person to,string contents", "Person": "string name,address wallet"},
				dom(tdToken), map[string]any{"from": map[string]any{"name": "a", "wallet": tdSigner.Hex()},
					"to": map[string]any{"name": "b", "wallet": tdAttacker.Hex()}, "contents": "hi"}),
		},
		"renamed nested type with another field set is no standard": {
			td: typedDoc(t, "PermitSingle", map[string]string{"PermitSingle": "PermitDetails details,address spender,uint256 sigDeadline",
				"PermitDetails": "address token,uint256 amount"}, dom(tdSpender), map[string]any{"details": map[string]any{"token": tdToken.Hex(),
				"amount": 1}, "spender": tdAttacker.Hex(), "sigDeadline": 1}),
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			std, effects, err := TypedDataEffects(tc.td)
			require.NoError(t, err)
			require.Equal(t, tc.want, std)
			require.Equal(t, tc.effects, effects)
		})
	}
}

// TestTypedDataEffectsWrappers checks what SafeTx and forward requests add
// around their inner call; the inner call's own effects come from
// CallEffects and are only checked loosely (they are CallEffects' to test).
func TestTypedDataEffectsWrappers(t *testing.T) {
	transfer := erc20Transfer(t, tdAttacker, big.NewInt(1_000_000))
	const fwdV4 = "address from,address to,uint256 value,uint256 gas,uint256 nonce,bytes data"
	const fwdV5 = "address from,address to,uint256 value,uint256 gas,uint256 nonce,uint48 deadline,bytes data"
	fwdMsg := func(deadline bool) map[string]any {
		m := map[string]any{"from": tdSigner.Hex(), "to": tdToken.Hex(), "value": 0, "gas": 100000, "nonce": 0, "data": hexutil.Encode(transfer)}
		if deadline {
			m["deadline"] = 1900000000
		}
		return m
	}
	refund := safeTxMsg(tdToken, 0, transfer, 0)
	refund["gasPrice"], refund["safeTxGas"], refund["baseGas"] = 10, 100, 20
	refund["refundReceiver"] = tdAttacker.Hex()
	tests := map[string]struct {
		td        apitypes.TypedData
		want      string
		innerFrom common.Address
		outer     []Effect // the effects that are not the inner call's
	}{
		"SafeTx ERC-20 transfer": {
			td:   typedDoc(t, "SafeTx", map[string]string{"SafeTx": safeTxTypes}, map[string]any{"chainId": 1, "verifyingContract": tdSafe.Hex()}, safeTxMsg(tdToken, 0, transfer, 0)),
			want: StdSafeTx, innerFrom: tdSafe,
		},
		"SafeTx delegatecall with data": {
			td:   typedDoc(t, "SafeTx", map[string]string{"SafeTx": safeTxTypes}, map[string]any{"chainId": 1, "verifyingContract": tdSafe.Hex()}, safeTxMsg(tdToken, 0, transfer, 1)),
			want: StdSafeTx, innerFrom: tdSafe,
			outer: []Effect{{Kind: EffectPrivileged, Function: "delegatecall", Target: tdSafe, From: tdSafe, Counterparty: tdToken}},
		},
		"SafeTx with a gas refund": {
			td:   typedDoc(t, "SafeTx", map[string]string{"SafeTx": safeTxTypes}, map[string]any{"chainId": 1, "verifyingContract": tdSafe.Hex()}, refund),
			want: StdSafeTx, innerFrom: tdSafe,
			outer: []Effect{{Kind: EffectNativeTransfer, Function: "SafeTx.refund", Target: tdSafe, From: tdSafe, Counterparty: tdAttacker,
				Amount: big.NewInt(1200)}},
		},
		"OZ v4 forward request": {
			td:   typedDoc(t, "ForwardRequest", map[string]string{"ForwardRequest": fwdV4}, dom(tdSpender), fwdMsg(false)),
			want: StdForwardRequest,
		},
		"OZ v5 forward request, renamed": {
			td:   typedDoc(t, "ForwardRequestData", map[string]string{"ForwardRequestData": fwdV5}, dom(tdSpender), fwdMsg(true)),
			want: StdForwardRequest,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			std, effects, err := TypedDataEffects(tc.td)
			require.NoError(t, err)
			require.Equal(t, tc.want, std)
			var outer, inner []Effect
			for _, e := range effects {
				if e.Depth == 0 {
					outer = append(outer, e)
				} else {
					inner = append(inner, e)
				}
			}
			require.Equal(t, tc.outer, outer)
			require.NotEmpty(t, inner, "the inner call contributes effects")
			for _, e := range inner {
				require.GreaterOrEqual(t, e.Depth, 1)
				require.Equal(t, tc.innerFrom, e.From, "%+v", e)
				// A real decoder reports the transfer, the stub an undecoded call to the token.
				if e.Kind == EffectTokenTransfer {
					require.Equal(t, tdAttacker, e.Counterparty)
					require.Equal(t, big.NewInt(1_000_000), e.Amount)
				} else {
					require.Equal(t, EffectCall, e.Kind)
					require.Equal(t, tdToken, e.Target)
				}
			}
		})
	}
}

func TestTypedDataEffectsMalformed(t *testing.T) {
	noToken := typedDoc(t, "Permit", map[string]string{"Permit": permitTypes}, map[string]any{"name": "T", "chainId": 1}, permitMsg("1"))
	badOp := typedDoc(t, "SafeTx", map[string]string{"SafeTx": safeTxTypes}, map[string]any{"chainId": 1, "verifyingContract": tdSafe.Hex()},
		safeTxMsg(tdToken, 0, nil, 2))
	badItem := typedDoc(t, "OrderComponents", map[string]string{"OrderComponents": seaportTypes, "OfferItem": offerItem, "ConsiderationItem": considItem},
		dom(tdSpender), map[string]any{"offerer": tdSigner.Hex(), "zone": common.Address{}.Hex(),
			"offer":         []any{map[string]any{"itemType": 9, "token": tdToken2.Hex(), "identifierOrCriteria": 42, "startAmount": 1, "endAmount": 1}},
			"consideration": []any{}, "orderType": 0, "startTime": 0, "endTime": 1, "zoneHash": zeroHash, "salt": 1, "conduitKey": zeroHash, "counter": 0})
	tooMany := typedDoc(t, "PermitBatch", map[string]string{"PermitBatch": "PermitDetails[] details,address spender,uint256 sigDeadline",
		"PermitDetails": permitDetails}, dom(tdSpender), map[string]any{"details": []any{}, "spender": tdAttacker.Hex(), "sigDeadline": 1})
	details := make([]any, MaxEffects+1)
	for i := range details {
		details[i] = map[string]any{"token": tdToken.Hex(), "amount": "1", "expiration": "0", "nonce": "0"}
	}
	tooMany.Message["details"] = details
	wrongValue := typedDoc(t, "Permit", map[string]string{"Permit": permitTypes}, dom(tdToken), permitMsg("1"))
	wrongValue.Message["value"] = "-1"
	missing := typedDoc(t, "Permit", map[string]string{"Permit": permitTypes}, dom(tdToken), permitMsg("1"))
	delete(missing.Message, "spender")

	tests := map[string]struct {
		td   apitypes.TypedData
		want string
	}{
		"EIP-2612 without a verifying contract": {noToken, StdEIP2612Permit},
		"SafeTx operation 2":                    {badOp, StdSafeTx},
		"Seaport item type 9":                   {badItem, StdSeaportOrder},
		"Permit2 batch over MaxEffects":         {tooMany, StdPermit2Batch},
		"negative amount":                       {wrongValue, StdEIP2612Permit},
		"missing field":                         {missing, StdEIP2612Permit},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			std, effects, err := TypedDataEffects(tc.td)
			require.ErrorIs(t, err, ErrInvalidTypedData)
			require.Equal(t, tc.want, std)
			require.Empty(t, effects)
		})
	}
}
