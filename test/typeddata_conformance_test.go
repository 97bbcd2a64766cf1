package test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/chain/evm"
)

// Realistic addresses of the standards' deployments on Ethereum mainnet.
const (
	tdUSDC     = "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"
	tdDAI      = "0x6B175474E89094C44Da98b954EedeAC495271d0F"
	tdWETH     = "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2"
	tdPermit2  = "0x000000000022D473030F116dDEE9F6B43aC78BA3"
	tdRouter   = "0x3fC91A3afd70395Cd496C647d5a6CC9D4B2b7FAD"
	tdSeaport  = "0x0000000000000068F116a894984e2DB1123eB395"
	tdZeroEx   = "0xDef1C0ded9bec7F1a1670819833240f027b25EfF"
	tdOneInch4 = "0x1111111254fb6c44bAC0beD2854e76F90643097d"
	tdOneInch5 = "0x1111111254EEB25477B68fb85Ed929f73A960582"
	tdOneInch6 = "0x111111125421cA6dc452d289314280a0f8842A65"
	tdCow      = "0x9008D19f58AAbD9eD0D60971565AA8510560ab41"
	tdSafe     = "0x5aFE3855358E112B5647B952709E6165e1c1eEEe"
	tdFwd      = "0xB2b5841DBeF766d4b521221732F9B618fCf34A87"
	tdBAYC     = "0xBC4CA0EdA7647A8aB7C2061c2E118A18a936f13D"
	tdSigner   = "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"
	tdOther    = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"
	tdZeroAddr = "0x0000000000000000000000000000000000000000"
	tdMaxU256  = "115792089237316195423570985008687907853269984665640564039457584007913129639935"
	tdMaxU160  = "1461501637330902918203684832716283019655932542975"
	tdNonce32  = "0x9dfb4c2c8f0b0f0e0a7e3b5b6c2a1d4e5f60718293a4b5c6d7e8f90a1b2c3d4e"
)

// typedCase is one realistic typed-data document of a standard.
type typedCase struct {
	standard string
	doc      map[string]any
}

// tdTypes turns compact type lists ("address owner,uint256 value") into
// EIP-712 type declarations, with EIP712Domain from the domain's fields.
func tdDoc(primary string, types map[string]string, domain, message map[string]any) map[string]any {
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
	for _, f := range []struct{ name, typ string }{{"name", "string"}, {"version", "string"}, {"chainId", "uint256"},
		{"verifyingContract", "address"}, {"salt", "bytes32"}} {
		if _, ok := domain[f.name]; ok {
			dom = append(dom, map[string]string{"name": f.name, "type": f.typ})
		}
	}
	all["EIP712Domain"] = dom
	return map[string]any{"types": all, "primaryType": primary, "domain": domain, "message": message}
}

