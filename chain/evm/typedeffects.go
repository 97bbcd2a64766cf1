package evm

import (
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// The typed-data standards TypedDataEffects recognises. The name is the
// standard's, not the request's type name: a message whose primary type has
// a known field set is recognised whatever its type is called.
const (
	StdEIP2612Permit                   = "Permit"
	StdDAIPermit                       = "DaiPermit"
	StdPermit2Single                   = "PermitSingle"
	StdPermit2Batch                    = "PermitBatch"
	StdPermit2TransferFrom             = "PermitTransferFrom"
	StdPermit2BatchTransferFrom        = "PermitBatchTransferFrom"
	StdPermit2WitnessTransferFrom      = "PermitWitnessTransferFrom"
	StdPermit2BatchWitnessTransferFrom = "PermitBatchWitnessTransferFrom"
	StdTransferWithAuthorization       = "TransferWithAuthorization"
	StdReceiveWithAuthorization        = "ReceiveWithAuthorization"
	StdCancelAuthorization             = "CancelAuthorization"
	StdSeaportOrder                    = "SeaportOrderComponents"
	StdSeaportBulkOrder                = "SeaportBulkOrder"
	StdSafeTx                          = "SafeTx"
	StdForwardRequest                  = "ForwardRequest"
	StdZeroExLimitOrder                = "0xLimitOrder"
	StdZeroExRfqOrder                  = "0xRfqOrder"
	StdOneInchOrder                    = "1inchOrder"
	StdCowOrder                        = "CowOrder"
	StdERC721Permit                    = "ERC721Permit"
	StdMetaTransaction                 = "MetaTransaction"
)

// safeRefundGasBound stands for the gas of a SafeTx with safeTxGas 0 (no
// limit but the block's) when its refund is priced.
const safeRefundGasBound = 1 << 30

// shape is the field set a standard's struct must have: field name → type.
// A type is a Solidity atomic type ("address", "uint256"), "@name" for a
// struct of shape shapes[name], optionally followed by "[]"; "*struct"
// matches any struct (Permit2 witnesses).
type shape map[string]string

// shapes are the nested structs of the standards, by a name of our own.
var shapes = map[string]shape{
	"PermitDetails":    {"token": "address", "amount": "uint160", "expiration": "uint48", "nonce": "uint48"},
	"TokenPermissions": {"token": "address", "amount": "uint256"},
	"OfferItem": {"itemType": "uint8", "token": "address", "identifierOrCriteria": "uint256",
		"startAmount": "uint256", "endAmount": "uint256"},
	"ConsiderationItem": {"itemType": "uint8", "token": "address", "identifierOrCriteria": "uint256",
		"startAmount": "uint256", "endAmount": "uint256", "recipient": "address"},
}

// typedStandard is one recognised field set of a primary type.
type typedStandard struct {
	name   string
	fields shape
	decode func(d *typedDecoder) error
}

var seaportFields = shape{"offerer": "address", "zone": "address", "offer": "@OfferItem[]",
	"consideration": "@ConsiderationItem[]", "orderType": "uint8", "startTime": "uint256", "endTime": "uint256",
	"zoneHash": "bytes32", "salt": "uint256", "conduitKey": "bytes32", "counter": "uint256"}

// seaportV10Fields is Seaport 1.0's order: the counter was called "nonce".
var seaportV10Fields = seaportFields.with(shape{"nonce": "uint256"}, "counter")

var safeTxFields = shape{"to": "address", "value": "uint256", "data": "bytes", "operation": "uint8",
	"safeTxGas": "uint256", "baseGas": "uint256", "gasPrice": "uint256", "gasToken": "address",
	"refundReceiver": "address", "nonce": "uint256"}

var eip3009Fields = shape{"from": "address", "to": "address", "value": "uint256", "validAfter": "uint256",
	"validBefore": "uint256", "nonce": "bytes32"}

// with returns a copy of s with the fields of extra added and the fields
// named in drop removed.
func (s shape) with(extra shape, drop ...string) shape {
	out := make(shape, len(s)+len(extra))
	for k, v := range s {
		if !slices.Contains(drop, k) {
			out[k] = v
		}
	}
	for k, v := range extra {
		out[k] = v
	}
	return out
}

// standards lists every recognised field set. Field sets are distinct, so
// at most one matches; EIP-3009's transfer and receive share one and are
// told apart by the type name (their effects are the same).
var standards = []typedStandard{
	{StdEIP2612Permit, shape{"owner": "address", "spender": "address", "value": "uint256", "nonce": "uint256", "deadline": "uint256"}, decodeEIP2612},
	{StdDAIPermit, shape{"holder": "address", "spender": "address", "nonce": "uint256", "expiry": "uint256", "allowed": "bool"}, decodeDAIPermit},
	{StdPermit2Single, shape{"details": "@PermitDetails", "spender": "address", "sigDeadline": "uint256"}, decodePermit2Allowance},
	{StdPermit2Batch, shape{"details": "@PermitDetails[]", "spender": "address", "sigDeadline": "uint256"}, decodePermit2Allowance},
	{StdPermit2TransferFrom, shape{"permitted": "@TokenPermissions", "spender": "address", "nonce": "uint256", "deadline": "uint256"}, decodePermit2Transfer},
	{StdPermit2BatchTransferFrom, shape{"permitted": "@TokenPermissions[]", "spender": "address", "nonce": "uint256", "deadline": "uint256"}, decodePermit2Transfer},
	{StdPermit2WitnessTransferFrom, shape{"permitted": "@TokenPermissions", "spender": "address", "nonce": "uint256", "deadline": "uint256", "": "*struct"}, decodePermit2Transfer},
	{StdPermit2BatchWitnessTransferFrom, shape{"permitted": "@TokenPermissions[]", "spender": "address", "nonce": "uint256", "deadline": "uint256", "": "*struct"}, decodePermit2Transfer},
	{StdTransferWithAuthorization, eip3009Fields, decodeEIP3009},
	{StdCancelAuthorization, shape{"authorizer": "address", "nonce": "bytes32"}, func(*typedDecoder) error { return nil }},
	{StdSeaportOrder, seaportFields, decodeSeaport},
	// Seaport 1.0 called the counter "nonce".
	{StdSeaportOrder, seaportV10Fields, decodeSeaport},
	{StdSafeTx, safeTxFields, decodeSafeTx},
	// Safe before 1.0 called baseGas "dataGas".
	{StdSafeTx, safeTxFields.with(shape{"dataGas": "uint256"}, "baseGas"), decodeSafeTx},
	// OpenZeppelin MinimalForwarder (v4).
	{StdForwardRequest, shape{"from": "address", "to": "address", "value": "uint256", "gas": "uint256", "nonce": "uint256", "data": "bytes"}, decodeForwardRequest},
	// OpenZeppelin ERC2771Forwarder (v5): ForwardRequestData's signed struct.
	{StdForwardRequest, shape{"from": "address", "to": "address", "value": "uint256", "gas": "uint256", "nonce": "uint256", "deadline": "uint48", "data": "bytes"}, decodeForwardRequest},
	// OpenGSN v3 forwarder.
	{StdForwardRequest, shape{"from": "address", "to": "address", "value": "uint256", "gas": "uint256", "nonce": "uint256", "data": "bytes", "validUntilTime": "uint256"}, decodeForwardRequest},
	{StdZeroExLimitOrder, shape{"makerToken": "address", "takerToken": "address", "makerAmount": "uint128", "takerAmount": "uint128",
		"takerTokenFeeAmount": "uint128", "maker": "address", "taker": "address", "sender": "address", "feeRecipient": "address",
		"pool": "bytes32", "expiry": "uint64", "salt": "uint256"}, decodeZeroEx},
	{StdZeroExRfqOrder, shape{"makerToken": "address", "takerToken": "address", "makerAmount": "uint128", "takerAmount": "uint128",
		"maker": "address", "taker": "address", "txOrigin": "address", "pool": "bytes32", "expiry": "uint64", "salt": "uint256"}, decodeZeroEx},
	// 1inch limit order protocol v2 (aggregation router v4).
	{StdOneInchOrder, shape{"salt": "uint256", "makerAsset": "address", "takerAsset": "address", "maker": "address", "receiver": "address",
		"allowedSender": "address", "makingAmount": "uint256", "takingAmount": "uint256", "makerAssetData": "bytes", "takerAssetData": "bytes",
		"getMakerAmount": "bytes", "getTakerAmount": "bytes", "predicate": "bytes", "permit": "bytes", "interaction": "bytes"}, decodeOneInch},
	// 1inch limit order protocol v3 (aggregation router v5).
	{StdOneInchOrder, shape{"salt": "uint256", "makerAsset": "address", "takerAsset": "address", "maker": "address", "receiver": "address",
		"allowedSender": "address", "makingAmount": "uint256", "takingAmount": "uint256", "offsets": "uint256", "interactions": "bytes"}, decodeOneInch},
	// 1inch limit order protocol v4 (aggregation router v6).
	{StdOneInchOrder, shape{"salt": "uint256", "maker": "address", "receiver": "address", "makerAsset": "address", "takerAsset": "address",
		"makingAmount": "uint256", "takingAmount": "uint256", "makerTraits": "uint256"}, decodeOneInch},
	// EIP-4494 / Uniswap v3 positions: a permit for one NFT.
	{StdERC721Permit, shape{"spender": "address", "tokenId": "uint256", "nonce": "uint256", "deadline": "uint256"}, decodeERC721Permit},
	// Polygon PoS native meta-transactions (executeMetaTransaction on the
	// verifying contract).
	{StdMetaTransaction, shape{"nonce": "uint256", "from": "address", "functionSignature": "bytes"}, decodeMetaTransaction},
	{StdCowOrder, shape{"sellToken": "address", "buyToken": "address", "receiver": "address", "sellAmount": "uint256", "buyAmount": "uint256",
		"validTo": "uint32", "appData": "bytes32", "feeAmount": "uint256", "kind": "string", "partiallyFillable": "bool",
		"sellTokenBalance": "string", "buyTokenBalance": "string"}, decodeCow},
}

// TypedDataEffects recognises the EIP-712 standards that move assets or
// grant rights and returns the standard's name (one of the Std constants)
// and its effects (see Effect). A standard is recognised by the field set
// of the primary type (names and types, nested structs compared by their
// own field sets), not by the type's name: a "Permit" with other fields is
// no standard, a renamed EIP-2612 permit is one. Typed data of no known
// standard gives "" and no effects; a known standard whose message is
// malformed gives the standard's name and an error wrapping
// ErrInvalidTypedData. Wrapper-level effects have Depth 0 and Target the
// domain's verifying contract; the inner calls of SafeTx and forward
// requests come from CallEffects with Depth 1 and more. More than
// MaxEffects effects collapse into one failed decode.
func TypedDataEffects(td apitypes.TypedData) (standard string, effects []Effect, err error) {
	fields, ok := td.Types[td.PrimaryType]
	if !ok || td.PrimaryType == "EIP712Domain" {
		return "", nil, nil
	}
	if height, ok := bulkOrderHeight(td.Types, fields); ok {
		d := &typedDecoder{td: td, std: StdSeaportBulkOrder, verifying: Domain(td).VerifyingContract}
		if err := decodeBulkOrder(d, height); err != nil {
			return StdSeaportBulkOrder, nil, fmt.Errorf("%w: %s: %w", ErrInvalidTypedData, StdSeaportBulkOrder, err)
		}
		if len(d.effects) > MaxEffects {
			return StdSeaportBulkOrder, []Effect{{Kind: EffectCall, Function: StdSeaportBulkOrder, Target: d.verifying, DecodeFailed: true}}, nil
		}
		return StdSeaportBulkOrder, d.effects, nil
	}
	for _, std := range standards {
		if !matchShape(td.Types, fields, std.fields, 0) {
			continue
		}
		name := std.name
		if name == StdTransferWithAuthorization && td.PrimaryType == StdReceiveWithAuthorization {
			name = StdReceiveWithAuthorization
		}
		d := &typedDecoder{td: td, std: name, msg: td.Message, verifying: Domain(td).VerifyingContract}
		if err := std.decode(d); err != nil {
			return name, nil, fmt.Errorf("%w: %s: %w", ErrInvalidTypedData, name, err)
		}
		if len(d.effects) > MaxEffects {
			return name, []Effect{{Kind: EffectCall, Function: name, Target: d.verifying, DecodeFailed: true}}, nil
		}
		return name, d.effects, nil
	}
	return "", nil, nil
}

// matchShape reports whether the declared fields are exactly want.
func matchShape(types apitypes.Types, fields []apitypes.Type, want shape, depth int) bool {
	if depth > 2 || len(fields) != len(want) {
		return false
	}
	seen := make(map[string]bool, len(fields))
	for _, f := range fields {
		if seen[f.Name] {
			return false
		}
		seen[f.Name] = true
		t, ok := want[f.Name]
		if !ok {
			// The only wildcard: a Permit2 witness, any name, any struct.
			t, ok = want[""]
			if !ok || seen[""] {
				return false
			}
			seen[""] = true
		}
		if !matchType(types, f.Type, t, depth) {
			return false
		}
	}
	return true
}

func matchType(types apitypes.Types, declared, want string, depth int) bool {
	switch {
	case want == "*struct":
		_, ok := types[declared]
		return ok && declared != "EIP712Domain"
	case strings.HasPrefix(want, "@"):
		wantArray := strings.HasSuffix(want, "[]")
		if wantArray != strings.HasSuffix(declared, "[]") {
			return false
		}
		name := strings.TrimSuffix(declared, "[]")
		nested, ok := types[name]
		if !ok || name == "EIP712Domain" {
			return false
		}
		return matchShape(types, nested, shapes[strings.TrimSuffix(strings.TrimPrefix(want, "@"), "[]")], depth+1)
	default:
		return declared == want
	}
}

// typedDecoder accumulates the effects of one message.
type typedDecoder struct {
	td        apitypes.TypedData
	std       string
	msg       map[string]any
	verifying common.Address
	effects   []Effect
}

func (d *typedDecoder) add(e Effect) {
	if e.Function == "" {
		e.Function = d.std
	}
	if e.Target == (common.Address{}) && e.Depth == 0 {
		e.Target = d.verifying
	}
	// Effects share no numbers: one deadline often serves several items.
	e.Amount, e.TokenID, e.Deadline = cloneInt(e.Amount), cloneInt(e.TokenID), cloneInt(e.Deadline)
	d.effects = append(d.effects, e)
}

// inner adds the effects of the call data to `to` that a wrapper makes,
// one level deeper. from, when set, replaces a zero From (a Safe spends
// its own assets, not the signer's).
func (d *typedDecoder) inner(to common.Address, data []byte, from common.Address) {
	for _, e := range CallEffects(to, data) {
		e.Depth++
		if e.Depth > MaxEffectDepth {
			e.DecodeFailed = true
		}
		if e.From == (common.Address{}) {
			e.From = from
		}
		d.effects = append(d.effects, e)
		if len(d.effects) > MaxEffects {
			return
		}
	}
}

// The value readers accept what apitypes encodes, with the same meaning,
// so that the effects describe the message the digest commits to.

func fieldOf(m map[string]any, name string) (any, error) {
	v, ok := m[name]
	if !ok {
		return nil, fmt.Errorf("field %s is missing", name)
	}
	return v, nil
}

func uintField(m map[string]any, name string, bits int) (*big.Int, error) {
	v, err := fieldOf(m, name)
	if err != nil {
		return nil, err
	}
	var b *big.Int
	switch t := v.(type) {
	case *big.Int:
		b = t
	case *math.HexOrDecimal256:
		b = (*big.Int)(t)
	case string:
		var h math.HexOrDecimal256
		if err := h.UnmarshalText([]byte(t)); err != nil {
			return nil, fmt.Errorf("field %s is not an integer", name)
		}
		b = (*big.Int)(&h)
	case float64:
		if float64(int64(t)) != t {
			return nil, fmt.Errorf("field %s is not an integer", name)
		}
		b = big.NewInt(int64(t))
	}
	if b == nil || b.Sign() < 0 || b.BitLen() > bits {
		return nil, fmt.Errorf("field %s is not a uint%d", name, bits)
	}
	return new(big.Int).Set(b), nil
}

func addressField(m map[string]any, name string) (common.Address, error) {
	v, err := fieldOf(m, name)
	if err != nil {
		return common.Address{}, err
	}
	switch t := v.(type) {
	case string:
		if common.IsHexAddress(t) {
			return common.HexToAddress(t), nil
		}
	case []byte:
		if len(t) == 20 {
			return common.BytesToAddress(t), nil
		}
	case [20]byte:
		return common.Address(t), nil
	case common.Address:
		return t, nil
	}
	return common.Address{}, fmt.Errorf("field %s is not an address", name)
}

func boolField(m map[string]any, name string) (bool, error) {
	v, err := fieldOf(m, name)
	if err != nil {
		return false, err
	}
	b, ok := v.(bool)
	if !ok {
		return false, fmt.Errorf("field %s is not a bool", name)
	}
	return b, nil
}

func bytesField(m map[string]any, name string) ([]byte, error) {
	v, err := fieldOf(m, name)
	if err != nil {
		return nil, err
	}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Array && rv.Type().Elem().Kind() == reflect.Uint8 {
		out := make([]byte, rv.Len())
		reflect.Copy(reflect.ValueOf(out), rv)
		return out, nil
	}
	switch t := v.(type) {
	case []byte:
		return t, nil
	case hexutil.Bytes:
		return t, nil
	case string:
		if b, err := hexutil.Decode(t); err == nil {
			return b, nil
		}
	}
	return nil, fmt.Errorf("field %s is not hex bytes", name)
}

func structField(m map[string]any, name string) (map[string]any, error) {
	v, err := fieldOf(m, name)
	if err != nil {
		return nil, err
	}
	s, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("field %s is not a struct", name)
	}
	return s, nil
}

