package policy

import (
	"math/big"
	"strconv"
	"strings"
	"time"
)

// The intent types of a sign request (the spec's POST /v1/agents/{id}/sign).
const (
	IntentTransaction  = "transaction"
	IntentPersonalSign = "personal_sign"
	IntentTypedData    = "typed_data"
	IntentEIP712Digest = "eip712_digest"
	// IntentDigest is the spec's alias of IntentEIP712Digest.
	IntentDigest = "digest"
)

// The names TxDecision.Guardrail may carry. The API turns a denial into
// the problem type "guardrail_" + name.
const (
	GuardrailIntentType          = "intent_type" // an intent type this package does not know
	GuardrailMessageSigning      = "message_signing_enabled"
	GuardrailRawSigning          = "raw_signing_enabled"
	GuardrailAllowedChains       = "tx_allowed_chains"
	GuardrailSigningChains       = "signing_chains"
	GuardrailDecode              = "tx_decode"
	GuardrailEIP712DefaultPolicy = "eip712_default_policy"
	GuardrailToAllowlist         = "tx_to_allowlist"
	GuardrailDelegation          = "tx_delegation_allowlist"
	GuardrailPerChain            = "per_chain_guardrails"
	GuardrailTokenAllowlist      = "tx_token_allowlist"
	GuardrailKnownTokensOnly     = "tx_known_tokens_only"
	GuardrailMaxValue            = "tx_max_value_eth"
	GuardrailConditions          = "tx_conditions"
	GuardrailMaxPerDay           = "tx_max_per_day"
	GuardrailDailyLimit          = "tx_daily_limit_eth"
	// GuardrailApprovalAllowlist denies an unlimited allowance or
	// setApprovalForAll(…, true) to a grantee not in tx_approval_allowlist.
	GuardrailApprovalAllowlist = "tx_approval_allowlist"
	// GuardrailPrivilegedCall denies a privileged effect (upgrade, ownership
	// or Safe configuration change, delegatecall) that no tx_conditions
	// allow rule names.
	GuardrailPrivilegedCall = "tx_privileged_call"
	// GuardrailDomainChainID denies typed data whose domain chainId is not
	// the request's chain.
	GuardrailDomainChainID = "eip712_domain_chain_id"
	// GuardrailOverheadBudget denies a transaction whose maximum fee, with
	// the fees already reserved today on its chain, exceeds the chain's
	// tx_overhead_budget (or per-chain overhead_budget).
	GuardrailOverheadBudget = "tx_overhead_budget"
)

// The kinds of TxEffect, the same names as the chain package's effects.
const (
	TxEffectNativeTransfer = "native_transfer"
	TxEffectTokenTransfer  = "token_transfer"
	TxEffectApprove        = "approve"
	TxEffectApprovalForAll = "approval_for_all"
	TxEffectPrivileged     = "privileged"
	TxEffectCall           = "call"
)

// TxEffect is one thing a signature would let happen, as the chain
// package decoded it from calldata or typed data. Addresses are lowercase
// "0x" hex; "" is the zero address (an open counterparty, the native
// asset, or the signer for From).
type TxEffect struct {
	Kind         string // a TxEffect* kind constant
	Function     string // decoded function or typed-data standard; "" when unknown
	Selector     string // "0x" + 8 lowercase hex digits; "" for typed data and value transfers
	Target       string // the contract called; "" for a plain value transfer
	Token        string // the asset contract of a token effect
	TokenKnown   bool   // Token is in the token registry
	From         string // whose assets move when not the signer's
	Counterparty string // recipient, spender, operator, new owner or implementation; "" when open
	Amount       *big.Int
	Unlimited    bool // an allowance of at least 2^255 or an amount-less grant
	Approved     bool // setApprovalForAll's flag
	Depth        int  // 0 for the top-level call or message
	DecodeFailed bool // unknown selector or malformed arguments
}

