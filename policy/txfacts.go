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
)

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
	TypedData   *TypedDataFacts
}

// TypedDataFacts describes an EIP-712 typed-data request.
type TypedDataFacts struct {
	Dangerous         bool   // a type that can move assets (Permit, …)
	Reason            string // why it is dangerous
	DomainName        string
	DomainVersion     string
	DomainChainID     string // decimal or 0x-hex
	VerifyingContract string
}

// TxCounters are the agent's counts for the current UTC day, before this
// request.
type TxCounters struct {
	CountToday      int64    // transactions signed today on all chains
	CountTodayChain int64    // transactions signed today on this chain
	SpentTodayChain *big.Int // native value spent today on this chain, base units; nil is 0
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