func structArrayField(m map[string]any, name string) ([]map[string]any, error) {
	v, err := fieldOf(m, name)
	if err != nil {
		return nil, err
	}
	var items []any
	switch t := v.(type) {
	case []any:
		items = t
	case []map[string]any:
		if len(t) > MaxEffects {
			return nil, fmt.Errorf("field %s has %d items, limit %d", name, len(t), MaxEffects)
		}
		return t, nil
	default:
		return nil, fmt.Errorf("field %s is not an array", name)
	}
	if len(items) > MaxEffects {
		return nil, fmt.Errorf("field %s has %d items, limit %d", name, len(items), MaxEffects)
	}
	out := make([]map[string]any, len(items))
	for i, it := range items {
		s, ok := it.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("field %s[%d] is not a struct", name, i)
		}
		out[i] = s
	}
	return out, nil
}

// fields reads several fields of one kind, stopping at the first error.
type fieldReader struct {
	m   map[string]any
	err error
}

func (r *fieldReader) addr(name string) common.Address {
	if r.err != nil {
		return common.Address{}
	}
	a, err := addressField(r.m, name)
	r.err = err
	return a
}

func (r *fieldReader) uint(name string, bits int) *big.Int {
	if r.err != nil {
		return nil
	}
	v, err := uintField(r.m, name, bits)
	r.err = err
	return v
}

