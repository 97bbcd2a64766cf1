package policy

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var txNow = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

func weiOf(t testing.TB, s string) *big.Int {
	t.Helper()
	v, err := ParseNativeAmount(s, 18)
	require.NoError(t, err)
	return v
}

// sendETH is a plain 0.5 ETH transfer on Base.
func sendETH(t testing.TB) TxFacts {
	return TxFacts{IntentType: IntentTransaction, Chain: "base", ChainID: 8453, Decimals: 18,
		To: "0x00000000000000000000000000000000000000Aa", Value: weiOf(t, "0.5")}
}

// sendToken is an ERC-20 transfer of a known token on Base.
func sendToken(t testing.TB) TxFacts {
	return TxFacts{IntentType: IntentTransaction, Chain: "base", ChainID: 8453, Decimals: 18,
		To: "0x000000000000000000000000000000000000700C", Value: new(big.Int),
		FunctionSelector: "0xa9059cbb", FunctionName: "transfer",
		Token: "0x000000000000000000000000000000000000700C", TokenKnown: true,
		TokenRecipient: "0x00000000000000000000000000000000000000Bb", TokenAmount: big.NewInt(1_000_000)}
}

// typedData is typed data on Ethereum of the USD Coin domain: an EIP-2612
// permit of a limited amount when known, else a message of no known
// standard.
func typedData(known bool) TxFacts {
	f := TxFacts{IntentType: IntentTypedData, Chain: "ethereum", ChainID: 1, Decimals: 18,
		TypedData: &TypedDataFacts{DomainName: "USD Coin",
			DomainVersion: "2", DomainChainID: "1", VerifyingContract: "0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48"}}
	if known {
		f.TypedData.Standard = "Permit"
		f.Effects = []TxEffect{{Kind: TxEffectApprove, Function: "Permit", Token: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48",
			Counterparty: "0x00000000000000000000000000000000000000bb", Amount: big.NewInt(5_000_000)}}
	}
	return f
}

func editFacts(f TxFacts, edit func(*TxFacts)) TxFacts {
	edit(&f)
	return f
}

func txRuleOf(effect Effect, priority int, c TxConditions) TxRule {
	return TxRule{Effect: effect, Priority: priority, Conditions: c}
}

func perChain(name string, c ChainGuardrails) map[string]ChainGuardrails {
	return map[string]ChainGuardrails{name: c}
}

