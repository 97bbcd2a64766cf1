package policy

import (
	"encoding/json"
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
		`{"per_chain_guardrails": {"base": {"max_value": 1, "to_allowlist": ["a"]}}}`,
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
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ParseTxConditions(json.RawMessage(b))
		if err != nil {
			return
		}
		rules := []TxRule{{Effect: EffectAllow, Conditions: c}, {Effect: EffectDeny, Conditions: c}}
		EvaluateTx(Guardrails{}, rules, TxFacts{IntentType: IntentTransaction, Chain: "base", Decimals: 18}, TxCounters{}, txNow)
	})
}