func (r *fieldReader) bool(name string) bool {
	if r.err != nil {
		return false
	}
	v, err := boolField(r.m, name)
	r.err = err
	return v
}

func (r *fieldReader) bytes(name string) []byte {
	if r.err != nil {
		return nil
	}
	v, err := bytesField(r.m, name)
	r.err = err
	return v
}

func cloneInt(v *big.Int) *big.Int {
	if v == nil {
		return nil
	}
	return new(big.Int).Set(v)
}

// nonZero returns nil for a zero deadline (none).
func nonZero(v *big.Int) *big.Int {
	if v == nil || v.Sign() == 0 {
		return nil
	}
	return v
}

// requireToken refuses a token standard whose domain names no token.
func (d *typedDecoder) requireToken() error {
	if d.verifying == (common.Address{}) {
		return fmt.Errorf("domain verifyingContract (the token) is missing")
	}
	return nil
}

func decodeEIP2612(d *typedDecoder) error {
	r := &fieldReader{m: d.msg}
	r.addr("owner")
	spender, value, deadline := r.addr("spender"), r.uint("value", 256), r.uint("deadline", 256)
	if r.err != nil {
		return r.err
	}
	if err := d.requireToken(); err != nil {
		return err
	}
	d.add(Effect{Kind: EffectApprove, Token: d.verifying, Counterparty: spender, Amount: value,
		Unlimited: IsUnlimitedAmount(value), Deadline: deadline})
	return nil
}