// TxFacts is what the chain package decoded from one sign request. This
// package decodes nothing itself: it trusts these facts as given.
type TxFacts struct {
	IntentType       string   // IntentTransaction, IntentPersonalSign, IntentTypedData, IntentEIP712Digest (or IntentDigest)
	Chain            string   // canonical lowercase chain name ("ethereum", "base"); "" when unknown
	ChainID          uint64   // numeric chain id; 0 when none
	Decimals         int      // decimals of the native asset (18 on EVM)
	To               string   // the transaction's to address as given; "" for a contract creation
	Value            *big.Int // native value in base units; nil is 0
	FunctionSelector string   // "0x" and 8 lowercase hex digits, or ""
	FunctionName     string   // decoded function name, or ""
	Token            string   // the token contract of an ERC-20 call, or ""
	TokenKnown       bool     // Token is in the token registry
	TokenRecipient   string   // the recipient of the token transfer, or ""
	TokenAmount      *big.Int // the token amount in base units, or nil
	DecodeFailed     bool     // the request could not be decoded
	ProgramIDs       []string // Solana program ids invoked
	// Delegations are the code addresses the transaction's EIP-7702
	// authorizations delegate the sender's account to (type 4 only).
	Delegations []string
	// Effects are what the request lets happen (calldata decoded through
	// its wrappers, or a typed-data standard's message). Nil with Token set
	// stands for the single token call Token, TokenRecipient and
	// TokenAmount describe.
	Effects []TxEffect
	// MaxFee is the most the transaction can pay in fees, base units: gas
	// limit × max fee per gas, plus blob gas × max fee per blob gas. Nil is
	// 0 (typed data and messages pay none).
	MaxFee    *big.Int
	TypedData *TypedDataFacts
}

// TypedDataFacts describes an EIP-712 typed-data request; its effects are
// in TxFacts.Effects.
type TypedDataFacts struct {
	// Standard is the recognised standard ("Permit", "SafeTx", …); "" when
	// the message is of no known standard.
	Standard string
	// DecodeFailed reports a known standard whose message is malformed.
	DecodeFailed      bool
	DomainName        string
	DomainVersion     string
	DomainChainID     string // decimal or 0x-hex; "" when the domain has none
	VerifyingContract string
}

// TxCounters are the agent's counts for the current UTC day, before this
// request.
type TxCounters struct {
	CountToday      int64    // transactions signed today on all chains
	CountTodayChain int64    // transactions signed today on this chain
	SpentTodayChain *big.Int // native value spent today on this chain, base units; nil is 0
	FeesTodayChain  *big.Int // maximum fees reserved today on this chain, base units; nil is 0
}

// TxRule is one policy's tx_conditions as the signer sees it.
type TxRule struct {
	Effect     Effect
	Priority   int // higher wins; deny wins a tie
	Conditions TxConditions
	ExpiresAt  time.Time // the zero time never expires
}

// TxDecision is the outcome of EvaluateTx.
type TxDecision struct {
	Allowed   bool
	Guardrail string // the denying guardrail (a Guardrail* constant); "" when allowed
	Detail    string // short and fixed; never carries an address or an amount
}

// normalizeIntent returns the canonical intent type, or false when unknown.
func normalizeIntent(s string) (string, bool) {
	switch s {
	case IntentTransaction, IntentPersonalSign, IntentTypedData, IntentEIP712Digest:
		return s, true
	case IntentDigest:
		return IntentEIP712Digest, true
	}
	return "", false
}

// chainMatches reports whether a chain-list entry names the request's
// chain: its name case-insensitively or its decimal chain id. A request
// naming no chain matches no entry.
func chainMatches(entry string, f *TxFacts) bool {
	if f.Chain != "" && strings.EqualFold(entry, f.Chain) {
		return true
	}
	return f.ChainID != 0 && allDigits(entry) && entry == strconv.FormatUint(f.ChainID, 10)
}
