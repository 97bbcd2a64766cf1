package policy

import (
	"encoding/json"
	"math/big"
	"testing"

	"github.com/stretchr/testify/require"
)

func boolp(v bool) *bool { return &v }

func TestParseTxConditions(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    TxConditions
		wantErr error
	}{
		"null":         {in: `null`},
		"empty object": {in: `{}`},
		// An unknown key is refused even when null: it is most likely a
		// misspelt condition that the author meant to hold.
		"fail unknown key null": {in: `{"value_abov": null}`, wantErr: ErrInvalidTxConditions},
		"parsed": {
			in: `{"function_name_in": null, "function_selector_in": ["0xA9059CBB"],
				"erc20_amount_above": "1000", "value_above": 5, "to_address_in": ["0xabc"],
				"chain_in": ["base", 1], "intent_type_in": ["transaction", "digest"],
				"decode_failed": false, "program_id_in": ["Prog1"]}`,
			want: TxConditions{
				FunctionSelectorIn: []string{"0xA9059CBB"}, ERC20AmountAbove: big.NewInt(1000),
				ValueAboveGwei: big.NewInt(5), ToAddressIn: []string{"0xabc"}, ChainIn: []string{"base", "1"},
				IntentTypeIn: []string{"transaction", "digest"}, DecodeFailed: boolp(false), ProgramIDIn: []string{"Prog1"},
			},
		},
		"value exponent":         {in: `{"value_above": "1e9"}`, want: TxConditions{ValueAboveGwei: big.NewInt(1e9)}},
		"fail not object":        {in: `[1]`, wantErr: ErrInvalidTxConditions},
		"fail unknown key":       {in: `{"always": true}`, wantErr: ErrInvalidTxConditions},
		"fail bad selector":      {in: `{"function_selector_in": ["a9059cbb"]}`, wantErr: ErrInvalidTxConditions},
		"fail short selector":    {in: `{"function_selector_in": ["0xa9059c"]}`, wantErr: ErrInvalidTxConditions},
		"fail unknown intent":    {in: `{"intent_type_in": ["wire"]}`, wantErr: ErrInvalidTxConditions},
		"fail fractional amount": {in: `{"erc20_amount_above": "1.5"}`, wantErr: ErrInvalidTxConditions},
		"fail negative value":    {in: `{"value_above": -1}`, wantErr: ErrInvalidTxConditions},
		"fail decode not bool":   {in: `{"decode_failed": "yes"}`, wantErr: ErrInvalidTxConditions},
		// An empty list would silently make the rule match nothing (or,
		// read as absent, everything): refuse it.
		"fail empty list":       {in: `{"to_address_in": []}`, wantErr: ErrInvalidTxConditions},
		"fail empty chain list": {in: `{"chain_in": []}`, wantErr: ErrInvalidTxConditions},
		"fail list of numbers":  {in: `{"program_id_in": [1]}`, wantErr: ErrInvalidTxConditions},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseTxConditions(json.RawMessage(tc.in))
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, got)
			}
		})
	}
}

func TestTxConditionsEval(t *testing.T) {
	transfer := TxFacts{
		IntentType: IntentTransaction, Chain: "ethereum", ChainID: 1, Decimals: 18,
		To: "0xTOKEN", Value: big.NewInt(2_000_000_000), FunctionSelector: "0xa9059cbb", FunctionName: "transfer",
		Token: "0xTOKEN", TokenRecipient: "0xBob", TokenAmount: big.NewInt(500),
	}
	solana := TxFacts{IntentType: IntentTransaction, Chain: "solana", Decimals: 9, ProgramIDs: []string{"A", "B"}}
	tests := map[string]struct {
		c      TxConditions
		f      TxFacts
		effect Effect
		want   truth
	}{
		"empty holds":             {f: transfer, want: truthHolds},
		"function name holds":     {c: TxConditions{FunctionNameIn: []string{"transfer"}}, f: transfer, want: truthHolds},
		"function name fails":     {c: TxConditions{FunctionNameIn: []string{"approve"}}, f: transfer, want: truthFails},
		"function name is exact":  {c: TxConditions{FunctionNameIn: []string{"Transfer"}}, f: transfer, want: truthFails},
		"selector any case":       {c: TxConditions{FunctionSelectorIn: []string{"0xA9059CBB"}}, f: transfer, want: truthHolds},
		"selector fails":          {c: TxConditions{FunctionSelectorIn: []string{"0x095ea7b3"}}, f: transfer, want: truthFails},
		"erc20 above holds":       {c: TxConditions{ERC20AmountAbove: big.NewInt(499)}, f: transfer, want: truthHolds},
		"erc20 equal fails":       {c: TxConditions{ERC20AmountAbove: big.NewInt(500)}, f: transfer, want: truthFails},
		"erc20 without amount":    {c: TxConditions{ERC20AmountAbove: big.NewInt(0)}, f: solana, want: truthFails},
		"value above gwei holds":  {c: TxConditions{ValueAboveGwei: big.NewInt(1)}, f: transfer, want: truthHolds},
		"value equal gwei fails":  {c: TxConditions{ValueAboveGwei: big.NewInt(2)}, f: transfer, want: truthFails},
		"value nil is zero":       {c: TxConditions{ValueAboveGwei: big.NewInt(0)}, f: solana, want: truthFails},
		"value bad decimals":      {c: TxConditions{ValueAboveGwei: big.NewInt(0)}, f: TxFacts{Decimals: -1}, want: truthUnknown},
		"to any case":             {c: TxConditions{ToAddressIn: []string{"0xtoken"}}, f: transfer, want: truthHolds},
		"to is not the recipient": {c: TxConditions{ToAddressIn: []string{"0xBob"}}, f: transfer, want: truthFails},
		"chain by name":           {c: TxConditions{ChainIn: []string{"Ethereum"}}, f: transfer, want: truthHolds},
		"chain by id":             {c: TxConditions{ChainIn: []string{"1"}}, f: transfer, want: truthHolds},
		"chain fails":             {c: TxConditions{ChainIn: []string{"base", "8453"}}, f: transfer, want: truthFails},
		"intent holds":            {c: TxConditions{IntentTypeIn: []string{"transaction"}}, f: transfer, want: truthHolds},
		"intent fails":            {c: TxConditions{IntentTypeIn: []string{"typed_data"}}, f: transfer, want: truthFails},
		"decode failed false":     {c: TxConditions{DecodeFailed: boolp(false)}, f: transfer, want: truthHolds},
		"decode failed true":      {c: TxConditions{DecodeFailed: boolp(true)}, f: transfer, want: truthFails},
		"programs without ids":    {c: TxConditions{ProgramIDIn: []string{"A"}}, f: transfer, effect: EffectDeny, want: truthFails},
		"programs deny any":       {c: TxConditions{ProgramIDIn: []string{"B"}}, f: solana, effect: EffectDeny, want: truthHolds},
		// An allow must not admit program B riding along with listed A.
		"programs allow needs all":  {c: TxConditions{ProgramIDIn: []string{"A"}}, f: solana, effect: EffectAllow, want: truthFails},
		"programs allow all listed": {c: TxConditions{ProgramIDIn: []string{"B", "A"}}, f: solana, effect: EffectAllow, want: truthHolds},
		"and of fields": {
			c: TxConditions{FunctionNameIn: []string{"transfer"}, ChainIn: []string{"base"}}, f: transfer, want: truthFails,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			intent, _ := normalizeIntent(tc.f.IntentType)
			effect := tc.effect
			if effect == "" {
				effect = EffectAllow
			}
			require.Equal(t, tc.want, tc.c.eval(&tc.f, intent, effect))
		})
	}
}