func decodeDAIPermit(d *typedDecoder) error {
	r := &fieldReader{m: d.msg}
	r.addr("holder")
	spender, expiry, allowed := r.addr("spender"), r.uint("expiry", 256), r.bool("allowed")
	if r.err != nil {
		return r.err
	}
	if err := d.requireToken(); err != nil {
		return err
	}
	e := Effect{Kind: EffectApprove, Token: d.verifying, Counterparty: spender, Unlimited: allowed, Deadline: nonZero(expiry)}
	if !allowed {
		e.Amount = new(big.Int) // a revocation
	}
	d.add(e)
	return nil
}

// permit2Unlimited is 2^159: a Permit2 allowance (uint160) at or above it,
// max uint160 included, is treated as unlimited.
var permit2Unlimited = new(big.Int).Lsh(big.NewInt(1), 159)

func decodePermit2Allowance(d *typedDecoder) error {
	r := &fieldReader{m: d.msg}
	spender := r.addr("spender")
	r.uint("sigDeadline", 256)
	if r.err != nil {
		return r.err
	}
	var details []map[string]any
	if d.std == StdPermit2Single {
		s, err := structField(d.msg, "details")
		if err != nil {
			return err
		}
		details = []map[string]any{s}
	} else {
		var err error
		if details, err = structArrayField(d.msg, "details"); err != nil {
			return err
		}
	}
	for _, det := range details {
		dr := &fieldReader{m: det}
		token, amount, expiration := dr.addr("token"), dr.uint("amount", 160), dr.uint("expiration", 48)
		dr.uint("nonce", 48)
		if dr.err != nil {
			return fmt.Errorf("details: %w", dr.err)
		}
		d.add(Effect{Kind: EffectApprove, Token: token, Counterparty: spender, Amount: amount,
			Unlimited: amount.Cmp(permit2Unlimited) >= 0, Deadline: nonZero(expiration)})
	}
	return nil
}