func TestEvaluateTx(t *testing.T) {
	onBase := TxConditions{ChainIn: []string{"base"}}
	tests := map[string]struct {
		g         Guardrails
		rules     []TxRule
		f         TxFacts
		c         TxCounters
		wantDeny  string // the denying guardrail; "" allows
		wantAllow bool
	}{
		"no guardrails allow a transaction": {f: sendETH(t), wantAllow: true},
		"unknown intent denies":             {f: editFacts(sendETH(t), func(f *TxFacts) { f.IntentType = "wire" }), wantDeny: GuardrailIntentType},

		// 1. intent gates
		"personal_sign enabled":  {g: Guardrails{MessageSigningEnabled: true}, f: TxFacts{IntentType: IntentPersonalSign, Chain: "base"}, wantAllow: true},
		"personal_sign disabled": {f: TxFacts{IntentType: IntentPersonalSign, Chain: "base"}, wantDeny: GuardrailMessageSigning},
		"digest disabled":        {f: TxFacts{IntentType: IntentEIP712Digest}, wantDeny: GuardrailRawSigning},
		"digest alias disabled":  {f: TxFacts{IntentType: IntentDigest}, wantDeny: GuardrailRawSigning},
		// The spec bypasses every guardrail for eip712_digest once raw
		// signing is on: chains, rules and limits are not consulted.
		"digest bypasses guardrails": {
			g: Guardrails{RawSigningEnabled: true, TxAllowedChains: []string{"ethereum"}, SigningChains: []string{"ethereum"},
				TxMaxPerDay: int64p(0)},
			rules: []TxRule{txRuleOf(EffectDeny, 100, TxConditions{})},
			f:     TxFacts{IntentType: IntentDigest, Chain: "base"}, c: TxCounters{CountToday: 50},
			wantAllow: true,
		},

		// 2. chains
		"allowed chain by name":      {g: Guardrails{TxAllowedChains: []string{"Base"}}, f: sendETH(t), wantAllow: true},
		"allowed chain by id":        {g: Guardrails{TxAllowedChains: []string{"8453"}}, f: sendETH(t), wantAllow: true},
		"chain not allowed":          {g: Guardrails{TxAllowedChains: []string{"ethereum", "1"}}, f: sendETH(t), wantDeny: GuardrailAllowedChains},
		"signing chain allowed":      {g: Guardrails{SigningChains: []string{"base"}}, f: sendETH(t), wantAllow: true},
		"signing chain not allowed":  {g: Guardrails{SigningChains: []string{"solana"}}, f: sendETH(t), wantDeny: GuardrailSigningChains},
		"chain list applies to sign": {g: Guardrails{MessageSigningEnabled: true, SigningChains: []string{"solana"}}, f: TxFacts{IntentType: IntentPersonalSign, Chain: "base"}, wantDeny: GuardrailSigningChains},
		// A request that names no chain cannot be on a set list.
		"no chain with a list": {g: Guardrails{TxAllowedChains: []string{"base"}}, f: editFacts(sendETH(t), func(f *TxFacts) { f.Chain, f.ChainID = "", 0 }), wantDeny: GuardrailAllowedChains},

		// 3. decode
		"decode failed":     {f: editFacts(sendETH(t), func(f *TxFacts) { f.DecodeFailed = true }), wantDeny: GuardrailDecode},
		"negative value":    {f: editFacts(sendETH(t), func(f *TxFacts) { f.Value = big.NewInt(-1) }), wantDeny: GuardrailDecode},
		"typed decode flag": {g: Guardrails{EIP712DefaultPolicy: EIP712PolicyAllow}, f: editFacts(typedData(false), func(f *TxFacts) { f.DecodeFailed = true }), wantAllow: true},

		// 4. typed data
		"typed data unknown default":    {f: typedData(false), wantDeny: GuardrailEIP712DefaultPolicy},
		"typed data unknown allowed":    {g: Guardrails{EIP712DefaultPolicy: EIP712PolicyAllow}, f: typedData(false), wantAllow: true},
		"typed data dangerous default":  {f: typedData(true), wantDeny: GuardrailEIP712DefaultPolicy},
		"typed data dangerous allowed":  {g: Guardrails{EIP712DefaultPolicy: EIP712PolicyAllow}, f: typedData(true), wantAllow: true},
		"typed data without facts":      {f: TxFacts{IntentType: IntentTypedData, Chain: "ethereum"}, wantDeny: GuardrailEIP712DefaultPolicy},
		"domain by contract any case":   {g: Guardrails{EIP712DomainAllowlist: []EIP712DomainRule{{Match: "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48"}}}, f: typedData(true), wantAllow: true},
		"domain by name any case":       {g: Guardrails{EIP712DomainAllowlist: []EIP712DomainRule{{Match: "usd coin"}}}, f: typedData(true), wantAllow: true},
		"domain object all match":       {g: Guardrails{EIP712DomainAllowlist: []EIP712DomainRule{{Name: "USD Coin", Version: "2", ChainID: "0x1"}}}, f: typedData(true), wantAllow: true},
		"domain object one field wrong": {g: Guardrails{EIP712DomainAllowlist: []EIP712DomainRule{{Name: "USD Coin", ChainID: "8453"}}}, f: typedData(true), wantDeny: GuardrailEIP712DefaultPolicy},
		"domain not listed":             {g: Guardrails{EIP712DomainAllowlist: []EIP712DomainRule{{Match: "Uniswap"}}}, f: typedData(true), wantDeny: GuardrailEIP712DefaultPolicy},
		// A zero entry (built in code, not parsed) must not open every domain.
		"domain zero entry": {g: Guardrails{EIP712DomainAllowlist: []EIP712DomainRule{{}}}, f: typedData(true), wantDeny: GuardrailEIP712DefaultPolicy},

		// 5. recipients
		"to listed any case":           {g: Guardrails{TxToAllowlist: []string{"0x00000000000000000000000000000000000000AA"}}, f: sendETH(t), wantAllow: true},
		"to not listed":                {g: Guardrails{TxToAllowlist: []string{"0x00000000000000000000000000000000000000Cc"}}, f: sendETH(t), wantDeny: GuardrailToAllowlist},
		"token recipient listed":       {g: Guardrails{TxToAllowlist: []string{"0x00000000000000000000000000000000000000bb"}}, f: sendToken(t), wantAllow: true},
		"token contract not recipient": {g: Guardrails{TxToAllowlist: []string{"0x000000000000000000000000000000000000700C"}}, f: sendToken(t), wantDeny: GuardrailToAllowlist},
		"contract creation with list":  {g: Guardrails{TxToAllowlist: []string{"0x00000000000000000000000000000000000000Aa"}}, f: editFacts(sendETH(t), func(f *TxFacts) { f.To = "" }), wantDeny: GuardrailToAllowlist},

		// 5b. EIP-7702: a value-0 transaction to an allowlisted address that
		// delegates the account to other code is the attack; no list, no
		// delegation.
		"delegation without a list": {g: Guardrails{TxToAllowlist: []string{"0x00000000000000000000000000000000000000Aa"}},
			f: editFacts(sendETH(t), func(f *TxFacts) { f.Delegations = []string{"0x00000000000000000000000000000000000000dd"} }), wantDeny: GuardrailDelegation},
		"delegation not listed": {g: Guardrails{TxDelegationAllowlist: []string{"0x00000000000000000000000000000000000000Ee"}},
			f: editFacts(sendETH(t), func(f *TxFacts) {
				f.Delegations = []string{"0x00000000000000000000000000000000000000ee", "0x00000000000000000000000000000000000000dd"}
			}), wantDeny: GuardrailDelegation},
		"delegation listed any case": {g: Guardrails{TxDelegationAllowlist: []string{"0x00000000000000000000000000000000000000DD"}},
			f: editFacts(sendETH(t), func(f *TxFacts) { f.Delegations = []string{"0x00000000000000000000000000000000000000dd"} }), wantAllow: true},
		"per chain to listed": {
			g: Guardrails{PerChainGuardrails: perChain("base", ChainGuardrails{ToAllowlist: []string{"0x00000000000000000000000000000000000000aa"}})},
			f: sendETH(t), wantAllow: true,
		},
		"per chain to not listed": {
			g: Guardrails{TxToAllowlist: []string{"0x00000000000000000000000000000000000000Aa"},
				PerChainGuardrails: perChain("BASE", ChainGuardrails{ToAllowlist: []string{"0x00000000000000000000000000000000000000Cc"}})},
			f: sendETH(t), wantDeny: GuardrailPerChain,
		},
		"other chain's to list ignored": {
			g: Guardrails{PerChainGuardrails: perChain("ethereum", ChainGuardrails{ToAllowlist: []string{"0xCc"}})},
			f: sendETH(t), wantAllow: true,
		},
		"sign skips to list": {
			g: Guardrails{MessageSigningEnabled: true, TxToAllowlist: []string{"0xCc"}, TxMaxValueETH: "0", TxMaxPerDay: int64p(0), TxDailyLimitETH: "0"},
			f: TxFacts{IntentType: IntentPersonalSign, Chain: "base"}, wantAllow: true,
		},

		// 6. tokens
		"token listed any case":     {g: Guardrails{TxTokenAllowlist: []string{"0x000000000000000000000000000000000000700c"}}, f: sendToken(t), wantAllow: true},
		"token not listed":          {g: Guardrails{TxTokenAllowlist: []string{"0x0000000000000000000000000000000000000001"}}, f: sendToken(t), wantDeny: GuardrailTokenAllowlist},
		"native ignores token list": {g: Guardrails{TxTokenAllowlist: []string{"0x0000000000000000000000000000000000000001"}}, f: sendETH(t), wantAllow: true},
		"per chain token not listed": {
			g: Guardrails{PerChainGuardrails: perChain("base", ChainGuardrails{TokenAllowlist: []string{"0x01"}})},
			f: sendToken(t), wantDeny: GuardrailTokenAllowlist,
		},
		"per chain token listed": {
			g: Guardrails{PerChainGuardrails: perChain("base", ChainGuardrails{TokenAllowlist: []string{"0x000000000000000000000000000000000000700C"}})},
			f: sendToken(t), wantAllow: true,
		},
		"known token":   {g: Guardrails{TxKnownTokensOnly: true}, f: sendToken(t), wantAllow: true},
		"unknown token": {g: Guardrails{TxKnownTokensOnly: true}, f: editFacts(sendToken(t), func(f *TxFacts) { f.TokenKnown = false }), wantDeny: GuardrailKnownTokensOnly},

		// 7. per-transaction value
		"value at limit":        {g: Guardrails{TxMaxValueETH: "0.5"}, f: sendETH(t), wantAllow: true},
		"value over limit":      {g: Guardrails{TxMaxValueETH: "0.4999"}, f: sendETH(t), wantDeny: GuardrailMaxValue},
		"zero limit zero value": {g: Guardrails{TxMaxValueETH: "0"}, f: sendToken(t), wantAllow: true},
		"zero limit any value":  {g: Guardrails{TxMaxValueETH: "0"}, f: editFacts(sendETH(t), func(f *TxFacts) { f.Value = big.NewInt(1) }), wantDeny: GuardrailMaxValue},
		"nil value is zero":     {g: Guardrails{TxMaxValueETH: "0"}, f: editFacts(sendETH(t), func(f *TxFacts) { f.Value = nil }), wantAllow: true},
		"global stricter value": {
			g: Guardrails{TxMaxValueETH: "0.1", PerChainGuardrails: perChain("base", ChainGuardrails{MaxValue: "10"})},
			f: sendETH(t), wantDeny: GuardrailMaxValue,
		},
		"per chain stricter value": {
			g: Guardrails{TxMaxValueETH: "10", PerChainGuardrails: perChain("base", ChainGuardrails{MaxValue: "0.1"})},
			f: sendETH(t), wantDeny: GuardrailMaxValue,
		},
		"per chain looser value still capped": {
			g: Guardrails{TxMaxValueETH: "1", PerChainGuardrails: perChain("base", ChainGuardrails{MaxValue: "100"})},
			f: editFacts(sendETH(t), func(f *TxFacts) { f.Value = weiOf(t, "2") }), wantDeny: GuardrailMaxValue,
		},
		"value at other decimals": {
			g: Guardrails{TxMaxValueETH: "1.5"},
			f: TxFacts{IntentType: IntentTransaction, Chain: "solana", Decimals: 9, Value: big.NewInt(1_500_000_001)}, wantDeny: GuardrailMaxValue,
		},
		"bad decimals deny": {g: Guardrails{TxMaxValueETH: "1"}, f: editFacts(sendETH(t), func(f *TxFacts) { f.Decimals = -1 }), wantDeny: GuardrailMaxValue},

		// 8. tx_conditions
		"no rules allow":     {f: sendETH(t), wantAllow: true},
		"allow rule matches": {rules: []TxRule{txRuleOf(EffectAllow, 0, onBase)}, f: sendETH(t), wantAllow: true},
		// Allow rules are an allowlist: a request none of them matches is denied.
		"allow rule misses": {
			rules: []TxRule{txRuleOf(EffectAllow, 0, TxConditions{ChainIn: []string{"ethereum"}})},
			f:     sendETH(t), wantDeny: GuardrailConditions,
		},
		"deny rule matches": {rules: []TxRule{txRuleOf(EffectDeny, 0, onBase)}, f: sendETH(t), wantDeny: GuardrailConditions},
		"deny rule misses":  {rules: []TxRule{txRuleOf(EffectDeny, 0, TxConditions{ChainIn: []string{"ethereum"}})}, f: sendETH(t), wantAllow: true},
		"deny wins a tie": {
			rules: []TxRule{txRuleOf(EffectAllow, 5, onBase), txRuleOf(EffectDeny, 5, onBase), txRuleOf(EffectAllow, 5, onBase)},
			f:     sendETH(t), wantDeny: GuardrailConditions,
		},
		"higher allow beats deny": {
			rules: []TxRule{txRuleOf(EffectDeny, 1, onBase), txRuleOf(EffectAllow, 2, onBase)},
			f:     sendETH(t), wantAllow: true,
		},
		"higher deny beats allow": {
			rules: []TxRule{txRuleOf(EffectAllow, 1, onBase), txRuleOf(EffectDeny, 2, onBase)},
			f:     sendETH(t), wantDeny: GuardrailConditions,
		},
		"expired deny dropped": {
			rules: []TxRule{{Effect: EffectDeny, Conditions: onBase, ExpiresAt: txNow}},
			f:     sendETH(t), wantAllow: true,
		},
		"unexpired deny applies": {
			rules: []TxRule{{Effect: EffectDeny, Conditions: onBase, ExpiresAt: txNow.Add(time.Second)}},
			f:     sendETH(t), wantDeny: GuardrailConditions,
		},
		// An expired allow no longer makes the allow rules an allowlist.
		"expired allow dropped": {
			rules: []TxRule{{Effect: EffectAllow, Conditions: TxConditions{ChainIn: []string{"ethereum"}}, ExpiresAt: txNow.Add(-time.Hour)}},
			f:     sendETH(t), wantAllow: true,
		},
		"invalid effect denies": {rules: []TxRule{txRuleOf("maybe", 0, onBase)}, f: sendETH(t), wantDeny: GuardrailConditions},
		"rules apply to sign": {
			g:     Guardrails{MessageSigningEnabled: true},
			rules: []TxRule{txRuleOf(EffectDeny, 0, TxConditions{IntentTypeIn: []string{IntentPersonalSign}})},
			f:     TxFacts{IntentType: IntentPersonalSign, Chain: "base"}, wantDeny: GuardrailConditions,
		},
		"rules apply to typed data": {
			g:     Guardrails{EIP712DefaultPolicy: EIP712PolicyAllow},
			rules: []TxRule{txRuleOf(EffectAllow, 0, TxConditions{IntentTypeIn: []string{IntentTransaction}})},
			f:     typedData(false), wantDeny: GuardrailConditions,
		},
		// A condition that cannot be judged lets a deny apply, never an allow.
		"unknown condition deny applies": {
			rules: []TxRule{txRuleOf(EffectDeny, 0, TxConditions{ValueAboveGwei: big.NewInt(1)})},
			f:     editFacts(sendETH(t), func(f *TxFacts) { f.Decimals = -1 }), wantDeny: GuardrailConditions,
		},
		"unknown condition allow skipped": {
			rules: []TxRule{txRuleOf(EffectAllow, 0, TxConditions{ValueAboveGwei: big.NewInt(1)})},
			f:     editFacts(sendETH(t), func(f *TxFacts) { f.Decimals = -1 }), wantDeny: GuardrailConditions,
		},

		// 9. daily count
		"count under cap":       {g: Guardrails{TxMaxPerDay: int64p(3)}, f: sendETH(t), c: TxCounters{CountToday: 2}, wantAllow: true},
		"count at cap":          {g: Guardrails{TxMaxPerDay: int64p(3)}, f: sendETH(t), c: TxCounters{CountToday: 3}, wantDeny: GuardrailMaxPerDay},
		"zero cap":              {g: Guardrails{TxMaxPerDay: int64p(0)}, f: sendETH(t), wantDeny: GuardrailMaxPerDay},
		"chain count under cap": {g: Guardrails{PerChainGuardrails: perChain("base", ChainGuardrails{MaxPerDay: int64p(2)})}, f: sendETH(t), c: TxCounters{CountToday: 9, CountTodayChain: 1}, wantAllow: true},
		"chain count at cap":    {g: Guardrails{TxMaxPerDay: int64p(10), PerChainGuardrails: perChain("base", ChainGuardrails{MaxPerDay: int64p(2)})}, f: sendETH(t), c: TxCounters{CountToday: 2, CountTodayChain: 2}, wantDeny: GuardrailMaxPerDay},

		// 10. daily value
		"daily under limit": {g: Guardrails{TxDailyLimitETH: "1"}, f: sendETH(t), c: TxCounters{SpentTodayChain: weiOf(t, "0.5")}, wantAllow: true},
		"daily over limit":  {g: Guardrails{TxDailyLimitETH: "1"}, f: sendETH(t), c: TxCounters{SpentTodayChain: weiOf(t, "0.6")}, wantDeny: GuardrailDailyLimit},
		"daily nil spent":   {g: Guardrails{TxDailyLimitETH: "0.5"}, f: sendETH(t), wantAllow: true},
		"daily global stricter": {
			g: Guardrails{TxDailyLimitETH: "0.6", PerChainGuardrails: perChain("base", ChainGuardrails{DailyLimit: "5"})},
			f: sendETH(t), c: TxCounters{SpentTodayChain: weiOf(t, "0.2")}, wantDeny: GuardrailDailyLimit,
		},
		"daily per chain stricter": {
			g: Guardrails{TxDailyLimitETH: "5", PerChainGuardrails: perChain("base", ChainGuardrails{DailyLimit: "0.6"})},
			f: sendETH(t), c: TxCounters{SpentTodayChain: weiOf(t, "0.2")}, wantDeny: GuardrailDailyLimit,
		},
		"daily negative counter": {g: Guardrails{TxDailyLimitETH: "5"}, f: sendETH(t), c: TxCounters{SpentTodayChain: big.NewInt(-1)}, wantDeny: GuardrailDailyLimit},

		// order: the first failing check names itself
		"chain before value": {g: Guardrails{TxAllowedChains: []string{"ethereum"}, TxMaxValueETH: "0"}, f: sendETH(t), wantDeny: GuardrailAllowedChains},
		"value before rules": {g: Guardrails{TxMaxValueETH: "0"}, rules: []TxRule{txRuleOf(EffectDeny, 0, onBase)}, f: sendETH(t), wantDeny: GuardrailMaxValue},
		"rules before count": {g: Guardrails{TxMaxPerDay: int64p(0)}, rules: []TxRule{txRuleOf(EffectDeny, 0, onBase)}, f: sendETH(t), wantDeny: GuardrailConditions},
		"count before daily": {g: Guardrails{TxMaxPerDay: int64p(0), TxDailyLimitETH: "0"}, f: sendETH(t), wantDeny: GuardrailMaxPerDay},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.True(t, tc.wantAllow != (tc.wantDeny != ""), "test case must want exactly one outcome")
			d := EvaluateTx(tc.g, tc.rules, tc.f, tc.c, txNow)
			require.Equal(t, tc.wantAllow, d.Allowed, "decision %+v", d)
			require.Equal(t, tc.wantDeny, d.Guardrail)
			if !d.Allowed {
				require.NotEmpty(t, d.Detail)
			}
		})
	}
}

