package evm

import (
	"encoding/json"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
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

func tdDom(verifying common.Address) map[string]any {
	return map[string]any{"name": "Test", "version": "1", "chainId": 1, "verifyingContract": verifying.Hex()}
}

func tdBig(s string) *big.Int {
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

// seaportOrder lists ERC-721 id of token for 1 ETH paid to the signer.
func seaportOrder(token common.Address, id int64) map[string]any {
	return map[string]any{"offerer": tdSigner.Hex(), "zone": common.Address{}.Hex(),
		"offer": []any{map[string]any{"itemType": 2, "token": token.Hex(), "identifierOrCriteria": id, "startAmount": 1, "endAmount": 1}},
		"consideration": []any{map[string]any{"itemType": 0, "token": common.Address{}.Hex(), "identifierOrCriteria": 0,
			"startAmount": "1000000000000000000", "endAmount": "1000000000000000000", "recipient": tdSigner.Hex()}},
		"orderType": 0, "startTime": 0, "endTime": 1900000000, "zoneHash": zeroHash, "salt": 1, "conduitKey": zeroHash, "counter": 0}
}

// emptySeaportOrder pads a bulk order tree as marketplaces do.
func emptySeaportOrder() map[string]any {
	return map[string]any{"offerer": common.Address{}.Hex(), "zone": common.Address{}.Hex(), "offer": []any{}, "consideration": []any{},
		"orderType": 0, "startTime": 0, "endTime": 0, "zoneHash": zeroHash, "salt": 0, "conduitKey": zeroHash, "counter": 0}
}

func TestTypedDataEffectsStandards(t *testing.T) {
	tests := map[string]struct {
		td      apitypes.TypedData
		want    string
		effects []Effect // compared exactly (inner-call effects are checked in TestTypedDataEffectsWrappers)
	}{
		"EIP-2612 unlimited": {
			td:   typedDoc(t, "Permit", map[string]string{"Permit": permitTypes}, tdDom(tdToken), permitMsg(maxU256)),
			want: StdEIP2612Permit,
			effects: []Effect{{Kind: EffectApprove, Function: StdEIP2612Permit, Target: tdToken, Token: tdToken, Counterparty: tdSpender,
				Amount: tdBig(maxU256), Unlimited: true, Deadline: big.NewInt(1900000000)}},
		},
		"EIP-2612 limited, renamed type": {
			td:   typedDoc(t, "Allowance", map[string]string{"Allowance": permitTypes}, tdDom(tdToken), permitMsg("1000")),
			want: StdEIP2612Permit,
			effects: []Effect{{Kind: EffectApprove, Function: StdEIP2612Permit, Target: tdToken, Token: tdToken, Counterparty: tdSpender,
				Amount: big.NewInt(1000), Deadline: big.NewInt(1900000000)}},
		},
		"2^255 is unlimited": {
			td:   typedDoc(t, "Permit", map[string]string{"Permit": permitTypes}, tdDom(tdToken), permitMsg(new(big.Int).Lsh(big.NewInt(1), 255).String())),
			want: StdEIP2612Permit,
			effects: []Effect{{Kind: EffectApprove, Function: StdEIP2612Permit, Target: tdToken, Token: tdToken, Counterparty: tdSpender,
				Amount: new(big.Int).Lsh(big.NewInt(1), 255), Unlimited: true, Deadline: big.NewInt(1900000000)}},
		},
		"Permit with another field is no standard": {
			td: typedDoc(t, "Permit", map[string]string{"Permit": permitTypes + ",string memo"}, tdDom(tdToken),
				map[string]any{"owner": tdSigner.Hex(), "spender": tdSpender.Hex(), "value": 1, "nonce": 0, "deadline": 1, "memo": "x"}),
		},
		"Permit with another type is no standard": {
			td: typedDoc(t, "Permit", map[string]string{"Permit": "address owner,address spender,uint128 value,uint256 nonce,uint256 deadline"},
				tdDom(tdToken), permitMsg("1")),
		},
		"DAI allowed": {
			td: typedDoc(t, "Permit", map[string]string{"Permit": daiTypes}, tdDom(tdToken),
				map[string]any{"holder": tdSigner.Hex(), "spender": tdAttacker.Hex(), "nonce": 3, "expiry": 0, "allowed": true}),
			want: StdDAIPermit,
			effects: []Effect{{Kind: EffectApprove, Function: StdDAIPermit, Target: tdToken, Token: tdToken, Counterparty: tdAttacker,
				Unlimited: true}},
		},
		"DAI revocation": {
			td: typedDoc(t, "Permit", map[string]string{"Permit": daiTypes}, tdDom(tdToken),
				map[string]any{"holder": tdSigner.Hex(), "spender": tdAttacker.Hex(), "nonce": 3, "expiry": 1900000000, "allowed": false}),
			want: StdDAIPermit,
			effects: []Effect{{Kind: EffectApprove, Function: StdDAIPermit, Target: tdToken, Token: tdToken, Counterparty: tdAttacker,
				Amount: new(big.Int), Deadline: big.NewInt(1900000000)}},
		},
		"Permit2 single max uint160": {
			td: typedDoc(t, "PermitSingle", map[string]string{"PermitSingle": "PermitDetails details,address spender,uint256 sigDeadline",
				"PermitDetails": permitDetails}, tdDom(tdSpender), map[string]any{"details": map[string]any{"token": tdToken.Hex(),
				"amount": maxU160, "expiration": 1900000000, "nonce": 0}, "spender": tdAttacker.Hex(), "sigDeadline": 1800000000}),
			want: StdPermit2Single,
			effects: []Effect{{Kind: EffectApprove, Function: StdPermit2Single, Target: tdSpender, Token: tdToken, Counterparty: tdAttacker,
				Amount: tdBig(maxU160), Unlimited: true, Deadline: big.NewInt(1900000000)}},
		},
		"Permit2 batch": {
			td: typedDoc(t, "PermitBatch", map[string]string{"PermitBatch": "PermitDetails[] details,address spender,uint256 sigDeadline",
				"PermitDetails": permitDetails}, tdDom(tdSpender), map[string]any{"details": []any{
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
				"TokenPermissions": tokenPermissions}, tdDom(tdSpender), map[string]any{"permitted": map[string]any{"token": tdToken.Hex(),
				"amount": 99}, "spender": tdAttacker.Hex(), "nonce": 1, "deadline": 1800000000}),
			want: StdPermit2TransferFrom,
			effects: []Effect{{Kind: EffectApprove, Function: StdPermit2TransferFrom, Target: tdSpender, Token: tdToken, Counterparty: tdAttacker,
				Amount: big.NewInt(99), Deadline: big.NewInt(1800000000)}},
		},
		"Permit2 batch witness transfer": {
			td: typedDoc(t, "PermitBatchWitnessTransferFrom", map[string]string{
				"PermitBatchWitnessTransferFrom": "TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline,ExclusiveOrder witness",
				"TokenPermissions":               tokenPermissions, "ExclusiveOrder": "address swapper,uint256 minOut"},
				tdDom(tdSpender), map[string]any{"permitted": []any{map[string]any{"token": tdToken.Hex(), "amount": maxU256}},
					"spender": tdAttacker.Hex(), "nonce": 1, "deadline": 1800000000, "witness": map[string]any{"swapper": tdSigner.Hex(), "minOut": 1}}),
			want: StdPermit2BatchWitnessTransferFrom,
			effects: []Effect{{Kind: EffectApprove, Function: StdPermit2BatchWitnessTransferFrom, Target: tdSpender, Token: tdToken,
				Counterparty: tdAttacker, Amount: tdBig(maxU256), Unlimited: true, Deadline: big.NewInt(1800000000)}},
		},
		"EIP-3009 transfer": {
			td: typedDoc(t, "TransferWithAuthorization", map[string]string{"TransferWithAuthorization": eip3009Types}, tdDom(tdToken),
				map[string]any{"from": tdSigner.Hex(), "to": tdAttacker.Hex(), "value": 1_000_000_000_000, "validAfter": 0,
					"validBefore": 1900000000, "nonce": zeroHash}),
			want: StdTransferWithAuthorization,
			effects: []Effect{{Kind: EffectTokenTransfer, Function: StdTransferWithAuthorization, Target: tdToken, Token: tdToken,
				Counterparty: tdAttacker, Amount: big.NewInt(1_000_000_000_000), Deadline: big.NewInt(1900000000)}},
		},
		"EIP-3009 receive": {
			td: typedDoc(t, "ReceiveWithAuthorization", map[string]string{"ReceiveWithAuthorization": eip3009Types}, tdDom(tdToken),
				map[string]any{"from": tdSigner.Hex(), "to": tdAttacker.Hex(), "value": 5, "validAfter": 0, "validBefore": 1900000000, "nonce": zeroHash}),
			want: StdReceiveWithAuthorization,
			effects: []Effect{{Kind: EffectTokenTransfer, Function: StdReceiveWithAuthorization, Target: tdToken, Token: tdToken,
				Counterparty: tdAttacker, Amount: big.NewInt(5), Deadline: big.NewInt(1900000000)}},
		},
		"EIP-3009 cancel": {
			td: typedDoc(t, "CancelAuthorization", map[string]string{"CancelAuthorization": "address authorizer,bytes32 nonce"}, tdDom(tdToken),
				map[string]any{"authorizer": tdSigner.Hex(), "nonce": zeroHash}),
			want: StdCancelAuthorization,
		},
		"Seaport listing with a fee": {
			td: typedDoc(t, "OrderComponents", map[string]string{"OrderComponents": seaportTypes, "OfferItem": offerItem, "ConsiderationItem": considItem},
				tdDom(tdSpender), map[string]any{"offerer": tdSigner.Hex(), "zone": common.Address{}.Hex(),
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
		"Seaport bulk order": {
			td: typedDoc(t, "BulkOrder", map[string]string{"BulkOrder": "OrderComponents[2][2] tree", "OrderComponents": seaportTypes,
				"OfferItem": offerItem, "ConsiderationItem": considItem}, tdDom(tdSpender),
				map[string]any{"tree": []any{[]any{seaportOrder(tdToken2, 7), seaportOrder(tdToken2, 8)}, []any{seaportOrder(tdToken, 9), emptySeaportOrder()}}}),
			want: StdSeaportBulkOrder,
			effects: []Effect{
				{Kind: EffectTokenTransfer, Function: StdSeaportBulkOrder, Target: tdSpender, Token: tdToken2, Amount: big.NewInt(1), TokenID: big.NewInt(7), Deadline: big.NewInt(1900000000)},
				{Kind: EffectTokenTransfer, Function: StdSeaportBulkOrder, Target: tdSpender, Token: tdToken2, Amount: big.NewInt(1), TokenID: big.NewInt(8), Deadline: big.NewInt(1900000000)},
				{Kind: EffectTokenTransfer, Function: StdSeaportBulkOrder, Target: tdSpender, Token: tdToken, Amount: big.NewInt(1), TokenID: big.NewInt(9), Deadline: big.NewInt(1900000000)}},
		},
		"0x limit order": {
			td: typedDoc(t, "LimitOrder", map[string]string{"LimitOrder": "address makerToken,address takerToken,uint128 makerAmount,uint128 takerAmount," +
				"uint128 takerTokenFeeAmount,address maker,address taker,address sender,address feeRecipient,bytes32 pool,uint64 expiry,uint256 salt"},
				tdDom(tdSpender), map[string]any{"makerToken": tdToken.Hex(), "takerToken": tdToken2.Hex(), "makerAmount": 1_000_000, "takerAmount": 1,
					"takerTokenFeeAmount": 0, "maker": tdSigner.Hex(), "taker": common.Address{}.Hex(), "sender": common.Address{}.Hex(),
					"feeRecipient": common.Address{}.Hex(), "pool": zeroHash, "expiry": 1900000000, "salt": 5}),
			want: StdZeroExLimitOrder,
			effects: []Effect{{Kind: EffectTokenTransfer, Function: StdZeroExLimitOrder, Target: tdSpender, Token: tdToken,
				Amount: big.NewInt(1_000_000), Deadline: big.NewInt(1900000000)}},
		},
		"0x RFQ order": {
			td: typedDoc(t, "RfqOrder", map[string]string{"RfqOrder": "address makerToken,address takerToken,uint128 makerAmount,uint128 takerAmount," +
				"address maker,address taker,address txOrigin,bytes32 pool,uint64 expiry,uint256 salt"},
				tdDom(tdSpender), map[string]any{"makerToken": tdToken.Hex(), "takerToken": tdToken2.Hex(), "makerAmount": 7, "takerAmount": 1,
					"maker": tdSigner.Hex(), "taker": tdAttacker.Hex(), "txOrigin": tdAttacker.Hex(), "pool": zeroHash, "expiry": 1900000000, "salt": 5}),
			want: StdZeroExRfqOrder,
			effects: []Effect{{Kind: EffectTokenTransfer, Function: StdZeroExRfqOrder, Target: tdSpender, Token: tdToken, Counterparty: tdAttacker,
				Amount: big.NewInt(7), Deadline: big.NewInt(1900000000)}},
		},
		"1inch v5 order with a receiver": {
			td: typedDoc(t, "Order", map[string]string{"Order": "uint256 salt,address makerAsset,address takerAsset,address maker,address receiver," +
				"address allowedSender,uint256 makingAmount,uint256 takingAmount,uint256 offsets,bytes interactions"},
				tdDom(tdSpender), map[string]any{"salt": 1, "makerAsset": tdToken.Hex(), "takerAsset": tdToken2.Hex(), "maker": tdSigner.Hex(),
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
				tdDom(tdSpender), map[string]any{"salt": 1, "maker": tdSigner.Hex(), "receiver": common.Address{}.Hex(), "makerAsset": tdToken.Hex(),
					"takerAsset": tdToken2.Hex(), "makingAmount": 100, "takingAmount": 2, "makerTraits": 0}),
			want:    StdOneInchOrder,
			effects: []Effect{{Kind: EffectTokenTransfer, Function: StdOneInchOrder, Target: tdSpender, Token: tdToken, Amount: big.NewInt(100)}},
		},
		"CoW order": {
			td: typedDoc(t, "Order", map[string]string{"Order": "address sellToken,address buyToken,address receiver,uint256 sellAmount," +
				"uint256 buyAmount,uint32 validTo,bytes32 appData,uint256 feeAmount,string kind,bool partiallyFillable,string sellTokenBalance,string buyTokenBalance"},
				tdDom(tdSpender), map[string]any{"sellToken": tdToken.Hex(), "buyToken": tdToken2.Hex(), "receiver": common.Address{}.Hex(),
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
		"EIP-4494 NFT permit": {
			td: typedDoc(t, "Permit", map[string]string{"Permit": "address spender,uint256 tokenId,uint256 nonce,uint256 deadline"}, tdDom(tdToken2),
				map[string]any{"spender": tdAttacker.Hex(), "tokenId": 77, "nonce": 0, "deadline": 1900000000}),
			want: StdERC721Permit,
			effects: []Effect{{Kind: EffectApprove, Function: StdERC721Permit, Target: tdToken2, Token: tdToken2, Counterparty: tdAttacker,
				Amount: big.NewInt(1), TokenID: big.NewInt(77), Deadline: big.NewInt(1900000000)}},
		},
		"Mail is no standard": {
			td: typedDoc(t, "Mail", map[string]string{"Mail": "Person from,Person to,string contents", "Person": "string name,address wallet"},
				tdDom(tdToken), map[string]any{"from": map[string]any{"name": "a", "wallet": tdSigner.Hex()},
					"to": map[string]any{"name": "b", "wallet": tdAttacker.Hex()}, "contents": "hi"}),
		},
		"renamed nested type with another field set is no standard": {
			td: typedDoc(t, "PermitSingle", map[string]string{"PermitSingle": "PermitDetails details,address spender,uint256 sigDeadline",
				"PermitDetails": "address token,uint256 amount"}, tdDom(tdSpender), map[string]any{"details": map[string]any{"token": tdToken.Hex(),
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
		"Polygon meta-transaction": {
			td: typedDoc(t, "MetaTransaction", map[string]string{"MetaTransaction": "uint256 nonce,address from,bytes functionSignature"},
				map[string]any{"name": "USD Coin (PoS)", "version": "1", "verifyingContract": tdToken.Hex(), "salt": "0x0000000000000000000000000000000000000000000000000000000000000089"},
				map[string]any{"nonce": 0, "from": tdSigner.Hex(), "functionSignature": hexutil.Encode(transfer)}),
			want: StdMetaTransaction,
		},
		"OZ v4 forward request": {
			td:   typedDoc(t, "ForwardRequest", map[string]string{"ForwardRequest": fwdV4}, tdDom(tdSpender), fwdMsg(false)),
			want: StdForwardRequest,
		},
		"OZ v5 forward request, renamed": {
			td:   typedDoc(t, "ForwardRequestData", map[string]string{"ForwardRequestData": fwdV5}, tdDom(tdSpender), fwdMsg(true)),
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
		tdDom(tdSpender), map[string]any{"offerer": tdSigner.Hex(), "zone": common.Address{}.Hex(),
			"offer":         []any{map[string]any{"itemType": 9, "token": tdToken2.Hex(), "identifierOrCriteria": 42, "startAmount": 1, "endAmount": 1}},
			"consideration": []any{}, "orderType": 0, "startTime": 0, "endTime": 1, "zoneHash": zeroHash, "salt": 1, "conduitKey": zeroHash, "counter": 0})
	tooMany := typedDoc(t, "PermitBatch", map[string]string{"PermitBatch": "PermitDetails[] details,address spender,uint256 sigDeadline",
		"PermitDetails": permitDetails}, tdDom(tdSpender), map[string]any{"details": []any{}, "spender": tdAttacker.Hex(), "sigDeadline": 1})
	details := make([]any, MaxEffects+1)
	for i := range details {
		details[i] = map[string]any{"token": tdToken.Hex(), "amount": "1", "expiration": "0", "nonce": "0"}
	}
	tooMany.Message["details"] = details
	badTree := typedDoc(t, "BulkOrder", map[string]string{"BulkOrder": "OrderComponents[2] tree", "OrderComponents": seaportTypes,
		"OfferItem": offerItem, "ConsiderationItem": considItem}, tdDom(tdSpender),
		map[string]any{"tree": []any{seaportOrder(tdToken, 1), emptySeaportOrder()}})
	badTree.Message["tree"] = []any{seaportOrder(tdToken, 1)}
	wrongValue := typedDoc(t, "Permit", map[string]string{"Permit": permitTypes}, tdDom(tdToken), permitMsg("1"))
	wrongValue.Message["value"] = "-1"
	missing := typedDoc(t, "Permit", map[string]string{"Permit": permitTypes}, tdDom(tdToken), permitMsg("1"))
	delete(missing.Message, "spender")

	tests := map[string]struct {
		td   apitypes.TypedData
		want string
	}{
		"EIP-2612 without a verifying contract": {noToken, StdEIP2612Permit},
		"SafeTx operation 2":                    {badOp, StdSafeTx},
		"Seaport item type 9":                   {badItem, StdSeaportOrder},
		"Permit2 batch over MaxEffects":         {tooMany, StdPermit2Batch},
		"bulk order tree not a pair":            {badTree, StdSeaportBulkOrder},
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

// FuzzTypedDataEffects feeds arbitrary documents through TypedDataHash and
// TypedDataEffects: no panic, bounded effects, and errors only for a
// recognised standard.
func FuzzTypedDataEffects(f *testing.F) {
	seeds := []apitypes.TypedData{
		typedDoc(f, "Permit", map[string]string{"Permit": permitTypes}, tdDom(tdToken), permitMsg(maxU256)),
		typedDoc(f, "SafeTx", map[string]string{"SafeTx": safeTxTypes}, map[string]any{"chainId": 1, "verifyingContract": tdSafe.Hex()},
			safeTxMsg(tdToken, 1, erc20Transfer(f, tdAttacker, big.NewInt(1)), 1)),
		typedDoc(f, "BulkOrder", map[string]string{"BulkOrder": "OrderComponents[2] tree", "OrderComponents": seaportTypes,
			"OfferItem": offerItem, "ConsiderationItem": considItem}, tdDom(tdSpender),
			map[string]any{"tree": []any{seaportOrder(tdToken, 1), emptySeaportOrder()}}),
	}
	for _, td := range seeds {
		raw, err := json.Marshal(map[string]any{"types": td.Types, "primaryType": td.PrimaryType, "domain": td.Domain, "message": td.Message})
		require.NoError(f, err)
		_, _, err = TypedDataHash(raw)
		require.NoError(f, err, "seed %s", td.PrimaryType)
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		_, td, err := TypedDataHash(raw)
		if err != nil {
			return
		}
		std, effects, err := TypedDataEffects(td)
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidTypedData)
			require.NotEmpty(t, std)
			require.Empty(t, effects)
		}
		if std == "" {
			require.Empty(t, effects)
		}
		require.LessOrEqual(t, len(effects), MaxEffects)
		for _, e := range effects {
			require.LessOrEqual(t, e.Depth, MaxEffectDepth+1)
		}
	})
}

// TestTypedValueReaders: the readers accept what apitypes encodes, and
// nothing else.
func TestTypedValueReaders(t *testing.T) {
	addr := tdAttacker
	var arr [20]byte
	copy(arr[:], addr[:])
	m := map[string]any{
		"big": big.NewInt(7), "hexstr": "0x10", "decstr": "42", "float": float64(3), "frac": 1.5, "neg": big.NewInt(-1),
		"wide": new(big.Int).Lsh(big.NewInt(1), 160), "nilbig": (*big.Int)(nil), "hod": (*math.HexOrDecimal256)(big.NewInt(9)),
		"astr": addr.Hex(), "abytes": addr.Bytes(), "aarr": arr, "acommon": addr, "ashort": []byte{1, 2},
		"bstr": "0xdeadbeef", "bbytes": []byte{1}, "bhex": hexutil.Bytes{2}, "b4": [4]byte{1, 2, 3, 4}, "bbad": "0xzz",
		"yes": true, "yesstr": "true", "struct": map[string]any{}, "list": []any{1},
	}
	for name, want := range map[string]int64{"big": 7, "hexstr": 16, "decstr": 42, "float": 3, "hod": 9} {
		v, err := uintField(m, name, 160)
		require.NoError(t, err, name)
		require.Equal(t, want, v.Int64(), name)
	}
	for _, name := range []string{"frac", "neg", "wide", "nilbig", "missing", "yes"} {
		_, err := uintField(m, name, 160)
		require.Error(t, err, name)
	}
	for _, name := range []string{"astr", "abytes", "aarr", "acommon"} {
		v, err := addressField(m, name)
		require.NoError(t, err, name)
		require.Equal(t, addr, v, name)
	}
	for _, name := range []string{"ashort", "big", "bstr", "missing"} {
		_, err := addressField(m, name)
		require.Error(t, err, name)
	}
	for name, want := range map[string]string{"bstr": "0xdeadbeef", "bbytes": "0x01", "bhex": "0x02", "b4": "0x01020304"} {
		v, err := bytesField(m, name)
		require.NoError(t, err, name)
		require.Equal(t, want, hexutil.Encode(v), name)
	}
	for _, name := range []string{"bbad", "big", "missing"} {
		_, err := bytesField(m, name)
		require.Error(t, err, name)
	}
	v, err := boolField(m, "yes")
	require.NoError(t, err)
	require.True(t, v)
	for _, name := range []string{"yesstr", "missing"} {
		_, err := boolField(m, name)
		require.Error(t, err, name)
	}
	_, err = structField(m, "list")
	require.Error(t, err)
	_, err = structArrayField(m, "struct")
	require.Error(t, err)
	_, err = structArrayField(map[string]any{"l": []any{1}}, "l")
	require.Error(t, err)
}

// TestTypedDataEffectsVariants covers the older shapes and the rarer paths.
func TestTypedDataEffectsVariants(t *testing.T) {
	safeV0 := strings.Replace(safeTxTypes, "baseGas", "dataGas", 1)
	tokenRefund := safeTxMsg(tdAttacker, 0, nil, 0)
	delete(tokenRefund, "baseGas")
	tokenRefund["dataGas"], tokenRefund["gasPrice"], tokenRefund["gasToken"] = 5, 2, tdToken.Hex()
	seaportV10 := strings.Replace(seaportTypes, "uint256 counter", "uint256 nonce", 1)
	order := seaportOrder(tdToken2, 3)
	delete(order, "counter")
	order["nonce"] = 0
	oneInchV2 := "uint256 salt,address makerAsset,address takerAsset,address maker,address receiver,address allowedSender,uint256 makingAmount," +
		"uint256 takingAmount,bytes makerAssetData,bytes takerAssetData,bytes getMakerAmount,bytes getTakerAmount,bytes predicate,bytes permit,bytes interaction"
	oneInch := func(permit string) map[string]any {
		return map[string]any{"salt": 1, "makerAsset": tdToken.Hex(), "takerAsset": tdToken2.Hex(), "maker": tdSigner.Hex(),
			"receiver": tdSigner.Hex(), "allowedSender": tdAttacker.Hex(), "makingAmount": 10, "takingAmount": 1, "makerAssetData": "0x",
			"takerAssetData": "0x", "getMakerAmount": "0x", "getTakerAmount": "0x", "predicate": "0x", "permit": permit, "interaction": "0x"}
	}
	cow := map[string]any{"sellToken": tdToken.Hex(), "buyToken": tdToken2.Hex(), "receiver": tdAttacker.Hex(), "sellAmount": 1000,
		"buyAmount": 1, "validTo": 1900000000, "appData": zeroHash, "feeAmount": 0, "kind": "sell", "partiallyFillable": false,
		"sellTokenBalance": "erc20", "buyTokenBalance": "erc20"}
	cowTypes := "address sellToken,address buyToken,address receiver,uint256 sellAmount,uint256 buyAmount,uint32 validTo," +
		"bytes32 appData,uint256 feeAmount,string kind,bool partiallyFillable,string sellTokenBalance,string buyTokenBalance"
	transfer := hexutil.Encode(erc20Transfer(t, tdAttacker, big.NewInt(3)))

	t.Run("Safe before 1.0 with a token refund", func(t *testing.T) {
		td := typedDoc(t, "SafeTx", map[string]string{"SafeTx": safeV0}, map[string]any{"chainId": 1, "verifyingContract": tdSafe.Hex()}, tokenRefund)
		std, effects, err := TypedDataEffects(td)
		require.NoError(t, err)
		require.Equal(t, StdSafeTx, std)
		require.Equal(t, []Effect{{Kind: EffectTokenTransfer, Function: "SafeTx.refund", Target: tdSafe, Token: tdToken, From: tdSafe,
			Amount: new(big.Int).Mul(big.NewInt(safeRefundGasBound+5), big.NewInt(2))}}, effects)
	})
	t.Run("Seaport 1.0", func(t *testing.T) {
		td := typedDoc(t, "OrderComponents", map[string]string{"OrderComponents": seaportV10, "OfferItem": offerItem, "ConsiderationItem": considItem},
			tdDom(tdSpender), order)
		std, effects, err := TypedDataEffects(td)
		require.NoError(t, err)
		require.Equal(t, StdSeaportOrder, std)
		require.Len(t, effects, 1)
		require.Equal(t, big.NewInt(3), effects[0].TokenID)
	})
	t.Run("1inch v2 with a permit", func(t *testing.T) {
		td := typedDoc(t, "Order", map[string]string{"Order": oneInchV2}, tdDom(tdSpender), oneInch(tdToken.Hex()+transfer[2:]))
		std, effects, err := TypedDataEffects(td)
		require.NoError(t, err)
		require.Equal(t, StdOneInchOrder, std)
		require.Equal(t, Effect{Kind: EffectTokenTransfer, Function: StdOneInchOrder, Target: tdSpender, Token: tdToken, Counterparty: tdAttacker,
			Amount: big.NewInt(10)}, effects[0])
		require.Len(t, effects, 2, "the receiver is the maker: no second transfer; the permit call is decoded")
		require.Equal(t, 1, effects[1].Depth)
	})
	t.Run("1inch v2 with a short permit", func(t *testing.T) {
		td := typedDoc(t, "Order", map[string]string{"Order": oneInchV2}, tdDom(tdSpender), oneInch("0x1234"))
		_, effects, err := TypedDataEffects(td)
		require.NoError(t, err)
		require.Len(t, effects, 2)
		require.True(t, effects[1].DecodeFailed)
	})
	t.Run("CoW proceeds to someone else", func(t *testing.T) {
		td := typedDoc(t, "GPv2Order", map[string]string{"GPv2Order": cowTypes}, tdDom(tdSpender), cow)
		std, effects, err := TypedDataEffects(td)
		require.NoError(t, err)
		require.Equal(t, StdCowOrder, std)
		require.Len(t, effects, 2)
		require.Equal(t, Effect{Kind: EffectTokenTransfer, Function: StdCowOrder, Target: tdSpender, Token: tdToken2, Counterparty: tdAttacker,
			Amount: big.NewInt(1), Deadline: big.NewInt(1900000000)}, effects[1])
	})
	t.Run("more than MaxEffects collapse into one failed decode", func(t *testing.T) {
		td := typedDoc(t, "OrderComponents", map[string]string{"OrderComponents": seaportTypes, "OfferItem": offerItem, "ConsiderationItem": considItem},
			tdDom(tdSpender), seaportOrder(tdToken, 1))
		items := make([]any, 200)
		for i := range items {
			items[i] = map[string]any{"itemType": "1", "token": tdToken.Hex(), "identifierOrCriteria": "0", "startAmount": "1", "endAmount": "1",
				"recipient": tdAttacker.Hex()}
		}
		td.Message["offer"], td.Message["consideration"] = items, items
		std, effects, err := TypedDataEffects(td)
		require.NoError(t, err)
		require.Equal(t, StdSeaportOrder, std)
		require.Equal(t, []Effect{{Kind: EffectCall, Function: StdSeaportOrder, Target: tdSpender, DecodeFailed: true}}, effects)
	})
}