// decodePermit2Transfer: a signature transfer lets the spender move up to
// the permitted amounts once, to recipients it chooses: a one-time
// allowance to the spender.
func decodePermit2Transfer(d *typedDecoder) error {
	r := &fieldReader{m: d.msg}
	spender, deadline := r.addr("spender"), r.uint("deadline", 256)
	r.uint("nonce", 256)
	if r.err != nil {
		return r.err
	}
	var permitted []map[string]any
	if d.std == StdPermit2TransferFrom || d.std == StdPermit2WitnessTransferFrom {
		s, err := structField(d.msg, "permitted")
		if err != nil {
			return err
		}
		permitted = []map[string]any{s}
	} else {
		var err error
		if permitted, err = structArrayField(d.msg, "permitted"); err != nil {
			return err
		}
	}
	for _, p := range permitted {
		pr := &fieldReader{m: p}
		token, amount := pr.addr("token"), pr.uint("amount", 256)
		if pr.err != nil {
			return fmt.Errorf("permitted: %w", pr.err)
		}
		d.add(Effect{Kind: EffectApprove, Token: token, Counterparty: spender, Amount: amount,
			Unlimited: IsUnlimitedAmount(amount), Deadline: deadline})
	}
	return nil
}

func decodeEIP3009(d *typedDecoder) error {
	r := &fieldReader{m: d.msg}
	r.addr("from")
	to, value, validBefore := r.addr("to"), r.uint("value", 256), r.uint("validBefore", 256)
	r.uint("validAfter", 256)
	r.bytes("nonce")
	if r.err != nil {
		return r.err
	}
	if err := d.requireToken(); err != nil {
		return err
	}
	d.add(Effect{Kind: EffectTokenTransfer, Token: d.verifying, Counterparty: to, Amount: value, Deadline: validBefore})
	return nil
}

