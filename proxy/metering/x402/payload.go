package x402

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// maxHeaderBytes bounds an X-PAYMENT header (a real one is about 700 bytes).
const maxHeaderBytes = 8 << 10

// Payload is a decoded X-PAYMENT header (x402 v1 PaymentPayload, "exact"
// scheme on EVM).
type Payload struct {
	X402Version int          `json:"x402Version"`
	Scheme      string       `json:"scheme"`
	Network     string       `json:"network"`
	Payload     ExactPayload `json:"payload"`
}

// ExactPayload is the "exact" scheme's signed EIP-3009 authorization.
type ExactPayload struct {
	Signature     string        `json:"signature"` // 0x r‖s‖v, 65 bytes
	Authorization Authorization `json:"authorization"`
}

// Authorization is an EIP-3009 TransferWithAuthorization message. Integers
// are decimal strings; Nonce is 32 bytes in 0x hex.
type Authorization struct {
	From        string `json:"from"`
	To          string `json:"to"`
	Value       string `json:"value"`
	ValidAfter  string `json:"validAfter"`
	ValidBefore string `json:"validBefore"`
	Nonce       string `json:"nonce"`
}

// Encode returns p as an X-PAYMENT header value (base64 of its JSON).
func (p Payload) Encode() string {
	b, _ := json.Marshal(p)
	return base64.StdEncoding.EncodeToString(b)
}

// Decode parses an X-PAYMENT header value and checks that every field is
// well-formed (not that it is acceptable: see Verifier).
func Decode(header string) (Payload, error) {
	var p Payload
	header = strings.TrimSpace(header)
	if header == "" || len(header) > maxHeaderBytes {
		return p, fmt.Errorf("decoding payment header: size: %w", ErrMalformed)
	}
	raw, err := base64.StdEncoding.DecodeString(header)
	if err != nil {
		raw, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(header, "="))
	}
	if err != nil {
		return p, fmt.Errorf("decoding payment header: base64: %w", ErrMalformed)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("decoding payment header: json: %w", ErrMalformed)
	}
	if err := p.Payload.Authorization.check(); err != nil {
		return p, err
	}
	if _, err := signatureBytes(p.Payload.Signature); err != nil {
		return p, err
	}
	return p, nil
}

func (a Authorization) check() error {
	if !common.IsHexAddress(a.From) || !common.IsHexAddress(a.To) {
		return fmt.Errorf("checking authorization: address: %w", ErrMalformed)
	}
	for _, v := range []string{a.Value, a.ValidAfter, a.ValidBefore} {
		if _, err := uint256(v); err != nil {
			return err
		}
	}
	if _, err := nonceBytes(a.Nonce); err != nil {
		return err
	}
	return nil
}

var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// uint256 parses a decimal string in [0, 2^256).
func uint256(s string) (*big.Int, error) {
	if s == "" || len(s) > 78 || strings.TrimLeft(s, "0123456789") != "" {
		return nil, fmt.Errorf("parsing integer: %w", ErrMalformed)
	}
	v, ok := new(big.Int).SetString(s, 10)
	if !ok || v.Cmp(maxUint256) > 0 {
		return nil, fmt.Errorf("parsing integer: %w", ErrMalformed)
	}
	return v, nil
}

// nonceBytes parses a 0x-prefixed 32-byte hex nonce.
func nonceBytes(s string) ([32]byte, error) {
	var n [32]byte
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || len(h) != 64 {
		return n, fmt.Errorf("parsing nonce: %w", ErrMalformed)
	}
	if _, err := hex.Decode(n[:], []byte(h)); err != nil {
		return n, fmt.Errorf("parsing nonce: %w", ErrMalformed)
	}
	return n, nil
}

// signatureBytes parses a 0x-prefixed 65-byte signature.
func signatureBytes(s string) ([]byte, error) {
	h, ok := strings.CutPrefix(s, "0x")
	if !ok || len(h) != 130 {
		return nil, fmt.Errorf("parsing signature: %w", ErrMalformed)
	}
	b, err := hex.DecodeString(h)
	if err != nil {
		return nil, fmt.Errorf("parsing signature: %w", ErrMalformed)
	}
	return b, nil
}
