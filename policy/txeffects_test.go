package policy

import (
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Addresses of the effect tests (lowercase, as the enclave writes them).
const (
	addrToken    = "0x000000000000000000000000000000000000700c"
	addrToken2   = "0x000000000000000000000000000000000000700d"
	addrFriend   = "0x00000000000000000000000000000000000000bb"
	addrAttacker = "0x00000000000000000000000000000000000000ee"
	addrRouter   = "0x00000000000000000000000000000000000000aa"
	addrSafe     = "0x0000000000000000000000000000000000005afe"
	addrImpl     = "0x0000000000000000000000000000000000000111"
)

var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// call is a value-0 transaction on Base to `to` whose calldata has the
// given effects; the top-level call is named after the first one.
func call(to string, effects ...TxEffect) TxFacts {
	f := TxFacts{IntentType: IntentTransaction, Chain: "base", ChainID: 8453, Decimals: 18, To: to,
		Value: new(big.Int), MaxFee: big.NewInt(21_000 * 1_000_000_000), Effects: effects}
	if len(effects) > 0 {
		f.FunctionName, f.FunctionSelector = effects[0].Function, effects[0].Selector
		if effects[0].Depth > 0 {
			f.FunctionName, f.FunctionSelector = "multicall", "0xac9650d8"
		}
	}
	return f
}

func approveOf(token, spender string, amount *big.Int, depth int) TxEffect {
	return TxEffect{Kind: TxEffectApprove, Function: "approve", Selector: "0x095ea7b3", Target: token, Token: token,
		Counterparty: spender, Amount: amount, Unlimited: amount != nil && amount.Cmp(maxUint256) == 0, Depth: depth}
}

func transferOf(token, to string, amount int64, depth int) TxEffect {
	return TxEffect{Kind: TxEffectTokenTransfer, Function: "transfer", Selector: "0xa9059cbb", Target: token, Token: token,
		TokenKnown: true, Counterparty: to, Amount: big.NewInt(amount), Depth: depth}
}

func forAllOf(collection, operator string, approved bool) TxEffect {
	return TxEffect{Kind: TxEffectApprovalForAll, Function: "setApprovalForAll", Selector: "0xa22cb465", Target: collection,
		Token: collection, Counterparty: operator, Approved: approved}
}

func privileged(function, selector, target, counterparty string, depth int) TxEffect {
	return TxEffect{Kind: TxEffectPrivileged, Function: function, Selector: selector, Target: target, Counterparty: counterparty, Depth: depth}
}

func unknownCall(target, selector string, depth int) TxEffect {
	return TxEffect{Kind: TxEffectCall, Selector: selector, Target: target, Depth: depth, DecodeFailed: true}
}

func nativeTo(to string, wei *big.Int, from string, depth int) TxEffect {
	return TxEffect{Kind: TxEffectNativeTransfer, Counterparty: to, Amount: wei, From: from, Depth: depth}
}

// typedEffects is typed data of a known standard on Base with the given
// effects, under a domain of the given chain id ("" for none).
func typedEffects(standard, domainChain string, effects ...TxEffect) TxFacts {
	return TxFacts{IntentType: IntentTypedData, Chain: "base", ChainID: 8453, Decimals: 18, Effects: effects,
		TypedData: &TypedDataFacts{Standard: standard, DomainName: "USD Coin", DomainVersion: "2",
			DomainChainID: domainChain, VerifyingContract: addrToken}}
}

func allowNames(names ...string) TxRule {
	return txRuleOf(EffectAllow, 0, TxConditions{FunctionNameIn: names})
}

func allowSelectors(selectors ...string) TxRule {
	return txRuleOf(EffectAllow, 0, TxConditions{FunctionSelectorIn: selectors})
}

func TestEvaluateTxEffects(t *testing.T) {
	big2pow255 := new(big.Int).Lsh(big.NewInt(1), 255)
	gwei := func(n int64) *big.Int { return new(big.Int).Mul(big.NewInt(n), big.NewInt(1_000_000_000)) }
	withFee := func(f TxFacts, gas, perGas int64) TxFacts {
		f.MaxFee = new(big.Int).Mul(big.NewInt(gas), gwei(perGas))
		return f
	}
	typedAllow := Guardrails{EIP712DefaultPolicy: EIP712PolicyAllow}
	tests := map[string]struct {
		g        Guardrails
		rules    []TxRule
		f        TxFacts
		c        TxCounters
		now      time.Time
		wantDeny string // "" allows
	}{
		// Unlimited grants need tx_approval_allowlist.
		"unlimited approve unlisted": {
			g: Guardrails{TxToAllowlist: []string{addrAttacker}},
			f: call(addrToken, approveOf(addrToken, addrAttacker, maxUint256, 0)), wantDeny: GuardrailApprovalAllowlist,
		},
		"unlimited approve to an allowlisted recipient": {
			g: Guardrails{TxToAllowlist: []string{addrRouter}},
			f: call(addrToken, approveOf(addrToken, addrRouter, maxUint256, 0)), wantDeny: GuardrailApprovalAllowlist,
		},
		"unlimited approve listed": {
			g: Guardrails{TxApprovalAllowlist: []string{"0x00000000000000000000000000000000000000AA"}, TxToAllowlist: []string{addrFriend}},
			f: call(addrToken, approveOf(addrToken, addrRouter, maxUint256, 0)),
		},
		"2^255 counts as unlimited without the flag": {
			f: call(addrToken, approveOf(addrToken, addrRouter, big2pow255, 0)), wantDeny: GuardrailApprovalAllowlist,
		},
		"unlimited flag without an amount (DAI)": {
			f:        call(addrToken, TxEffect{Kind: TxEffectApprove, Function: "permit", Token: addrToken, Counterparty: addrRouter, Unlimited: true}),
			wantDeny: GuardrailApprovalAllowlist,
		},
		"unlimited to an open spender": {
			g: Guardrails{TxApprovalAllowlist: []string{addrRouter}},
			f: call(addrToken, approveOf(addrToken, "", maxUint256, 0)), wantDeny: GuardrailApprovalAllowlist,
		},
		"unlimited approve inside multicall": {
			g: Guardrails{TxToAllowlist: []string{addrRouter}},
			f: call(addrRouter, approveOf(addrToken, addrAttacker, maxUint256, 1)), wantDeny: GuardrailApprovalAllowlist,
		},
		"setApprovalForAll unlisted": {
			g: Guardrails{TxToAllowlist: []string{addrToken}},
			f: call(addrToken, forAllOf(addrToken, addrAttacker, true)), wantDeny: GuardrailApprovalAllowlist,
		},
		"setApprovalForAll listed": {
			g: Guardrails{TxApprovalAllowlist: []string{addrRouter}},
			f: call(addrToken, forAllOf(addrToken, addrRouter, true)),
		},
		"setApprovalForAll revocation": {
			g: Guardrails{TxToAllowlist: []string{addrFriend}, TxTokenAllowlist: []string{addrToken2}},
			f: call(addrToken, forAllOf(addrToken, addrAttacker, false)),
		},
		"approve zero is a revocation": {
			g: Guardrails{TxToAllowlist: []string{addrFriend}},
			f: call(addrToken, approveOf(addrToken, addrAttacker, new(big.Int), 0)),
		},

		// Limited grants are judged like recipients.
		"limited approve spender unlisted": {
			g: Guardrails{TxToAllowlist: []string{addrFriend}},
			f: call(addrToken, approveOf(addrToken, addrAttacker, big.NewInt(5), 0)), wantDeny: GuardrailToAllowlist,
		},
		"limited approve spender listed": {
			g: Guardrails{TxToAllowlist: []string{addrRouter}},
			f: call(addrToken, approveOf(addrToken, addrRouter, big.NewInt(5), 0)),
		},
		"limited approve per-chain list": {
			g: Guardrails{PerChainGuardrails: perChain("BASE", ChainGuardrails{ToAllowlist: []string{addrFriend}})},
			f: call(addrToken, approveOf(addrToken, addrRouter, big.NewInt(5), 0)), wantDeny: GuardrailPerChain,
		},

		// Counterparties through wrappers.
		"inner recipient unlisted": {
			g: Guardrails{TxToAllowlist: []string{addrRouter, addrFriend}},
			f: call(addrRouter, transferOf(addrToken, addrFriend, 1, 1), transferOf(addrToken, addrAttacker, 1, 1)), wantDeny: GuardrailToAllowlist,
		},
		"inner recipients listed": {
			g: Guardrails{TxToAllowlist: []string{addrRouter, addrFriend}},
			f: call(addrRouter, transferOf(addrToken, addrFriend, 1, 1)),
		},
		"wrapper itself unlisted": {
			g: Guardrails{TxToAllowlist: []string{addrFriend}},
			f: call(addrRouter, transferOf(addrToken, addrFriend, 1, 1)), wantDeny: GuardrailToAllowlist,
		},
		"open counterparty is unlisted": {
			g: Guardrails{TxToAllowlist: []string{addrFriend}},
			f: typedEffects("OrderComponents", "8453", transferOf(addrToken, "", 1, 0)), wantDeny: GuardrailEIP712DefaultPolicy,
		},
		"open counterparty with typed data allowed": {
			g: Guardrails{EIP712DefaultPolicy: EIP712PolicyAllow, TxToAllowlist: []string{addrFriend}},
			f: typedEffects("OrderComponents", "8453", transferOf(addrToken, "", 1, 0)), wantDeny: GuardrailToAllowlist,
		},
		"token call with value checks to": {
			g:        Guardrails{TxToAllowlist: []string{addrFriend}},
			f:        editFacts(call(addrToken, transferOf(addrToken, addrFriend, 1, 0)), func(f *TxFacts) { f.Value = big.NewInt(1) }),
			wantDeny: GuardrailToAllowlist,
		},
		"inner native transfer unlisted": {
			g: Guardrails{TxToAllowlist: []string{addrSafe}},
			f: call(addrSafe, nativeTo(addrAttacker, big.NewInt(1), addrSafe, 1)), wantDeny: GuardrailToAllowlist,
		},

		// Tokens of every token effect.
		"inner token not allowlisted": {
			g: Guardrails{TxTokenAllowlist: []string{addrToken}},
			f: call(addrRouter, transferOf(addrToken, addrFriend, 1, 1), transferOf(addrToken2, addrFriend, 1, 1)), wantDeny: GuardrailTokenAllowlist,
		},
		"per-chain token list": {
			g: Guardrails{PerChainGuardrails: perChain("base", ChainGuardrails{TokenAllowlist: []string{addrToken2}})},
			f: call(addrToken, approveOf(addrToken, addrRouter, big.NewInt(1), 0)), wantDeny: GuardrailTokenAllowlist,
		},
		"unknown inner token": {
			g:        Guardrails{TxKnownTokensOnly: true},
			f:        call(addrRouter, TxEffect{Kind: TxEffectTokenTransfer, Token: addrToken2, Counterparty: addrFriend, Amount: big.NewInt(1), Depth: 1}),
			wantDeny: GuardrailKnownTokensOnly,
		},
		"known token": {g: Guardrails{TxKnownTokensOnly: true}, f: call(addrToken, transferOf(addrToken, addrFriend, 1, 0))},

		// Privileged calls need an allow rule that names them.
		"upgradeTo without a rule": {
			g: Guardrails{TxToAllowlist: []string{addrSafe}},
			f: call(addrSafe, privileged("upgradeTo", "0x3659cfe6", addrSafe, addrImpl, 0)), wantDeny: GuardrailPrivilegedCall,
		},
		"upgradeTo named by function": {
			rules: []TxRule{allowNames("upgradeTo")},
			f:     call(addrSafe, privileged("upgradeTo", "0x3659cfe6", addrSafe, addrImpl, 0)),
		},
		"upgradeTo named by selector": {
			rules: []TxRule{allowSelectors("0x3659CFE6")},
			f:     call(addrSafe, privileged("upgradeTo", "0x3659cfe6", addrSafe, addrImpl, 0)),
		},
		"allow rule not naming it": {
			rules: []TxRule{txRuleOf(EffectAllow, 0, TxConditions{ChainIn: []string{"base"}})},
			f:     call(addrSafe, privileged("changeThreshold", "0x694e80c3", addrSafe, "", 0)), wantDeny: GuardrailPrivilegedCall,
		},
		"allow rule naming another function": {
			rules: []TxRule{allowNames("transfer")},
			f:     call(addrSafe, privileged("enableModule", "0x610b5925", addrSafe, addrAttacker, 0)), wantDeny: GuardrailPrivilegedCall,
		},
		"naming rule that does not hold": {
			rules: []TxRule{txRuleOf(EffectAllow, 0, TxConditions{FunctionNameIn: []string{"upgradeTo"}, ChainIn: []string{"ethereum"}})},
			f:     call(addrSafe, privileged("upgradeTo", "0x3659cfe6", addrSafe, addrImpl, 0)), wantDeny: GuardrailPrivilegedCall,
		},
		"naming rule expired": {
			rules: []TxRule{{Effect: EffectAllow, Conditions: TxConditions{FunctionNameIn: []string{"upgradeTo"}}, ExpiresAt: txNow}},
			f:     call(addrSafe, privileged("upgradeTo", "0x3659cfe6", addrSafe, addrImpl, 0)), wantDeny: GuardrailPrivilegedCall,
		},
		"a deny rule does not name": {
			rules: []TxRule{txRuleOf(EffectDeny, 0, TxConditions{FunctionNameIn: []string{"upgradeTo"}})},
			f:     call(addrSafe, privileged("upgradeTo", "0x3659cfe6", addrSafe, addrImpl, 0)), wantDeny: GuardrailPrivilegedCall,
		},
		"named but outranked by a deny": {
			rules: []TxRule{allowNames("upgradeTo"), txRuleOf(EffectDeny, 5, TxConditions{ChainIn: []string{"base"}})},
			f:     call(addrSafe, privileged("upgradeTo", "0x3659cfe6", addrSafe, addrImpl, 0)), wantDeny: GuardrailConditions,
		},
		"privileged without a name": {
			rules: []TxRule{txRuleOf(EffectAllow, 0, TxConditions{})},
			f:     call(addrSafe, privileged("", "", addrSafe, addrImpl, 0)), wantDeny: GuardrailPrivilegedCall,
		},
		// An allow rule must hold for every call, the unknown inner call
		// too: naming only the wrapper admits nothing.
		"delegatecall inside execTransaction, rule names the wrapper only": {
			rules: []TxRule{allowNames("execTransaction")},
			f: call(addrSafe, privileged("execTransaction", "0x6a761202", addrSafe, addrAttacker, 0),
				unknownCall(addrAttacker, "0xdeadbeef", 1)),
			wantDeny: GuardrailPrivilegedCall,
		},
		"delegatecall inside execTransaction, rule lists every selector": {
			rules: []TxRule{allowSelectors("0x6a761202", "0xdeadbeef")},
			f: call(addrSafe, privileged("execTransaction", "0x6a761202", addrSafe, addrAttacker, 0),
				unknownCall(addrAttacker, "0xdeadbeef", 1)),
		},

		// Calls that could not be decoded need their selector allowed.
		"random selector": {
			g: Guardrails{TxToAllowlist: []string{addrRouter}},
			f: call(addrRouter, unknownCall(addrRouter, "0xdeadbeef", 0)), wantDeny: GuardrailDecode,
		},
		"random selector allowed": {
			g:     Guardrails{TxToAllowlist: []string{addrRouter}},
			rules: []TxRule{allowSelectors("0xDEADBEEF")},
			f:     call(addrRouter, unknownCall(addrRouter, "0xdeadbeef", 0)),
		},
		"other selector allowed": {
			rules: []TxRule{allowSelectors("0x12345678")},
			f:     call(addrRouter, unknownCall(addrRouter, "0xdeadbeef", 0)), wantDeny: GuardrailDecode,
		},
		"undecodable without a selector": {
			rules: []TxRule{txRuleOf(EffectAllow, 0, TxConditions{})},
			f:     call(addrRouter, unknownCall(addrRouter, "", 0)), wantDeny: GuardrailDecode,
		},
		"decode_failed allow rule does not name the selector": {
			rules: []TxRule{txRuleOf(EffectAllow, 0, TxConditions{DecodeFailed: boolp(true)})},
			f:     call(addrRouter, unknownCall(addrRouter, "0xdeadbeef", 0)), wantDeny: GuardrailDecode,
		},
		"negative effect amount": {
			f: call(addrToken, transferOf(addrToken, addrFriend, -1, 0)), wantDeny: GuardrailDecode,
		},

		// Typed data: gate, chain binding, then effects.
		"typed unknown under deny": {f: typedEffects("", "8453"), wantDeny: GuardrailEIP712DefaultPolicy},
		"typed unknown allowed":    {g: typedAllow, f: typedEffects("", "8453")},
		"typed unknown no chain id": {
			g: typedAllow, f: typedEffects("", ""),
		},
		"typed known no chain id": {
			g: typedAllow, f: typedEffects("TransferWithAuthorization", "", transferOf(addrToken, addrFriend, 1, 0)), wantDeny: GuardrailDecode,
		},
		"typed domain chain mismatch": {
			g: typedAllow, f: typedEffects("TransferWithAuthorization", "1", transferOf(addrToken, addrFriend, 1, 0)), wantDeny: GuardrailDomainChainID,
		},
		"typed domain chain mismatch under deny": {
			f: typedEffects("", "1"), wantDeny: GuardrailDomainChainID,
		},
		"typed domain chain hex": {
			g: typedAllow, f: typedEffects("TransferWithAuthorization", "0x2105", transferOf(addrToken, addrFriend, 1, 0)),
		},
		"typed domain chain garbage": {
			g: typedAllow, f: typedEffects("", "base"), wantDeny: GuardrailDomainChainID,
		},
		"typed chain not allowed": {
			g: Guardrails{EIP712DefaultPolicy: EIP712PolicyAllow, TxAllowedChains: []string{"ethereum"}},
			f: typedEffects("", "8453"), wantDeny: GuardrailAllowedChains,
		},
		"typed malformed standard": {
			g: typedAllow, f: editFacts(typedEffects("Permit", "8453"), func(f *TxFacts) { f.TypedData.DecodeFailed = true }), wantDeny: GuardrailDecode,
		},
		"EIP-3009 to unlisted": {
			g: Guardrails{EIP712DomainAllowlist: []EIP712DomainRule{{Match: addrToken}}, TxToAllowlist: []string{addrFriend}},
			f: typedEffects("TransferWithAuthorization", "8453", transferOf(addrToken, addrAttacker, 1_000_000_000_000, 0)), wantDeny: GuardrailToAllowlist,
		},
		"EIP-3009 to listed": {
			g: Guardrails{EIP712DomainAllowlist: []EIP712DomainRule{{Match: addrToken}}, TxToAllowlist: []string{addrFriend}},
			f: typedEffects("TransferWithAuthorization", "8453", transferOf(addrToken, addrFriend, 1_000_000, 0)),
		},
		"typed unlimited permit": {
			g: typedAllow, f: typedEffects("Permit", "8453", approveOf(addrToken, addrRouter, maxUint256, 0)), wantDeny: GuardrailApprovalAllowlist,
		},
		"typed SafeTx delegatecall": {
			g: typedAllow, f: typedEffects("SafeTx", "8453", privileged("delegatecall", "", addrAttacker, addrAttacker, 0)), wantDeny: GuardrailPrivilegedCall,
		},
		"typed SafeTx unknown inner call": {
			g: typedAllow, f: typedEffects("SafeTx", "8453", unknownCall(addrRouter, "0xdeadbeef", 1)), wantDeny: GuardrailDecode,
		},
		"typed native value over max": {
			g: Guardrails{EIP712DefaultPolicy: EIP712PolicyAllow, TxMaxValueETH: "0.1"},
			f: typedEffects("SafeTx", "8453", nativeTo(addrFriend, weiOf(t, "0.2"), addrSafe, 1)), wantDeny: GuardrailMaxValue,
		},
		"typed native value under max": {
			g: Guardrails{EIP712DefaultPolicy: EIP712PolicyAllow, TxMaxValueETH: "0.1"},
			f: typedEffects("SafeTx", "8453", nativeTo(addrFriend, weiOf(t, "0.05"), addrSafe, 1)),
		},
		"typed native value over daily": {
			g: Guardrails{EIP712DefaultPolicy: EIP712PolicyAllow, TxDailyLimitETH: "1"},
			f: typedEffects("SafeTx", "8453", nativeTo(addrFriend, weiOf(t, "0.5"), addrSafe, 1)),
			c: TxCounters{SpentTodayChain: weiOf(t, "0.6")}, wantDeny: GuardrailDailyLimit,
		},
		"typed data skips the count": {
			g: Guardrails{EIP712DefaultPolicy: EIP712PolicyAllow, TxMaxPerDay: int64p(0)}, f: typedEffects("", "8453"),
		},
		"typed data pays no fee": {
			g: Guardrails{EIP712DefaultPolicy: EIP712PolicyAllow, TxMaxValueETH: "0", TxOverheadBudget: map[string]Amount{"base": "0"}},
			f: typedEffects("", "8453"),
		},

		// Fees: the overhead budget, else value plus fee under the max value.
		"fee within budget": {
			g: Guardrails{TxOverheadBudget: map[string]Amount{"Base": "0.01"}},
			f: withFee(sendETH(t), 21_000, 100), c: TxCounters{FeesTodayChain: weiOf(t, "0.005")},
		},
		"fee over budget": {
			g: Guardrails{TxOverheadBudget: map[string]Amount{"base": "0.01"}},
			f: withFee(sendETH(t), 30_000_000, 1000), wantDeny: GuardrailOverheadBudget,
		},
		"budget exhausted by today's fees": {
			g: Guardrails{TxOverheadBudget: map[string]Amount{"base": "0.01"}},
			f: withFee(sendETH(t), 100_000, 50), c: TxCounters{FeesTodayChain: weiOf(t, "0.006")}, wantDeny: GuardrailOverheadBudget,
		},
		"per-chain budget stricter": {
			g: Guardrails{TxOverheadBudget: map[string]Amount{"base": "1"}, PerChainGuardrails: perChain("base", ChainGuardrails{OverheadBudget: "0.001"})},
			f: withFee(sendETH(t), 100_000, 50), wantDeny: GuardrailOverheadBudget,
		},
		"per-chain budget alone": {
			g: Guardrails{PerChainGuardrails: perChain("base", ChainGuardrails{OverheadBudget: "0.001"})},
			f: withFee(sendETH(t), 100_000, 50), wantDeny: GuardrailOverheadBudget,
		},
		"negative fee counter": {
			g: Guardrails{TxOverheadBudget: map[string]Amount{"base": "1"}},
			f: sendETH(t), c: TxCounters{FeesTodayChain: big.NewInt(-1)}, wantDeny: GuardrailOverheadBudget,
		},
		"budget keeps fees out of the max value": {
			g: Guardrails{TxMaxValueETH: "0.5", TxOverheadBudget: map[string]Amount{"base": "1"}},
			f: withFee(sendETH(t), 1_000_000, 100),
		},
		"no budget: value plus fee over max": {
			g: Guardrails{TxMaxValueETH: "0.01"},
			f: withFee(call(addrRouter), 30_000_000, 1000), wantDeny: GuardrailMaxValue,
		},
		"no budget: value plus fee under max": {
			g: Guardrails{TxMaxValueETH: "0.01"},
			f: withFee(call(addrRouter), 21_000, 100),
		},
		"budget of another chain: fee counts in max value": {
			g: Guardrails{TxMaxValueETH: "0.5", TxOverheadBudget: map[string]Amount{"ethereum": "1"}},
			f: withFee(sendETH(t), 21_000, 1), wantDeny: GuardrailMaxValue,
		},
		"budget that cannot convert": {
			g: Guardrails{TxOverheadBudget: map[string]Amount{"base": "0.5"}},
			f: editFacts(sendETH(t), func(f *TxFacts) { f.Decimals = -1 }), wantDeny: GuardrailOverheadBudget,
		},

		// Native value moved by inner calls.
		"inner native value from a Safe over max": {
			g: Guardrails{TxMaxValueETH: "1", TxOverheadBudget: map[string]Amount{"base": "1"}},
			f: call(addrSafe, nativeTo(addrFriend, weiOf(t, "2"), addrSafe, 1)), wantDeny: GuardrailMaxValue,
		},
		"inner values paid from the tx value are not counted twice": {
			g: Guardrails{TxMaxValueETH: "1", TxOverheadBudget: map[string]Amount{"base": "1"}},
			f: editFacts(call(addrRouter, nativeTo(addrFriend, weiOf(t, "0.5"), "", 1), nativeTo(addrFriend, weiOf(t, "0.4"), "", 1)),
				func(f *TxFacts) { f.Value = weiOf(t, "0.9") }),
		},

		// Deep tx_conditions.
		"deny matches an inner call": {
			rules: []TxRule{txRuleOf(EffectDeny, 0, TxConditions{FunctionNameIn: []string{"approve"}})},
			f:     call(addrRouter, approveOf(addrToken, addrFriend, big.NewInt(1), 1)), wantDeny: GuardrailConditions,
		},
		"deny matches an inner target": {
			rules: []TxRule{txRuleOf(EffectDeny, 0, TxConditions{ToAddressIn: []string{addrToken2}})},
			f:     call(addrRouter, transferOf(addrToken, addrFriend, 1, 1), transferOf(addrToken2, addrFriend, 1, 1)), wantDeny: GuardrailConditions,
		},
		"deny matches an inner amount": {
			rules: []TxRule{txRuleOf(EffectDeny, 0, TxConditions{ERC20AmountAbove: big.NewInt(100)})},
			f:     call(addrRouter, transferOf(addrToken, addrFriend, 1, 1), transferOf(addrToken, addrFriend, 101, 1)), wantDeny: GuardrailConditions,
		},
		"allow must cover the inner calls": {
			rules: []TxRule{allowNames("multicall")},
			f:     call(addrRouter, transferOf(addrToken, addrFriend, 1, 1)), wantDeny: GuardrailConditions,
		},
		"allow covering every call": {
			rules: []TxRule{allowNames("multicall", "transfer")},
			f:     call(addrRouter, transferOf(addrToken, addrFriend, 1, 1)),
		},
		"delegate_in deny any": {
			g:     Guardrails{TxDelegationAllowlist: []string{addrImpl, addrAttacker}},
			rules: []TxRule{txRuleOf(EffectDeny, 0, TxConditions{DelegateIn: []string{"0x00000000000000000000000000000000000000EE"}})},
			f:     editFacts(sendETH(t), func(f *TxFacts) { f.Delegations = []string{addrImpl, addrAttacker} }), wantDeny: GuardrailConditions,
		},
		"delegate_in allow needs every delegate": {
			g:     Guardrails{TxDelegationAllowlist: []string{addrImpl, addrAttacker}},
			rules: []TxRule{txRuleOf(EffectAllow, 0, TxConditions{DelegateIn: []string{addrImpl}})},
			f:     editFacts(sendETH(t), func(f *TxFacts) { f.Delegations = []string{addrImpl, addrAttacker} }), wantDeny: GuardrailConditions,
		},
		"delegate_in allow every delegate listed": {
			g:     Guardrails{TxDelegationAllowlist: []string{addrImpl}},
			rules: []TxRule{txRuleOf(EffectAllow, 0, TxConditions{DelegateIn: []string{addrImpl}})},
			f:     editFacts(sendETH(t), func(f *TxFacts) { f.Delegations = []string{addrImpl} }),
		},
		"delegate_in never matches without delegations": {
			rules: []TxRule{txRuleOf(EffectDeny, 0, TxConditions{DelegateIn: []string{addrImpl}})},
			f:     sendETH(t),
		},

		// Order: the more specific problem first.
		"privileged before approvals": {
			f:        call(addrRouter, approveOf(addrToken, addrAttacker, maxUint256, 1), privileged("enableModule", "0x610b5925", addrSafe, addrAttacker, 1)),
			wantDeny: GuardrailPrivilegedCall,
		},
		"approvals before recipients": {
			g:        Guardrails{TxToAllowlist: []string{addrFriend}},
			f:        call(addrRouter, approveOf(addrToken, addrAttacker, maxUint256, 1)),
			wantDeny: GuardrailApprovalAllowlist,
		},
		"budget before max value": {
			g: Guardrails{TxMaxValueETH: "0", TxOverheadBudget: map[string]Amount{"base": "0"}},
			f: withFee(sendETH(t), 21_000, 1), wantDeny: GuardrailOverheadBudget,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			d := EvaluateTx(tc.g, tc.rules, tc.f, tc.c, txNow)
			require.Equal(t, tc.wantDeny == "", d.Allowed, "decision %+v", d)
			require.Equal(t, tc.wantDeny, d.Guardrail)
			if !d.Allowed {
				require.NotEmpty(t, d.Detail)
			}
		})
	}
}