// Seaport item types.
const (
	seaportNative = iota
	seaportERC20
	seaportERC721
	seaportERC1155
	seaportERC721Criteria
	seaportERC1155Criteria
)

func decodeSeaport(d *typedDecoder) error {
	r := &fieldReader{m: d.msg}
	offerer, end := r.addr("offerer"), r.uint("endTime", 256)
	if r.err != nil {
		return r.err
	}
	offer, err := structArrayField(d.msg, "offer")
	if err != nil {
		return err
	}
	consideration, err := structArrayField(d.msg, "consideration")
	if err != nil {
		return err
	}
	item := func(m map[string]any, counterparty common.Address) error {
		ir := &fieldReader{m: m}
		kind, token, id := ir.uint("itemType", 8), ir.addr("token"), ir.uint("identifierOrCriteria", 256)
		start, endAmount := ir.uint("startAmount", 256), ir.uint("endAmount", 256)
		if ir.err != nil {
			return ir.err
		}
		amount := start
		if endAmount.Cmp(amount) > 0 {
			amount = endAmount
		}
		e := Effect{Kind: EffectTokenTransfer, Token: token, Counterparty: counterparty, Amount: amount, Deadline: end}
		switch kind.Int64() {
		case seaportNative:
			e.Kind, e.Token = EffectNativeTransfer, common.Address{}
		case seaportERC20:
		case seaportERC721, seaportERC1155:
			e.TokenID = id
		case seaportERC721Criteria, seaportERC1155Criteria:
			// Any token of the collection matching the criteria root: no
			// single token id.
		default:
			return fmt.Errorf("item type %s is unknown", kind)
		}
		d.add(e)
		return nil
	}
	for i, o := range offer {
		// An order anyone may fulfil: the offer goes to an open counterparty.
		if err := item(o, common.Address{}); err != nil {
			return fmt.Errorf("offer[%d]: %w", i, err)
		}
	}
	for i, c := range consideration {
		recipient, err := addressField(c, "recipient")
		if err != nil {
			return fmt.Errorf("consideration[%d]: %w", i, err)
		}
		if recipient == offerer {
			// What the offerer receives moves nothing of theirs; still check the item.
			if _, err := uintField(c, "itemType", 8); err != nil {
				return fmt.Errorf("consideration[%d]: %w", i, err)
			}
			continue
		}
		if err := item(c, recipient); err != nil {
			return fmt.Errorf("consideration[%d]: %w", i, err)
		}
	}
	return nil
}