func typedConformanceCases() map[string]typedCase {
	const (
		permit2Details = "address token,uint160 amount,uint48 expiration,uint48 nonce"
		tokenPerms     = "address token,uint256 amount"
		eip3009        = "address from,address to,uint256 value,uint256 validAfter,uint256 validBefore,bytes32 nonce"
		offerItem      = "uint8 itemType,address token,uint256 identifierOrCriteria,uint256 startAmount,uint256 endAmount"
		considItem     = offerItem + ",address recipient"
		safeTx         = "address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce"
	)
	usdc := map[string]any{"name": "USD Coin", "version": "2", "chainId": 1, "verifyingContract": tdUSDC}
	permit2 := map[string]any{"name": "Permit2", "chainId": 1, "verifyingContract": tdPermit2}
	// transfer(tdOther, 1_000_000) on USDC.
	transfer := "0xa9059cbb" + strings.Repeat("0", 24) + strings.ToLower(tdOther[2:]) + strings.Repeat("0", 59) + "f4240"
	// multiSend's selector with an empty payload: a SafeTx delegatecall as wallets send.
	multiSend := "0x8d80ff0a" + strings.Repeat("0", 62) + "20" + strings.Repeat("0", 64)
	seaportDomain := map[string]any{"name": "Seaport", "version": "1.6", "chainId": 1, "verifyingContract": tdSeaport}
	seaportTypes := "address offerer,address zone,OfferItem[] offer,ConsiderationItem[] consideration,uint8 orderType," +
		"uint256 startTime,uint256 endTime,bytes32 zoneHash,uint256 salt,bytes32 conduitKey,uint256 counter"
	listing := func(id int) map[string]any {
		return map[string]any{"offerer": tdSigner, "zone": tdZeroAddr,
			"offer": []any{map[string]any{"itemType": 2, "token": tdBAYC, "identifierOrCriteria": id, "startAmount": 1, "endAmount": 1}},
			"consideration": []any{
				map[string]any{"itemType": 0, "token": tdZeroAddr, "identifierOrCriteria": 0, "startAmount": "9750000000000000000",
					"endAmount": "9750000000000000000", "recipient": tdSigner},
				map[string]any{"itemType": 0, "token": tdZeroAddr, "identifierOrCriteria": 0, "startAmount": "250000000000000000",
					"endAmount": "250000000000000000", "recipient": "0x0000a26b00c1F0DF003000390027140000fAa719"}},
			"orderType": 0, "startTime": 1700000000, "endTime": 1900000000,
			"zoneHash": "0x0000000000000000000000000000000000000000000000000000000000000000", "salt": "24446860302761739304752683030156737591518664810215442929802950375064553058297",
			"conduitKey": "0x0000007b02230091a7ed01230072f7006a004d60a8d4e71d599b8104250f0000", "counter": 0}
	}
	return map[string]typedCase{
		"Seaport 1.6 BulkOrder": {evm.StdSeaportBulkOrder, tdDoc("BulkOrder",
			map[string]string{"BulkOrder": "OrderComponents[2][2] tree", "OrderComponents": seaportTypes, "OfferItem": offerItem, "ConsiderationItem": considItem},
			seaportDomain, map[string]any{"tree": []any{[]any{listing(1), listing(2)}, []any{listing(3), listing(4)}}})},
		"EIP-2612 USDC permit": {evm.StdEIP2612Permit, tdDoc("Permit",
			map[string]string{"Permit": "address owner,address spender,uint256 value,uint256 nonce,uint256 deadline"}, usdc,
			map[string]any{"owner": tdSigner, "spender": tdRouter, "value": tdMaxU256, "nonce": 0, "deadline": 1900000000})},
		"DAI permit": {evm.StdDAIPermit, tdDoc("Permit",
			map[string]string{"Permit": "address holder,address spender,uint256 nonce,uint256 expiry,bool allowed"},
			map[string]any{"name": "Dai Stablecoin", "version": "1", "chainId": 1, "verifyingContract": tdDAI},
			map[string]any{"holder": tdSigner, "spender": tdRouter, "nonce": 12, "expiry": 0, "allowed": true})},
		"Permit2 PermitSingle": {evm.StdPermit2Single, tdDoc("PermitSingle",
			map[string]string{"PermitSingle": "PermitDetails details,address spender,uint256 sigDeadline", "PermitDetails": permit2Details}, permit2,
			map[string]any{"details": map[string]any{"token": tdUSDC, "amount": tdMaxU160, "expiration": 1900000000, "nonce": 3},
				"spender": tdRouter, "sigDeadline": "1800000000"})},
		"Permit2 PermitBatch": {evm.StdPermit2Batch, tdDoc("PermitBatch",
			map[string]string{"PermitBatch": "PermitDetails[] details,address spender,uint256 sigDeadline", "PermitDetails": permit2Details}, permit2,
			map[string]any{"details": []any{
				map[string]any{"token": tdUSDC, "amount": "1000000000", "expiration": 1900000000, "nonce": 0},
				map[string]any{"token": tdWETH, "amount": "500000000000000000", "expiration": 1900000000, "nonce": 1}},
				"spender": tdRouter, "sigDeadline": 1800000000})},
		"Permit2 PermitTransferFrom": {evm.StdPermit2TransferFrom, tdDoc("PermitTransferFrom",
			map[string]string{"PermitTransferFrom": "TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline", "TokenPermissions": tokenPerms},
			permit2, map[string]any{"permitted": map[string]any{"token": tdUSDC, "amount": "2500000"}, "spender": tdRouter,
				"nonce": "1993350917467637547262563706543127452364013856891427932052637937536", "deadline": 1800000000})},
		"Permit2 PermitBatchTransferFrom": {evm.StdPermit2BatchTransferFrom, tdDoc("PermitBatchTransferFrom",
			map[string]string{"PermitBatchTransferFrom": "TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline", "TokenPermissions": tokenPerms},
			permit2, map[string]any{"permitted": []any{map[string]any{"token": tdUSDC, "amount": 1}, map[string]any{"token": tdDAI, "amount": 2}},
				"spender": tdRouter, "nonce": 7, "deadline": 1800000000})},
		"Permit2 PermitWitnessTransferFrom (UniswapX)": {evm.StdPermit2WitnessTransferFrom, tdDoc("PermitWitnessTransferFrom",
			map[string]string{
				"PermitWitnessTransferFrom": "TokenPermissions permitted,address spender,uint256 nonce,uint256 deadline,ExclusiveDutchOrder witness",
				"TokenPermissions":          tokenPerms,
				"ExclusiveDutchOrder": "OrderInfo info,uint256 decayStartTime,uint256 decayEndTime,address exclusiveFiller,uint256 exclusivityOverrideBps," +
					"address inputToken,uint256 inputStartAmount,uint256 inputEndAmount,DutchOutput[] outputs",
				"OrderInfo":   "address reactor,address swapper,uint256 nonce,uint256 deadline,address additionalValidationContract,bytes additionalValidationData",
				"DutchOutput": "address token,uint256 startAmount,uint256 endAmount,address recipient",
			}, permit2, map[string]any{"permitted": map[string]any{"token": tdUSDC, "amount": "1000000000"}, "spender": tdRouter, "nonce": 9, "deadline": 1800000000,
				"witness": map[string]any{
					"info": map[string]any{"reactor": tdRouter, "swapper": tdSigner, "nonce": 9, "deadline": 1800000000,
						"additionalValidationContract": tdZeroAddr, "additionalValidationData": "0x"},
					"decayStartTime": 1799999000, "decayEndTime": 1800000000, "exclusiveFiller": tdZeroAddr, "exclusivityOverrideBps": 0,
					"inputToken": tdUSDC, "inputStartAmount": "1000000000", "inputEndAmount": "1000000000",
					"outputs": []any{map[string]any{"token": tdWETH, "startAmount": "400000000000000000", "endAmount": "390000000000000000", "recipient": tdSigner}},
				}})},
		"Permit2 PermitBatchWitnessTransferFrom": {evm.StdPermit2BatchWitnessTransferFrom, tdDoc("PermitBatchWitnessTransferFrom",
			map[string]string{
				"PermitBatchWitnessTransferFrom": "TokenPermissions[] permitted,address spender,uint256 nonce,uint256 deadline,MockWitness witness",
				"TokenPermissions":               tokenPerms, "MockWitness": "uint256 value,address person,bool test",
			}, permit2, map[string]any{"permitted": []any{map[string]any{"token": tdUSDC, "amount": 10}}, "spender": tdRouter, "nonce": 1,
				"deadline": 1800000000, "witness": map[string]any{"value": 1000, "person": tdOther, "test": true}})},
		"EIP-3009 TransferWithAuthorization": {evm.StdTransferWithAuthorization, tdDoc("TransferWithAuthorization",
			map[string]string{"TransferWithAuthorization": eip3009}, usdc,
			map[string]any{"from": tdSigner, "to": tdOther, "value": "1000000000000", "validAfter": 0, "validBefore": 1900000000, "nonce": tdNonce32})},
		"EIP-3009 ReceiveWithAuthorization": {evm.StdReceiveWithAuthorization, tdDoc("ReceiveWithAuthorization",
			map[string]string{"ReceiveWithAuthorization": eip3009}, usdc,
			map[string]any{"from": tdSigner, "to": tdOther, "value": 5000000, "validAfter": 1700000000, "validBefore": 1900000000, "nonce": tdNonce32})},
		"EIP-3009 CancelAuthorization": {evm.StdCancelAuthorization, tdDoc("CancelAuthorization",
			map[string]string{"CancelAuthorization": "address authorizer,bytes32 nonce"}, usdc,
			map[string]any{"authorizer": tdSigner, "nonce": tdNonce32})},
		"Seaport 1.6 OrderComponents": {evm.StdSeaportOrder, tdDoc("OrderComponents",
			map[string]string{"OrderComponents": "address offerer,address zone,OfferItem[] offer,ConsiderationItem[] consideration,uint8 orderType," +
				"uint256 startTime,uint256 endTime,bytes32 zoneHash,uint256 salt,bytes32 conduitKey,uint256 counter",
				"OfferItem": offerItem, "ConsiderationItem": considItem},
			map[string]any{"name": "Seaport", "version": "1.6", "chainId": 1, "verifyingContract": tdSeaport},
			map[string]any{"offerer": tdSigner, "zone": tdZeroAddr,
				"offer": []any{map[string]any{"itemType": 2, "token": tdBAYC, "identifierOrCriteria": 1234, "startAmount": 1, "endAmount": 1}},
				"consideration": []any{
					map[string]any{"itemType": 0, "token": tdZeroAddr, "identifierOrCriteria": 0, "startAmount": "9750000000000000000",
						"endAmount": "9750000000000000000", "recipient": tdSigner},
					map[string]any{"itemType": 0, "token": tdZeroAddr, "identifierOrCriteria": 0, "startAmount": "250000000000000000",
						"endAmount": "250000000000000000", "recipient": "0x0000a26b00c1F0DF003000390027140000fAa719"}},
				"orderType": 0, "startTime": 1700000000, "endTime": 1900000000,
				"zoneHash": "0x0000000000000000000000000000000000000000000000000000000000000000", "salt": "24446860302761739304752683030156737591518664810215442929802950375064553058297",
				"conduitKey": "0x0000007b02230091a7ed01230072f7006a004d60a8d4e71d599b8104250f0000", "counter": 0})},
		"Safe SafeTx ERC-20 transfer": {evm.StdSafeTx, tdDoc("SafeTx", map[string]string{"SafeTx": safeTx},
			map[string]any{"chainId": 1, "verifyingContract": tdSafe},
			map[string]any{"to": tdUSDC, "value": 0, "data": transfer, "operation": 0, "safeTxGas": 0, "baseGas": 0, "gasPrice": 0,
				"gasToken": tdZeroAddr, "refundReceiver": tdZeroAddr, "nonce": 42})},
		"Safe SafeTx delegatecall multiSend": {evm.StdSafeTx, tdDoc("SafeTx", map[string]string{"SafeTx": safeTx},
			map[string]any{"chainId": 1, "verifyingContract": tdSafe},
			map[string]any{"to": "0x40A2aCCbd92BCA938b02010E17A5b8929b49130D", "value": 0, "data": multiSend, "operation": 1, "safeTxGas": 0,
				"baseGas": 0, "gasPrice": 0, "gasToken": tdZeroAddr, "refundReceiver": tdZeroAddr, "nonce": 43})},
		"OZ v4 ForwardRequest": {evm.StdForwardRequest, tdDoc("ForwardRequest",
			map[string]string{"ForwardRequest": "address from,address to,uint256 value,uint256 gas,uint256 nonce,bytes data"},
			map[string]any{"name": "MinimalForwarder", "version": "0.0.1", "chainId": 1, "verifyingContract": tdFwd},
			map[string]any{"from": tdSigner, "to": tdUSDC, "value": 0, "gas": 100000, "nonce": 0, "data": transfer})},
		"OZ v5 ForwardRequest": {evm.StdForwardRequest, tdDoc("ForwardRequest",
			map[string]string{"ForwardRequest": "address from,address to,uint256 value,uint256 gas,uint256 nonce,uint48 deadline,bytes data"},
			map[string]any{"name": "ERC2771Forwarder", "version": "1", "chainId": 1, "verifyingContract": tdFwd},
			map[string]any{"from": tdSigner, "to": tdUSDC, "value": 0, "gas": 100000, "nonce": 1, "deadline": 1900000000, "data": transfer})},
		"0x v4 LimitOrder": {evm.StdZeroExLimitOrder, tdDoc("LimitOrder",
			map[string]string{"LimitOrder": "address makerToken,address takerToken,uint128 makerAmount,uint128 takerAmount,uint128 takerTokenFeeAmount," +
				"address maker,address taker,address sender,address feeRecipient,bytes32 pool,uint64 expiry,uint256 salt"},
			map[string]any{"name": "ZeroEx", "version": "1.0.0", "chainId": 1, "verifyingContract": tdZeroEx},
			map[string]any{"makerToken": tdUSDC, "takerToken": tdWETH, "makerAmount": "1000000000", "takerAmount": "400000000000000000",
				"takerTokenFeeAmount": 0, "maker": tdSigner, "taker": tdZeroAddr, "sender": tdZeroAddr, "feeRecipient": tdZeroAddr,
				"pool": "0x0000000000000000000000000000000000000000000000000000000000000000", "expiry": 1900000000, "salt": "1700000000123"})},
		"0x v4 RfqOrder": {evm.StdZeroExRfqOrder, tdDoc("RfqOrder",
			map[string]string{"RfqOrder": "address makerToken,address takerToken,uint128 makerAmount,uint128 takerAmount,address maker,address taker," +
				"address txOrigin,bytes32 pool,uint64 expiry,uint256 salt"},
			map[string]any{"name": "ZeroEx", "version": "1.0.0", "chainId": 1, "verifyingContract": tdZeroEx},
			map[string]any{"makerToken": tdUSDC, "takerToken": tdWETH, "makerAmount": "1000000000", "takerAmount": "400000000000000000",
				"maker": tdSigner, "taker": tdOther, "txOrigin": tdOther,
				"pool": "0x0000000000000000000000000000000000000000000000000000000000000000", "expiry": 1900000000, "salt": 99})},
		"1inch v4 Order": {evm.StdOneInchOrder, tdDoc("Order",
			map[string]string{"Order": "uint256 salt,address makerAsset,address takerAsset,address maker,address receiver,address allowedSender," +
				"uint256 makingAmount,uint256 takingAmount,bytes makerAssetData,bytes takerAssetData,bytes getMakerAmount,bytes getTakerAmount," +
				"bytes predicate,bytes permit,bytes interaction"},
			map[string]any{"name": "1inch Limit Order Protocol", "version": "2", "chainId": 1, "verifyingContract": tdOneInch4},
			map[string]any{"salt": 1, "makerAsset": tdUSDC, "takerAsset": tdWETH, "maker": tdSigner, "receiver": tdZeroAddr, "allowedSender": tdZeroAddr,
				"makingAmount": "1000000000", "takingAmount": "400000000000000000", "makerAssetData": "0x", "takerAssetData": "0x",
				"getMakerAmount": "0xf4a215c3", "getTakerAmount": "0x296637bf", "predicate": "0x", "permit": "0x", "interaction": "0x"})},
		"1inch v5 Order": {evm.StdOneInchOrder, tdDoc("Order",
			map[string]string{"Order": "uint256 salt,address makerAsset,address takerAsset,address maker,address receiver,address allowedSender," +
				"uint256 makingAmount,uint256 takingAmount,uint256 offsets,bytes interactions"},
			map[string]any{"name": "1inch Aggregation Router", "version": "5", "chainId": 1, "verifyingContract": tdOneInch5},
			map[string]any{"salt": "45118768841948961586167738353692277076075522015101619148498725069326976558864", "makerAsset": tdUSDC,
				"takerAsset": tdWETH, "maker": tdSigner, "receiver": tdZeroAddr, "allowedSender": tdZeroAddr, "makingAmount": "1000000000",
				"takingAmount": "400000000000000000", "offsets": 0, "interactions": "0x"})},
		"1inch v6 Order": {evm.StdOneInchOrder, tdDoc("Order",
			map[string]string{"Order": "uint256 salt,address maker,address receiver,address makerAsset,address takerAsset,uint256 makingAmount," +
				"uint256 takingAmount,uint256 makerTraits"},
			map[string]any{"name": "1inch Aggregation Router", "version": "6", "chainId": 1, "verifyingContract": tdOneInch6},
			map[string]any{"salt": "102412815605188492", "maker": tdSigner, "receiver": tdZeroAddr, "makerAsset": tdUSDC, "takerAsset": tdWETH,
				"makingAmount": "1000000000", "takingAmount": "400000000000000000",
				"makerTraits": "62419173104490761595518734106643312524177918888344010093236686688879363751936"})},
		"EIP-4494 Uniswap v3 position permit": {evm.StdERC721Permit, tdDoc("Permit",
			map[string]string{"Permit": "address spender,uint256 tokenId,uint256 nonce,uint256 deadline"},
			map[string]any{"name": "Uniswap V3 Positions NFT-V1", "version": "1", "chainId": 1, "verifyingContract": "0xC36442b4a4522E871399CD717aBDD847Ab11FE88"},
			map[string]any{"spender": tdRouter, "tokenId": 512345, "nonce": 0, "deadline": 1900000000})},
		"Polygon MetaTransaction": {evm.StdMetaTransaction, tdDoc("MetaTransaction",
			map[string]string{"MetaTransaction": "uint256 nonce,address from,bytes functionSignature"},
			map[string]any{"name": "USD Coin (PoS)", "version": "1", "verifyingContract": "0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174",
				"salt": "0x0000000000000000000000000000000000000000000000000000000000000089"},
			map[string]any{"nonce": 3, "from": tdSigner, "functionSignature": transfer})},
		"CoW Protocol Order": {evm.StdCowOrder, tdDoc("Order",
			map[string]string{"Order": "address sellToken,address buyToken,address receiver,uint256 sellAmount,uint256 buyAmount,uint32 validTo," +
				"bytes32 appData,uint256 feeAmount,string kind,bool partiallyFillable,string sellTokenBalance,string buyTokenBalance"},
			map[string]any{"name": "Gnosis Protocol", "version": "v2", "chainId": 1, "verifyingContract": tdCow},
			map[string]any{"sellToken": tdUSDC, "buyToken": tdWETH, "receiver": tdOther, "sellAmount": "1000000000", "buyAmount": "400000000000000000",
				"validTo": 1900000000, "appData": "0xf249b3db926aa5b5a1b18f3fec86b3cc99a9a7a5b4b9a5b4a3f2e1d0c0b0a090", "feeAmount": 0, "kind": "sell",
				"partiallyFillable": false, "sellTokenBalance": "erc20", "buyTokenBalance": "erc20"})},
	}
}

