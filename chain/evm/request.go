package evm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Size bounds of a TxRequest. They are sanity limits against resource
// exhaustion, not consensus rules.
const (
	// MaxRequestSize bounds the JSON document ParseTxRequest accepts.
	MaxRequestSize = 128 << 10
	// MaxAccessTuples bounds len(access_list).
	MaxAccessTuples = 256
	// MaxStorageKeys bounds the storage keys summed over the access list.
	MaxStorageKeys = 1024
	// MaxBlobHashes is the per-transaction blob limit (EIP-7594).
	MaxBlobHashes = 6
	// MaxAuthorizations bounds len(authorization_list).
	MaxAuthorizations = 64
)

// TxRequest is the structured transaction sign request shared by the API,
// the proxy and the enclave. Quantities are strings ("0x" hex or decimal)
// and byte fields "0x" hex, so the same struct round-trips through JSON
// without loss. A zero field means absent.
type TxRequest struct {
	// Type is the EIP-2718 type 0..4. When absent it is 2 if a 1559 fee is
	// set, 0 if gas_price is set, and 2 otherwise.
	Type    *uint8 `json:"type,omitempty"`
	ChainID uint64 `json:"chain_id"`
	// Nonce and Gas may be absent at validation and are required by BuildTx.
	Nonce *uint64 `json:"nonce,omitempty"`
	// To is absent for contract creation (types 0..2 only).
	To    string  `json:"to,omitempty"`
	Value string  `json:"value,omitempty"` // wei; "" means 0
	Data  string  `json:"data,omitempty"`
	Gas   *uint64 `json:"gas,omitempty"`

	GasPrice             string `json:"gas_price,omitempty"`
	MaxFeePerGas         string `json:"max_fee_per_gas,omitempty"`
	MaxPriorityFeePerGas string `json:"max_priority_fee_per_gas,omitempty"`
	MaxFeePerBlobGas     string `json:"max_fee_per_blob_gas,omitempty"`

	AccessList          []AccessTuple   `json:"access_list,omitempty"`
	BlobVersionedHashes []string        `json:"blob_versioned_hashes,omitempty"`
	AuthorizationList   []Authorization `json:"authorization_list,omitempty"`
}

// AccessTuple is one EIP-2930 access list entry.
type AccessTuple struct {
	Address     string   `json:"address"`
	StorageKeys []string `json:"storage_keys"`
}

// Authorization is one EIP-7702 authorization. An entry without y_parity, r
// and s is to be signed by the requesting key (see UnsignedAuthorizations);
// an entry with all three carries a third party's signature.
type Authorization struct {
	ChainID uint64 `json:"chain_id"`
	Address string `json:"address"`
	Nonce   uint64 `json:"nonce"`
	YParity *uint8 `json:"y_parity,omitempty"`
	R       string `json:"r,omitempty"`
	S       string `json:"s,omitempty"`
}

// ParseTxRequest decodes and validates (without the build-time checks) one
// JSON transaction request. Decoding is strict: unknown, duplicate or
// non-lower-case keys, trailing data, numbers that do not fit their field
// and documents over MaxRequestSize are errors wrapping ErrInvalidTx.
func ParseTxRequest(b []byte) (TxRequest, error) {
	if len(b) > MaxRequestSize {
		return TxRequest{}, fmt.Errorf("%w: %w: %d bytes, limit %d", ErrInvalidTx, ErrTooLarge, len(b), MaxRequestSize)
	}
	if err := checkKeys(b, true); err != nil {
		return TxRequest{}, fmt.Errorf("%w: %w", ErrInvalidTx, err)
	}
	var r TxRequest
	if err := decodeStrict(b, &r); err != nil {
		return TxRequest{}, jsonErr(err)
	}
	if err := r.Validate(); err != nil {
		return TxRequest{}, err
	}
	return r, nil
}

var errTrailingData = errors.New("trailing data after the JSON document")

// decodeStrict decodes exactly one JSON value into v, refusing unknown
// fields and anything after the value.
func decodeStrict(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return errTrailingData
	}
	return nil
}

// jsonErr turns a decoding error into one that wraps ErrInvalidTx and, when
// encoding/json knows it, names the field.
func jsonErr(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return &FieldError{Field: te.Field, Reason: fmt.Sprintf("cannot hold JSON %s", te.Value)}
	}
	return fmt.Errorf("%w: decoding JSON: %w", ErrInvalidTx, err)
}