func TestOverheadBudget(t *testing.T) {
	g := Guardrails{TxOverheadBudget: map[string]Amount{"Base": "0.02", "ethereum": "0.1"},
		PerChainGuardrails: perChain("base", ChainGuardrails{OverheadBudget: "0.01"})}
	require.Equal(t, weiOf(t, "0.01"), g.OverheadBudget("base", 18))
	require.Equal(t, weiOf(t, "0.1"), g.OverheadBudget("ethereum", 18))
	require.Nil(t, g.OverheadBudget("solana", 9))
	require.Nil(t, g.OverheadBudget("", 18))
	require.Equal(t, 0, g.OverheadBudget("base", -1).Sign(), "an unconvertible budget allows nothing")
}

func TestTxConditionsDelegateInParse(t *testing.T) {
	c, err := ParseTxConditions([]byte(`{"delegate_in": ["0xAbc"]}`))
	require.NoError(t, err)
	require.Equal(t, []string{"0xAbc"}, c.DelegateIn)
	_, err = ParseTxConditions([]byte(`{"delegate_in": []}`))
	require.ErrorIs(t, err, ErrInvalidTxConditions)
	_, err = ParseTxConditions([]byte(`{"delegate_in": "0xAbc"}`))
	require.ErrorIs(t, err, ErrInvalidTxConditions)
}

// A legacy token call (facts without effects) is judged as its single
// transfer.
func TestTxEffectsLegacyTokenFacts(t *testing.T) {
	f := sendToken(t)
	effects := txEffects(&f)
	require.Len(t, effects, 1)
	require.Equal(t, TxEffectTokenTransfer, effects[0].Kind)
	require.Equal(t, f.TokenRecipient, effects[0].Counterparty)
	require.Nil(t, txEffects(&TxFacts{}))
}

// BenchmarkEvaluateTxManyEffects: the worst request a decoder may report
// (MaxEffects undecoded calls) against many rules stays cheap.
func BenchmarkEvaluateTxManyEffects(b *testing.B) {
	effects := make([]TxEffect, 256)
	for i := range effects {
		effects[i] = unknownCall(addrRouter, "0xdeadbeef", 1)
	}
	f := call(addrRouter, effects...)
	rules := make([]TxRule, 64)
	for i := range rules {
		rules[i] = allowSelectors("0x12345678", "0xdeadbeef", "0xac9650d8")
	}
	b.ResetTimer()
	for range b.N {
		if d := EvaluateTx(Guardrails{}, rules, f, TxCounters{}, txNow); !d.Allowed {
			b.Fatal(d)
		}
	}
}
