package policy

import (
	"encoding/json"
	"math/big"
	"testing"
)

func FuzzParseNativeAmount(f *testing.F) {
	for _, s := range []string{"1.5", "0", "1e-3", "2.5E+2", "-1", "1e999", "0.000000000000000001", ".", "1e"} {
		f.Add(s, 18)
	}
	f.Fuzz(func(t *testing.T, s string, decimals int) {
		v, err := ParseNativeAmount(s, decimals%300)
		if err != nil {
			return
		}
		if v.Sign() < 0 {
			t.Fatalf("negative result %v for %q", v, s)
		}
		text := FormatNativeAmount(v, decimals%300)
		if len(text) > maxAmountChars {
			return // valid, but longer than an amount may be written
		}
		back, err := ParseNativeAmount(text, decimals%300)
		if err != nil || back.Cmp(v) != 0 {
			t.Fatalf("round trip of %q: %v, %v", s, back, err)
		}
	})
}

func FuzzDecodeGuardrails(f *testing.F) {
	for _, s := range []string{
		`{}`, `{"tx_max_value_eth": "1.5", "tx_max_per_day": 3}`,
		`{"eip712_domain_allowlist": ["x", {"chain_id": 1}]}`,
		`{"per_chain_guardrails": {"base": {"max_value": 1, "to_allowlist": ["a"], "overhead_budget": "0.1"}}}`,
		`{"tx_approval_allowlist": ["0xa"], "tx_overhead_budget": {"base": 0.01}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := DecodeGuardrails(b)
		if err != nil {
			return
		}
		enc, err := EncodeGuardrails(g)
		if err != nil {
			t.Fatalf("encoding: %v", err)
		}
		if _, err := DecodeGuardrails(enc); err != nil {
			t.Fatalf("decoding the canonical form %s: %v", enc, err)
		}
		EvaluateTx(g, nil, TxFacts{IntentType: IntentTransaction, Chain: "base", Decimals: 18}, TxCounters{}, txNow)
	})
}

func FuzzParseTxConditions(f *testing.F) {
	f.Add([]byte(`{"chain_in": ["base", 1], "value_above": "5"}`))
	f.Add([]byte(`{"program_id_in": ["A"], "decode_failed": true}`))
	f.Add([]byte(`{"delegate_in": ["0xA"], "function_selector_in": ["0xdeadbeef"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseTxConditions(json.RawMessage(b))
		if err != nil {
			return
		}
		rules := []TxRule{{Effect: EffectAllow, Conditions: c}, {Effect: EffectDeny, Conditions: c}}
		EvaluateTx(Guardrails{}, rules, TxFacts{IntentType: IntentTransaction, Chain: "base", Decimals: 18}, TxCounters{}, txNow)
	})
}

// FuzzEvaluateTxEffects: whatever effects a decoder reports, EvaluateTx
// decides without panicking, and an unlimited grant to a grantee not on
// tx_approval_allowlist is never allowed.
func FuzzEvaluateTxEffects(f *testing.F) {
	f.Add(uint8(2), "0xbb", []byte{0xff}, true, false, uint8(1), "0x095ea7b3", int64(5))
	f.Add(uint8(4), "", []byte{}, false, true, uint8(0), "", int64(-1))
	f.Fuzz(func(t *testing.T, kind uint8, party string, amount []byte, unlimited, failed bool, depth uint8, selector string, fee int64) {
		kinds := []string{TxEffectNativeTransfer, TxEffectTokenTransfer, TxEffectApprove, TxEffectApprovalForAll,
			TxEffectPrivileged, TxEffectCall, "other"}
		if len(amount) > 64 {
			amount = amount[:64]
		}
		e := TxEffect{Kind: kinds[int(kind)%len(kinds)], Counterparty: party, Amount: new(big.Int).SetBytes(amount),
			Unlimited: unlimited, Approved: unlimited, DecodeFailed: failed, Depth: int(depth % 6), Selector: selector, Token: party}
		facts := TxFacts{IntentType: IntentTransaction, Chain: "base", ChainID: 8453, Decimals: 18, To: party,
			Effects: []TxEffect{e, e}, MaxFee: big.NewInt(fee)}
		g := Guardrails{TxApprovalAllowlist: []string{"0xaa"}, TxMaxValueETH: "1"}
		rules := []TxRule{{Effect: EffectAllow, Conditions: TxConditions{FunctionSelectorIn: []string{"0xdeadbeef"}}}}
		for _, intent := range []string{IntentTransaction, IntentTypedData} {
			facts.IntentType = intent
			d := EvaluateTx(g, rules, facts, TxCounters{}, txNow)
			if d.Allowed && unlimitedGrant(&e) && !inAddressList(g.TxApprovalAllowlist, e.Counterparty) {
				t.Fatalf("an unlimited grant to %q was allowed", party)
			}
		}
	})
}