func TestEvaluateTxExpiringRuleNeedsTime(t *testing.T) {
	rules := []TxRule{{Effect: EffectAllow, ExpiresAt: txNow}}
	d := EvaluateTx(Guardrails{}, rules, sendETH(t), TxCounters{}, time.Time{})
	require.False(t, d.Allowed)
	require.Equal(t, GuardrailConditions, d.Guardrail)
}

func TestEvaluateTxParsedEndToEnd(t *testing.T) {
	g, err := ParseGuardrails(rawFields(t, `{"tx_max_value_eth": "1", "tx_daily_limit_eth": 2,
		"tx_to_allowlist": ["0x00000000000000000000000000000000000000AA"],
		"per_chain_guardrails": {"base": {"max_value": 0.75, "max_per_day": "4"}}}`))
	require.NoError(t, err)
	c, err := ParseTxConditions([]byte(`{"chain_in": [8453], "value_above": "600000000"}`))
	require.NoError(t, err)
	rules := []TxRule{{Effect: EffectDeny, Priority: 1, Conditions: c}}

	require.True(t, EvaluateTx(g, rules, sendETH(t), TxCounters{CountTodayChain: 3}, txNow).Allowed)
	over := editFacts(sendETH(t), func(f *TxFacts) { f.Value = weiOf(t, "0.7") })
	require.Equal(t, GuardrailConditions, EvaluateTx(g, rules, over, TxCounters{}, txNow).Guardrail)
	require.Equal(t, GuardrailMaxPerDay, EvaluateTx(g, rules, sendETH(t), TxCounters{CountTodayChain: 4}, txNow).Guardrail)
}