func decodeSafeTx(d *typedDecoder) error {
	r := &fieldReader{m: d.msg}
	to, value, data, op := r.addr("to"), r.uint("value", 256), r.bytes("data"), r.uint("operation", 8)
	safeTxGas, gasPrice := r.uint("safeTxGas", 256), r.uint("gasPrice", 256)
	gasToken, refundReceiver := r.addr("gasToken"), r.addr("refundReceiver")
	r.uint("nonce", 256)
	baseName := "baseGas"
	if _, ok := d.msg["dataGas"]; ok {
		baseName = "dataGas"
	}
	baseGas := r.uint(baseName, 256)
	if r.err != nil {
		return r.err
	}
	safe := d.verifying
	if safe == (common.Address{}) {
		return fmt.Errorf("domain verifyingContract (the Safe) is missing")
	}
	switch op.Int64() {
	case 0:
	case 1:
		// A delegatecall runs to's code as the Safe: it can do anything.
		d.add(Effect{Kind: EffectPrivileged, Function: "delegatecall", Target: safe, From: safe, Counterparty: to})
	default:
		return fmt.Errorf("operation %s is neither call (0) nor delegatecall (1)", op)
	}
	if value.Sign() > 0 {
		d.add(Effect{Kind: EffectNativeTransfer, Target: to, From: safe, Counterparty: to, Amount: value, Depth: 1})
	}
	d.inner(to, data, safe)
	if gasPrice.Sign() > 0 {
		// The Safe refunds (gas used + baseGas) × gasPrice in gasToken
		// (zero: native) to refundReceiver (zero: whoever relays it).
		gas := safeTxGas
		if gas.Sign() == 0 {
			gas = big.NewInt(safeRefundGasBound)
		}
		amount := new(big.Int).Mul(new(big.Int).Add(gas, baseGas), gasPrice)
		e := Effect{Kind: EffectTokenTransfer, Function: "SafeTx.refund", Token: gasToken, From: safe, Counterparty: refundReceiver, Amount: amount}
		if gasToken == (common.Address{}) {
			e.Kind = EffectNativeTransfer
		}
		d.add(e)
	}
	return nil
}

func decodeForwardRequest(d *typedDecoder) error {
	r := &fieldReader{m: d.msg}
	r.addr("from")
	to, value, data := r.addr("to"), r.uint("value", 256), r.bytes("data")
	r.uint("gas", 256)
	r.uint("nonce", 256)
	var deadline *big.Int
	if _, ok := d.msg["deadline"]; ok {
		deadline = r.uint("deadline", 48)
	} else if _, ok := d.msg["validUntilTime"]; ok {
		deadline = r.uint("validUntilTime", 256)
	}
	if r.err != nil {
		return r.err
	}
	if value.Sign() > 0 {
		d.add(Effect{Kind: EffectNativeTransfer, Target: to, Counterparty: to, Amount: value, Deadline: nonZero(deadline), Depth: 1})
	}
	// The target runs data on behalf of the signer (EIP-2771): its effects
	// are the signer's own.
	d.inner(to, data, common.Address{})
	return nil
}

func decodeZeroEx(d *typedDecoder) error {
	r := &fieldReader{m: d.msg}
	makerToken, makerAmount, taker, expiry := r.addr("makerToken"), r.uint("makerAmount", 128), r.addr("taker"), r.uint("expiry", 64)
	r.addr("maker")
	if r.err != nil {
		return r.err
	}
	d.add(Effect{Kind: EffectTokenTransfer, Token: makerToken, Counterparty: taker, Amount: makerAmount, Deadline: nonZero(expiry)})
	return nil
}

func decodeOneInch(d *typedDecoder) error {
	r := &fieldReader{m: d.msg}
	maker, receiver := r.addr("maker"), r.addr("receiver")
	makerAsset, takerAsset := r.addr("makerAsset"), r.addr("takerAsset")
	making, taking := r.uint("makingAmount", 256), r.uint("takingAmount", 256)
	var taker common.Address
	if _, ok := d.msg["allowedSender"]; ok {
		taker = r.addr("allowedSender")
	}
	var permit []byte
	if _, ok := d.msg["permit"]; ok {
		permit = r.bytes("permit")
	}
	if r.err != nil {
		return r.err
	}
	// Protocol v4 packs the allowed sender into makerTraits (its low 80
	// bits only): treated as open.
	d.add(Effect{Kind: EffectTokenTransfer, Token: makerAsset, Counterparty: taker, Amount: making})
	if receiver != (common.Address{}) && receiver != maker {
		d.add(Effect{Kind: EffectTokenTransfer, Token: takerAsset, Counterparty: receiver, Amount: taking})
	}
	if len(permit) > 0 {
		// Protocol v2 runs permit (token ‖ calldata) on the first fill.
		if len(permit) < common.AddressLength {
			d.add(Effect{Kind: EffectCall, Function: "permit", DecodeFailed: true})
		} else {
			d.inner(common.BytesToAddress(permit[:common.AddressLength]), permit[common.AddressLength:], common.Address{})
		}
	}
	return nil
}

