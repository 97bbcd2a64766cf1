package policy

import "errors"

// Sentinel errors of the transaction guardrails. They live here rather than
// in errors.go so that the transaction half of the package stays in the tx*
// files.
var (
	// ErrInvalidGuardrail reports an agent guardrail field that ParseGuardrails
	// refuses; the message names the field.
	ErrInvalidGuardrail = errors.New("invalid guardrail")
	// ErrInvalidTxConditions reports a policy's tx_conditions object that
	// ParseTxConditions refuses; the message names the field.
	ErrInvalidTxConditions = errors.New("invalid tx_conditions")
	// ErrInvalidAmount reports a decimal amount that ParseNativeAmount refuses.
	ErrInvalidAmount = errors.New("invalid amount")
)
