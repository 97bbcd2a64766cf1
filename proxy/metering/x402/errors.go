package x402

import "errors"

// Sentinel errors of payment verification and settlement (returned wrapped).
// Their text never holds a signature or an authorization.
var (
	// ErrDisabled: no payee is configured, so no payment can be accepted.
	ErrDisabled = errors.New("x402 payments are not configured")
	// ErrMalformed: the X-PAYMENT header is not a well-formed payload.
	ErrMalformed = errors.New("malformed payment payload")
	// ErrUnsupported: another x402 version, scheme, network or asset.
	ErrUnsupported = errors.New("unsupported payment scheme or network")
	// ErrBadSignature: the signature does not recover to the payer.
	ErrBadSignature = errors.New("invalid payment signature")
	// ErrWrongPayee: the authorization pays someone else.
	ErrWrongPayee = errors.New("payment recipient mismatch")
	// ErrInsufficient: the authorized value is below the price.
	ErrInsufficient = errors.New("payment value too low")
	// ErrNotYetValid: validAfter is in the future.
	ErrNotYetValid = errors.New("payment authorization not yet valid")
	// ErrExpired: validBefore has passed, or lies further ahead than the
	// accepted authorization window.
	ErrExpired = errors.New("payment authorization expired or too long-lived")
	// ErrNonceReused: the authorization nonce was accepted before.
	ErrNonceReused = errors.New("payment nonce already used")
	// ErrSettlement: the facilitator did not settle the payment.
	ErrSettlement = errors.New("payment settlement failed")
)

// IsPaymentError reports whether err is a refusal of the payment itself
// (answered with 402), as opposed to an internal failure such as a
// database error (answered with 500).
func IsPaymentError(err error) bool {
	return Reason(err) != "unexpected_error" && err != nil
}

// Reason is the x402 error code of a verification or settlement error, sent
// in the 402 body's "error" field.
func Reason(err error) string {
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrDisabled):
		return "payments_disabled"
	case errors.Is(err, ErrMalformed):
		return "invalid_payload"
	case errors.Is(err, ErrUnsupported):
		return "unsupported_scheme"
	case errors.Is(err, ErrBadSignature):
		return "invalid_exact_evm_payload_signature"
	case errors.Is(err, ErrWrongPayee):
		return "invalid_exact_evm_payload_recipient_mismatch"
	case errors.Is(err, ErrInsufficient):
		return "invalid_exact_evm_payload_authorization_value"
	case errors.Is(err, ErrNotYetValid):
		return "invalid_exact_evm_payload_authorization_valid_after"
	case errors.Is(err, ErrExpired):
		return "invalid_exact_evm_payload_authorization_valid_before"
	case errors.Is(err, ErrNonceReused):
		return "invalid_exact_evm_payload_nonce_used"
	case errors.Is(err, ErrSettlement):
		return "settlement_failed"
	default:
		return "unexpected_error"
	}
}