func decodeCow(d *typedDecoder) error {
	r := &fieldReader{m: d.msg}
	sellToken, buyToken, receiver := r.addr("sellToken"), r.addr("buyToken"), r.addr("receiver")
	sell, buy, fee, validTo := r.uint("sellAmount", 256), r.uint("buyAmount", 256), r.uint("feeAmount", 256), r.uint("validTo", 32)
	if r.err != nil {
		return r.err
	}
	// The settlement contract may take sellAmount + feeAmount for any
	// solver's trade: an open counterparty.
	d.add(Effect{Kind: EffectTokenTransfer, Token: sellToken, Amount: new(big.Int).Add(sell, fee), Deadline: validTo})
	if receiver != (common.Address{}) {
		// The proceeds go to someone other than the signer (zero: the owner).
		d.add(Effect{Kind: EffectTokenTransfer, Token: buyToken, Counterparty: receiver, Amount: buy, Deadline: validTo})
	}
	return nil
}

// maxBulkOrderHeight is Seaport's limit on a bulk order tree's height.
const maxBulkOrderHeight = 24

// maxBulkOrders bounds the orders of one bulk order OCV walks; a 128 KiB
// document holds far fewer.
const maxBulkOrders = 1024

// bulkOrderHeight recognises a Seaport bulk order: one field "tree" of
// type Order[2]…[2] (height times) where Order has a Seaport order's
// field set.
func bulkOrderHeight(types apitypes.Types, fields []apitypes.Type) (int, bool) {
	if len(fields) != 1 || fields[0].Name != "tree" {
		return 0, false
	}
	base, height := fields[0].Type, 0
	for strings.HasSuffix(base, "[2]") {
		base, height = strings.TrimSuffix(base, "[2]"), height+1
	}
	order, ok := types[base]
	if !ok || base == "EIP712Domain" || height < 1 || height > maxBulkOrderHeight {
		return 0, false
	}
	return height, matchShape(types, order, seaportFields, 0) || matchShape(types, order, seaportV10Fields, 0)
}

// decodeBulkOrder decodes every order of the tree: signing a bulk order
// signs each of them.
func decodeBulkOrder(d *typedDecoder, height int) error {
	tree, err := fieldOf(d.td.Message, "tree")
	if err != nil {
		return err
	}
	level := []any{tree}
	for h := 0; h < height; h++ {
		next := make([]any, 0, 2*len(level))
		for _, n := range level {
			pair, ok := n.([]any)
			if !ok || len(pair) != 2 {
				return fmt.Errorf("tree level %d is not a pair", h)
			}
			next = append(next, pair...)
		}
		if len(next) > maxBulkOrders {
			return fmt.Errorf("tree has more than %d orders", maxBulkOrders)
		}
		level = next
	}
	for i, leaf := range level {
		order, ok := leaf.(map[string]any)
		if !ok {
			return fmt.Errorf("tree order %d is not a struct", i)
		}
		d.msg = order
		if err := decodeSeaport(d); err != nil {
			return fmt.Errorf("tree order %d: %w", i, err)
		}
		if len(d.effects) > MaxEffects {
			return nil
		}
	}
	return nil
}

func decodeERC721Permit(d *typedDecoder) error {
	r := &fieldReader{m: d.msg}
	spender, id, deadline := r.addr("spender"), r.uint("tokenId", 256), r.uint("deadline", 256)
	r.uint("nonce", 256)
	if r.err != nil {
		return r.err
	}
	if err := d.requireToken(); err != nil {
		return err
	}
	d.add(Effect{Kind: EffectApprove, Token: d.verifying, Counterparty: spender, Amount: big.NewInt(1), TokenID: id, Deadline: deadline})
	return nil
}

// decodeMetaTransaction: the verifying contract runs functionSignature
// (calldata) as if the signer had sent it.
func decodeMetaTransaction(d *typedDecoder) error {
	r := &fieldReader{m: d.msg}
	r.addr("from")
	r.uint("nonce", 256)
	data := r.bytes("functionSignature")
	if r.err != nil {
		return r.err
	}
	if err := d.requireToken(); err != nil {
		return err
	}
	d.inner(d.verifying, data, common.Address{})
	return nil
}
