package evm

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// EffectKind names what one decoded call or typed-data message lets happen.
type EffectKind string

// The effect kinds. Guardrails judge each kind differently: transfers by
// recipient, token and amount; grants by spender or operator (and
// unlimited grants only for allowlisted grantees); privileged calls only
// when a tx_conditions allow rule names them; undecodable calls only when
// a tx_conditions allow rule names their selector.
const (
	// EffectNativeTransfer moves native value (Amount, base units) to
	// Counterparty: a call's value, or a native item of an order.
	EffectNativeTransfer EffectKind = "native_transfer"
	// EffectTokenTransfer moves Amount of Token (ERC-20 base units, or an
	// ERC-721/1155 token id in TokenID with Amount the count) from From
	// (zero: the signer) to Counterparty.
	EffectTokenTransfer EffectKind = "token_transfer"
	// EffectApprove lets Counterparty (the spender) move Amount of Token
	// from the signer; Unlimited when Amount is at least 2^255 (or the
	// grant carries no amount, as DAI's permit).
	EffectApprove EffectKind = "approve"
	// EffectApprovalForAll lets Counterparty (the operator) move every
	// token of the collection Token; Approved false is a revocation.
	EffectApprovalForAll EffectKind = "approval_for_all"
	// EffectPrivileged changes who controls a contract or its code:
	// proxy upgrades, ownership and Safe owner/threshold/module/guard
	// changes, and any delegatecall. Counterparty is the new owner,
	// implementation, module or delegatecall target when there is one.
	EffectPrivileged EffectKind = "privileged"
	// EffectCall is a call OCV does not know (DecodeFailed is true), or a
	// known call with malformed arguments (DecodeFailed is true as well).
	EffectCall EffectKind = "call"
)

// Effect is one thing a signature would let happen. Wrappers (Safe
// execTransaction, Multicall3, Safe multiSend, EIP-2771 forward requests,
// SafeTx typed data) contribute one effect per inner call, Depth counting
// the wrapping; the wrapper itself contributes none unless it is
// privileged (a delegatecall).
type Effect struct {
	Kind EffectKind
	// Function is the decoded function or typed-data standard ("transfer",
	// "approve", "upgradeTo", "execTransaction", "TransferWithAuthorization",
	// "PermitSingle", …); "" when unknown.
	Function string
	// Selector is "0x" + 8 lowercase hex digits of the call, "" for a
	// typed-data message or a plain value transfer.
	Selector string
	// Target is the contract called (zero for a plain value transfer).
	Target common.Address
	// Token is the asset contract of a token effect (the verifying
	// contract of a permit, the token of a Permit2 grant); zero for native.
	Token common.Address
	// From is whose assets move when it is not the signer (transferFrom's
	// owner, a Safe); zero means the signer.
	From common.Address
	// Counterparty is who receives the assets or the rights: recipient,
	// spender, operator, new owner or implementation. Zero when the
	// standard leaves it open (an order anyone may fill); guardrails treat
	// an open counterparty as unlisted.
	Counterparty common.Address
	// Amount is the token amount or native value in base units; nil when
	// the effect carries none.
	Amount *big.Int
	// TokenID is the ERC-721/1155 token id; nil otherwise.
	TokenID *big.Int
	// Unlimited marks an allowance of at least 2^255, a DAI-style permit
	// with allowed=true, or a Permit2 grant of max uint160.
	Unlimited bool
	// Approved is setApprovalForAll's flag.
	Approved bool
	// Deadline is the grant's expiry or deadline (unix seconds); nil when
	// none.
	Deadline *big.Int
	// Depth is 0 for the top-level call or message, 1 and more for calls
	// inside wrappers.
	Depth int
	// DecodeFailed is true when the selector is unknown or the arguments
	// are malformed, and for inner calls below the wrapping depth limit.
	DecodeFailed bool
}

// MaxEffectDepth bounds how deep wrappers are unwrapped; deeper calls are
// reported as a failed decode.
const MaxEffectDepth = 4

// MaxEffects bounds the effects one request may carry; a request with more
// is reported as a single failed decode.
const MaxEffects = 256

// unlimitedThreshold is 2^255: an allowance at or above it is treated as
// unlimited (max uint256 and the common "infinite" values).
var unlimitedThreshold = new(big.Int).Lsh(big.NewInt(1), 255)

// IsUnlimitedAmount reports whether an allowance amount is treated as
// unlimited.
func IsUnlimitedAmount(v *big.Int) bool { return v != nil && v.Cmp(unlimitedThreshold) >= 0 }
