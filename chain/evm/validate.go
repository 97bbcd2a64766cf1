package evm

import (
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/holiman/uint256"
)

// parsedTx is a TxRequest after every field was decoded and checked. Fee
// and nonce pointers stay nil when the request left them out.
type parsedTx struct {
	typ        uint8
	chainID    *uint256.Int
	nonce      *uint64
	gas        *uint64
	to         *common.Address
	value      *uint256.Int
	data       []byte
	gasPrice   *uint256.Int
	maxFee     *uint256.Int
	maxTip     *uint256.Int
	blobFee    *uint256.Int
	accessList types.AccessList
	blobHashes []common.Hash
	auths      []types.SetCodeAuthorization
	authSigned []bool
}

// Validate checks every field and their consistency, except the presence of
// nonce, gas and fees, which BuildTx requires. Errors are *FieldError values
// (wrapping ErrInvalidTx) naming the field.
func (r TxRequest) Validate() error {
	_, err := r.parse()
	return err
}

// TxType returns the transaction type the request resolves to, applying the
// defaults documented on TxRequest.Type.
func (r TxRequest) TxType() (uint8, error) {
	hasPrice := r.GasPrice != ""
	has1559 := r.MaxFeePerGas != "" || r.MaxPriorityFeePerGas != ""
	if hasPrice && has1559 {
		return 0, fieldErr("gas_price", "cannot be combined with max_fee_per_gas/max_priority_fee_per_gas")
	}
	switch {
	case r.Type != nil:
		if *r.Type > types.SetCodeTxType {
			return 0, fieldErr("type", "unsupported type %d (want 0..4)", *r.Type)
		}
		return *r.Type, nil
	case hasPrice:
		return types.LegacyTxType, nil
	default:
		return types.DynamicFeeTxType, nil
	}
}

func (r TxRequest) parse() (*parsedTx, error) {
	typ, err := r.TxType()
	if err != nil {
		return nil, err
	}
	p := &parsedTx{typ: typ, nonce: r.Nonce, gas: r.Gas}
	if r.ChainID == 0 {
		// Chain ID 0 would make a signature valid on any chain (no EIP-155
		// replay protection), so it is never accepted.
		return nil, fieldErr("chain_id", "required and non-zero")
	}
	p.chainID = uint256.NewInt(r.ChainID)
	if err := r.parseCommon(p); err != nil {
		return nil, err
	}
	if err := r.parseFees(p); err != nil {
		return nil, err
	}
	if err := r.parseAccessList(p); err != nil {
		return nil, err
	}
	if err := r.parseBlobs(p); err != nil {
		return nil, err
	}
	if err := r.parseAuthorizations(p); err != nil {
		return nil, err
	}
	return p, nil
}

func (r TxRequest) parseCommon(p *parsedTx) error {
	if r.To != "" {
		a, err := parseAddress("to", r.To)
		if err != nil {
			return err
		}
		p.to = &a
	} else if p.typ == types.BlobTxType || p.typ == types.SetCodeTxType {
		return fieldErr("to", "required for type %d (no contract creation)", p.typ)
	}
	v, err := parseU256("value", r.Value)
	if err != nil {
		return err
	}
	if v == nil {
		v = new(uint256.Int)
	}
	p.value = v
	if p.data, err = parseHexBytes("data", r.Data); err != nil {
		return err
	}
	return nil
}

func (r TxRequest) parseFees(p *parsedTx) error {
	var err error
	if p.gasPrice, err = parseU256("gas_price", r.GasPrice); err != nil {
		return err
	}
	if p.maxFee, err = parseU256("max_fee_per_gas", r.MaxFeePerGas); err != nil {
		return err
	}
	if p.maxTip, err = parseU256("max_priority_fee_per_gas", r.MaxPriorityFeePerGas); err != nil {
		return err
	}
	if p.blobFee, err = parseU256("max_fee_per_blob_gas", r.MaxFeePerBlobGas); err != nil {
		return err
	}
	legacyFees := p.typ == types.LegacyTxType || p.typ == types.AccessListTxType
	switch {
	case legacyFees && (p.maxFee != nil || p.maxTip != nil):
		return fieldErr("max_fee_per_gas", "not allowed for type %d (use gas_price)", p.typ)
	case !legacyFees && p.gasPrice != nil:
		return fieldErr("gas_price", "not allowed for type %d (use max_fee_per_gas)", p.typ)
	case p.typ != types.BlobTxType && p.blobFee != nil:
		return fieldErr("max_fee_per_blob_gas", "only allowed for type 3")
	case p.maxFee != nil && p.maxTip != nil && p.maxTip.Gt(p.maxFee):
		return fieldErr("max_priority_fee_per_gas", "exceeds max_fee_per_gas")
	}
	return nil
}

func (r TxRequest) parseAccessList(p *parsedTx) error {
	if len(r.AccessList) == 0 {
		return nil
	}
	if p.typ == types.LegacyTxType {
		return fieldErr("access_list", "not allowed for type 0 (use type 1 or later)")
	}
	if len(r.AccessList) > MaxAccessTuples {
		return fieldErr("access_list", "more than %d entries", MaxAccessTuples)
	}
	keys := 0
	p.accessList = make(types.AccessList, len(r.AccessList))
	for i, t := range r.AccessList {
		f := fmt.Sprintf("access_list[%d]", i)
		a, err := parseAddress(f+".address", t.Address)
		if err != nil {
			return err
		}
		if keys += len(t.StorageKeys); keys > MaxStorageKeys {
			return fieldErr(f+".storage_keys", "more than %d storage keys in total", MaxStorageKeys)
		}
		sk := make([]common.Hash, len(t.StorageKeys))
		for j, k := range t.StorageKeys {
			if sk[j], err = parseHash(fmt.Sprintf("%s.storage_keys[%d]", f, j), k); err != nil {
				return err
			}
		}
		p.accessList[i] = types.AccessTuple{Address: a, StorageKeys: sk}
	}
	return nil
}

func (r TxRequest) parseBlobs(p *parsedTx) error {
	if p.typ != types.BlobTxType {
		if len(r.BlobVersionedHashes) > 0 {
			return fieldErr("blob_versioned_hashes", "only allowed for type 3")
		}
		return nil
	}
	n := len(r.BlobVersionedHashes)
	if n == 0 || n > MaxBlobHashes {
		return fieldErr("blob_versioned_hashes", "want 1..%d hashes for type 3, got %d", MaxBlobHashes, n)
	}
	p.blobHashes = make([]common.Hash, n)
	for i, s := range r.BlobVersionedHashes {
		f := fmt.Sprintf("blob_versioned_hashes[%d]", i)
		h, err := parseHash(f, s)
		if err != nil {
			return err
		}
		// EIP-4844: a versioned hash starts with VERSIONED_HASH_VERSION_KZG.
		if h[0] != 0x01 {
			return fieldErr(f, "version byte %#02x, want 0x01", h[0])
		}
		p.blobHashes[i] = h
	}
	return nil
}