// TestTypedDataDigestsWithEthers builds a realistic message of every
// typed-data standard OCV decodes, checks that evm.TypedDataEffects
// recognises it, and compares its digest (evm.TypedDataHash) with ethers'
// TypedDataEncoder.hash (npm, test/conformance/evm/typeddata.mjs). It fails
// when node or the npm dependencies are missing: `make test` runs npm ci.
func TestTypedDataDigestsWithEthers(t *testing.T) {
	node, err := exec.LookPath("node")
	require.NoError(t, err, "node is required (make test installs it and runs npm ci in test/conformance)")
	_, file, _, _ := runtime.Caller(0)
	dir := filepath.Join(filepath.Dir(file), "conformance")
	_, err = os.Stat(filepath.Join(dir, "node_modules", "ethers", "package.json"))
	require.NoError(t, err, "test/conformance/node_modules is missing: run npm ci --prefix test/conformance")

	type kase struct {
		Name      string         `json:"name"`
		TypedData map[string]any `json:"typed_data"`
	}
	want := map[string]string{}
	var cases []kase
	for name, c := range typedConformanceCases() {
		raw, err := json.Marshal(c.doc)
		require.NoError(t, err)
		digest, td, err := evm.TypedDataHash(raw)
		require.NoError(t, err, name)
		std, effects, err := evm.TypedDataEffects(td)
		require.NoError(t, err, name)
		require.Equal(t, c.standard, std, name)
		if c.standard != evm.StdCancelAuthorization {
			require.NotEmpty(t, effects, name)
		}
		want[name] = "0x" + hex.EncodeToString(digest)
		cases = append(cases, kase{Name: name, TypedData: c.doc})
	}

	in, err := json.Marshal(map[string]any{"cases": cases})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(dir, "evm", "typeddata.mjs"))
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "ethers refused a document:\n%s\n%s", out, stderr.String())

	got := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		var line struct{ Name, Hash, Error string }
		require.NoError(t, json.Unmarshal(sc.Bytes(), &line), sc.Text())
		require.Empty(t, line.Error, line.Name)
		got[line.Name] = strings.ToLower(line.Hash)
	}
	require.NoError(t, sc.Err())
	require.Len(t, got, len(want))
	for name, digest := range want {
		require.Equal(t, digest, got[name], "%s: OCV and ethers disagree on the EIP-712 digest", name)
	}
}
