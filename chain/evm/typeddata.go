package evm

import (
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// MaxTypedDataSize bounds the EIP-712 JSON document TypedDataHash accepts.
const MaxTypedDataSize = 128 << 10

// domainFields is the EIP-712 domain in its canonical order with the type
// of each field. Wallets and ethers derive the domain type from the fields
// present in this order, so a request whose EIP712Domain declares anything
// else would make us sign a digest no verifier reproduces.
var domainFields = []apitypes.Type{
	{Name: "name", Type: "string"},
	{Name: "version", Type: "string"},
	{Name: "chainId", Type: "uint256"},
	{Name: "verifyingContract", Type: "address"},
	{Name: "salt", Type: "bytes32"},
}

// TypedDataHash decodes an eth_signTypedData_v4 document ({types,
// primaryType, domain, message}) strictly and returns its EIP-712 digest
// keccak256(0x19 ‖ 0x01 ‖ domainSeparator ‖ hashStruct(message)), computed by
// go-ethereum's apitypes.TypedDataAndHash, with the decoded data.
//
// Duplicate keys are refused. JSON numbers in the message are read exactly (never through float64) and
// must be integers. types must declare EIP712Domain with exactly the domain
// fields present, in canonical order.
func TypedDataHash(raw []byte) ([]byte, apitypes.TypedData, error) {
	var td apitypes.TypedData
	if len(raw) > MaxTypedDataSize {
		return nil, td, fmt.Errorf("%w: %w: %d bytes, limit %d", ErrInvalidTypedData, ErrTooLarge, len(raw), MaxTypedDataSize)
	}
	// Decode the message separately with UseNumber: encoding/json would turn
	// 9007199254740993 into a float64 and silently sign a different amount.
	var doc struct {
		Types       apitypes.Types           `json:"types"`
		PrimaryType string                   `json:"primaryType"`
		Domain      apitypes.TypedDataDomain `json:"domain"`
		Message     json.RawMessage          `json:"message"`
	}
	if err := checkKeys(raw, false); err != nil {
		return nil, td, fmt.Errorf("%w: %w", ErrInvalidTypedData, err)
	}
	if err := decodeStrict(raw, &doc); err != nil {
		return nil, td, fmt.Errorf("%w: decoding: %w", ErrInvalidTypedData, err)
	}
	msg, err := decodeMessage(doc.Message)
	if err != nil {
		return nil, td, err
	}
	td = apitypes.TypedData{Types: doc.Types, PrimaryType: doc.PrimaryType, Domain: doc.Domain, Message: msg}
	if err := checkTypedData(td); err != nil {
		return nil, td, err
	}
	digest, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return nil, td, fmt.Errorf("%w: hashing: %w", ErrInvalidTypedData, err)
	}
	return digest, td, nil
}

func decodeMessage(raw json.RawMessage) (map[string]any, error) {
	var msg map[string]any
	dec := json.NewDecoder(strings.NewReader(string(raw)))
	dec.UseNumber()
	if err := dec.Decode(&msg); err != nil || msg == nil {
		return nil, fmt.Errorf("%w: message must be a JSON object", ErrInvalidTypedData)
	}
	out, err := convertNumbers(msg)
	if err != nil {
		return nil, err
	}
	return out.(map[string]any), nil
}

// convertNumbers replaces json.Number values by *big.Int, which apitypes
// encodes exactly; fractions and exponents are refused.
func convertNumbers(v any) (any, error) {
	switch t := v.(type) {
	case json.Number:
		n, ok := new(big.Int).SetString(string(t), 10)
		if !ok {
			return nil, fmt.Errorf("%w: number %s is not an integer", ErrInvalidTypedData, truncate(string(t)))
		}
		return n, nil
	case map[string]any:
		for k, e := range t {
			c, err := convertNumbers(e)
			if err != nil {
				return nil, err
			}
			t[k] = c
		}
		return t, nil
	case []any:
		for i, e := range t {
			c, err := convertNumbers(e)
			if err != nil {
				return nil, err
			}
			t[i] = c
		}
		return t, nil
	default:
		return v, nil
	}
}

// checkTypedData enforces what apitypes leaves open.
func checkTypedData(td apitypes.TypedData) error {
	if td.PrimaryType == "" || td.PrimaryType == "EIP712Domain" {
		return fmt.Errorf("%w: primaryType must name a message type", ErrInvalidTypedData)
	}
	if _, ok := td.Types[td.PrimaryType]; !ok {
		return fmt.Errorf("%w: primaryType %q is not declared in types", ErrInvalidTypedData, td.PrimaryType)
	}
	declared, ok := td.Types["EIP712Domain"]
	if !ok {
		return fmt.Errorf("%w: types must declare EIP712Domain", ErrInvalidTypedData)
	}
	present := td.Domain.Map()
	var want []apitypes.Type
	for _, f := range domainFields {
		if _, ok := present[f.Name]; ok {
			want = append(want, f)
		}
	}
	if len(want) != len(declared) {
		return fmt.Errorf("%w: EIP712Domain must declare exactly the domain fields present, in canonical order", ErrInvalidTypedData)
	}
	for i := range want {
		if want[i] != declared[i] {
			return fmt.Errorf("%w: EIP712Domain field %d is %s %s, want %s %s", ErrInvalidTypedData, i, declared[i].Type, declared[i].Name, want[i].Type, want[i].Name)
		}
	}
	if vc := td.Domain.VerifyingContract; vc != "" && !common.IsHexAddress(vc) {
		return fmt.Errorf("%w: domain verifyingContract is not an address", ErrInvalidTypedData)
	}
	return nil
}

// DomainInfo is the EIP-712 domain as guardrails see it, for allowlists.
type DomainInfo struct {
	Name    string
	Version string
	// ChainID is nil when the domain has none.
	ChainID *big.Int
	// VerifyingContract is the zero address when the domain has none.
	VerifyingContract common.Address
	Salt              string
}

// Domain extracts the domain of typed data.
func Domain(td apitypes.TypedData) DomainInfo {
	d := DomainInfo{Name: td.Domain.Name, Version: td.Domain.Version, Salt: td.Domain.Salt}
	if td.Domain.ChainId != nil {
		d.ChainID = new(big.Int).Set((*big.Int)(td.Domain.ChainId))
	}
	if common.IsHexAddress(td.Domain.VerifyingContract) {
		d.VerifyingContract = common.HexToAddress(td.Domain.VerifyingContract)
	}
	return d
}
