package x402

import (
	"fmt"
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// transferWithAuthorization is the EIP-3009 message type signed by payers.
var transferWithAuthorization = apitypes.Types{
	"EIP712Domain": {
		{Name: "name", Type: "string"},
		{Name: "version", Type: "string"},
		{Name: "chainId", Type: "uint256"},
		{Name: "verifyingContract", Type: "address"},
	},
	"TransferWithAuthorization": {
		{Name: "from", Type: "address"},
		{Name: "to", Type: "address"},
		{Name: "value", Type: "uint256"},
		{Name: "validAfter", Type: "uint256"},
		{Name: "validBefore", Type: "uint256"},
		{Name: "nonce", Type: "bytes32"},
	},
}

// TypedDataHash is the EIP-712 digest a payer signs for a, under the
// domain of the configured asset (name, version, chain id, contract).
func (c PaymentConfig) TypedDataHash(a Authorization) ([]byte, error) {
	if err := a.check(); err != nil {
		return nil, err
	}
	value, _ := uint256(a.Value)
	after, _ := uint256(a.ValidAfter)
	before, _ := uint256(a.ValidBefore)
	nonce, _ := nonceBytes(a.Nonce)
	td := apitypes.TypedData{
		Types:       transferWithAuthorization,
		PrimaryType: "TransferWithAuthorization",
		Domain: apitypes.TypedDataDomain{
			Name: c.AssetName, Version: c.AssetVersion,
			ChainId:           math.NewHexOrDecimal256(c.ChainID()),
			VerifyingContract: common.HexToAddress(c.Asset).Hex(),
		},
		Message: apitypes.TypedDataMessage{
			"from": common.HexToAddress(a.From).Hex(), "to": common.HexToAddress(a.To).Hex(),
			"value": value, "validAfter": after, "validBefore": before, "nonce": nonce[:],
		},
	}
	hash, _, err := apitypes.TypedDataAndHash(td)
	if err != nil {
		return nil, fmt.Errorf("hashing typed data: %w", ErrMalformed)
	}
	return hash, nil
}

// Verify checks a decoded payment against the configuration at time now,
// without touching any state: version, scheme, network, payee, value,
// validity window and signature. It returns the payer's address. The
// nonce's single use is checked by the Processor.
func (c PaymentConfig) Verify(p Payload, now time.Time) (common.Address, error) {
	var zero common.Address
	if !c.Enabled() {
		return zero, ErrDisabled
	}
	if p.X402Version != Version || p.Scheme != SchemeExact || p.Network != c.Network {
		return zero, fmt.Errorf("verifying payment: %w", ErrUnsupported)
	}
	a := p.Payload.Authorization
	if err := a.check(); err != nil {
		return zero, err
	}
	if !strings.EqualFold(common.HexToAddress(a.To).Hex(), common.HexToAddress(c.PayTo).Hex()) {
		return zero, fmt.Errorf("verifying payment: %w", ErrWrongPayee)
	}
	value, _ := uint256(a.Value)
	if value.Cmp(c.price()) < 0 {
		return zero, fmt.Errorf("verifying payment: %w", ErrInsufficient)
	}
	after, _ := uint256(a.ValidAfter)
	before, _ := uint256(a.ValidBefore)
	t := big.NewInt(now.Unix())
	if after.Cmp(t) > 0 {
		return zero, fmt.Errorf("verifying payment: %w", ErrNotYetValid)
	}
	// validAfter <= now < validBefore, and validBefore no further ahead than
	// the announced timeout (plus clock skew). The bound on validBefore is
	// what makes purging old nonces safe: an authorization older than the
	// window is refused as expired before its nonce is even looked up.
	latest := big.NewInt(now.Unix() + c.MaxTimeoutSeconds + c.ClockSkewSeconds)
	if before.Cmp(t) <= 0 || before.Cmp(latest) > 0 {
		return zero, fmt.Errorf("verifying payment: %w", ErrExpired)
	}
	signer, err := c.recover(a, p.Payload.Signature)
	if err != nil {
		return zero, err
	}
	if signer != common.HexToAddress(a.From) {
		return zero, fmt.Errorf("verifying payment: signer is not the payer: %w", ErrBadSignature)
	}
	return signer, nil
}

// recover returns the address that signed a. It accepts v as 0/1 or 27/28
// and refuses high-s signatures (EIP-2; the USDC contract refuses them too).
func (c PaymentConfig) recover(a Authorization, signature string) (common.Address, error) {
	var zero common.Address
	sig, err := signatureBytes(signature)
	if err != nil {
		return zero, err
	}
	hash, err := c.TypedDataHash(a)
	if err != nil {
		return zero, err
	}
	if sig[64] >= 27 {
		sig[64] -= 27
	}
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64])
	if !crypto.ValidateSignatureValues(sig[64], r, s, true) {
		return zero, fmt.Errorf("verifying payment: signature values: %w", ErrBadSignature)
	}
	pub, err := crypto.SigToPub(hash, sig)
	if err != nil {
		return zero, fmt.Errorf("verifying payment: recovering signer: %w", ErrBadSignature)
	}
	return crypto.PubkeyToAddress(*pub), nil
}
