package policy

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

func rawFields(t testing.TB, s string) map[string]json.RawMessage {
	t.Helper()
	var m map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(s), &m))
	return m
}

func int64p(v int64) *int64 { return &v }

func TestParseGuardrails(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    Guardrails
		wantErr error
	}{
		"empty": {in: `{}`},
		"numbers": {
			in:   `{"tx_max_value_eth": 1.5, "tx_daily_limit_eth": 10, "tx_max_per_day": 20}`,
			want: Guardrails{TxMaxValueETH: "1.5", TxDailyLimitETH: "10", TxMaxPerDay: int64p(20)},
		},
		"strings": {
			in:   `{"tx_max_value_eth": "0.5", "tx_daily_limit_eth": "2", "tx_max_per_day": "3"}`,
			want: Guardrails{TxMaxValueETH: "0.5", TxDailyLimitETH: "2", TxMaxPerDay: int64p(3)},
		},
		"other keys and nulls ignored": {
			in:   `{"system_prompt": "hi", "cards_enabled": true, "tx_max_value_eth": null, "raw_signing_enabled": true}`,
			want: Guardrails{RawSigningEnabled: true},
		},
		"everything": {
			in: `{"message_signing_enabled": true, "raw_signing_enabled": false,
				"eip712_default_policy": "allow",
				"eip712_domain_allowlist": ["Uniswap", {"name": "Permit2", "chain_id": 1}],
				"signing_chains": ["ethereum"], "tx_allowed_chains": ["base", 8453],
				"tx_to_allowlist": ["0xAbC"], "tx_token_allowlist": ["0xT0"], "tx_known_tokens_only": true,
				"per_chain_guardrails": {"base": {"max_value": "0.1", "daily_limit": 1, "to_allowlist": ["0x1"],
					"token_allowlist": ["0x2"], "max_per_day": 5, "overhead_budget": "0.02"}, "solana": null},
				"tx_approval_allowlist": ["0xSp"], "tx_overhead_budget": {"base": 0.01, "ethereum": "0.5", "solana": null}}`,
			want: Guardrails{
				MessageSigningEnabled: true, EIP712DefaultPolicy: "allow",
				EIP712DomainAllowlist: []EIP712DomainRule{{Match: "Uniswap"}, {Name: "Permit2", ChainID: "1"}},
				SigningChains:         []string{"ethereum"}, TxAllowedChains: []string{"base", "8453"},
				TxToAllowlist: []string{"0xAbC"}, TxTokenAllowlist: []string{"0xT0"}, TxKnownTokensOnly: true,
				PerChainGuardrails: map[string]ChainGuardrails{"base": {MaxValue: "0.1", DailyLimit: "1",
					ToAllowlist: []string{"0x1"}, TokenAllowlist: []string{"0x2"}, MaxPerDay: int64p(5), OverheadBudget: "0.02"}},
				TxApprovalAllowlist: []string{"0xSp"},
				TxOverheadBudget:    map[string]Amount{"base": "0.01", "ethereum": "0.5"},
			},
		},
		"fail bool as string":         {in: `{"message_signing_enabled": "yes"}`, wantErr: ErrInvalidGuardrail},
		"fail eip712 policy":          {in: `{"eip712_default_policy": "maybe"}`, wantErr: ErrInvalidGuardrail},
		"fail value as bool":          {in: `{"tx_max_value_eth": true}`, wantErr: ErrInvalidGuardrail},
		"fail value negative":         {in: `{"tx_daily_limit_eth": "-1"}`, wantErr: ErrInvalidAmount},
		"fail count fraction":         {in: `{"tx_max_per_day": 1.5}`, wantErr: ErrInvalidGuardrail},
		"fail count negative":         {in: `{"tx_max_per_day": -1}`, wantErr: ErrInvalidGuardrail},
		"fail count overflow":         {in: `{"tx_max_per_day": 9223372036854775808}`, wantErr: ErrInvalidGuardrail},
		"fail allowlist not strings":  {in: `{"tx_to_allowlist": [1, 2]}`, wantErr: ErrInvalidGuardrail},
		"fail allowlist empty entry":  {in: `{"tx_token_allowlist": [""]}`, wantErr: ErrInvalidGuardrail},
		"fail chains object":          {in: `{"tx_allowed_chains": {"a": 1}}`, wantErr: ErrInvalidGuardrail},
		"fail chain id zero":          {in: `{"signing_chains": [0]}`, wantErr: ErrInvalidGuardrail},
		"fail per chain not object":   {in: `{"per_chain_guardrails": ["base"]}`, wantErr: ErrInvalidGuardrail},
		"fail per chain entry scalar": {in: `{"per_chain_guardrails": {"base": 1}}`, wantErr: ErrInvalidGuardrail},
		"fail per chain bad value":    {in: `{"per_chain_guardrails": {"base": {"max_value": "x"}}}`, wantErr: ErrInvalidGuardrail},
		"fail per chain empty name":   {in: `{"per_chain_guardrails": {"": {}}}`, wantErr: ErrInvalidGuardrail},
		"fail per chain budget":       {in: `{"per_chain_guardrails": {"base": {"overhead_budget": {"x": 1}}}}`, wantErr: ErrInvalidGuardrail},
		"fail budget not object":      {in: `{"tx_overhead_budget": "1"}`, wantErr: ErrInvalidGuardrail},
		"fail budget bad amount":      {in: `{"tx_overhead_budget": {"base": "-1"}}`, wantErr: ErrInvalidGuardrail},
		"fail budget empty chain":     {in: `{"tx_overhead_budget": {" ": 1}}`, wantErr: ErrInvalidGuardrail},
		"fail approval list":          {in: `{"tx_approval_allowlist": "0x1"}`, wantErr: ErrInvalidGuardrail},
		// A misspelt domain key would otherwise widen the entry to every domain.
		"fail domain unknown key": {in: `{"eip712_domain_allowlist": [{"nmae": "x"}]}`, wantErr: ErrInvalidGuardrail},
		"fail domain empty obj":   {in: `{"eip712_domain_allowlist": [{}]}`, wantErr: ErrInvalidGuardrail},
		"fail domain empty str":   {in: `{"eip712_domain_allowlist": [""]}`, wantErr: ErrInvalidGuardrail},
		"fail domain chain id":    {in: `{"eip712_domain_allowlist": [{"chain_id": "one"}]}`, wantErr: ErrInvalidGuardrail},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := ParseGuardrails(rawFields(t, tc.in))
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, got)
			}
		})
	}
}

func TestParseGuardrailsNamesField(t *testing.T) {
	_, err := ParseGuardrails(rawFields(t, `{"per_chain_guardrails": {"base": {"max_per_day": "x"}}}`))
	require.ErrorIs(t, err, ErrInvalidGuardrail)
	require.Contains(t, err.Error(), "per_chain_guardrails: base: max_per_day")
}

func TestGuardrailsEncodeRoundTrip(t *testing.T) {
	g, err := ParseGuardrails(rawFields(t, `{"message_signing_enabled": true, "eip712_default_policy": "deny",
		"eip712_domain_allowlist": ["0xC0FFEE", {"name": "N", "version": "1", "chain_id": "0x1", "verifying_contract": "0xV"}],
		"tx_allowed_chains": [1, "base"], "tx_max_value_eth": 1e-3, "tx_max_per_day": 0,
		"per_chain_guardrails": {"base": {"daily_limit": "2", "max_per_day": 1}}}`))
	require.NoError(t, err)
	b, err := EncodeGuardrails(g)
	require.NoError(t, err)
	back, err := DecodeGuardrails(b)
	require.NoError(t, err)
	require.Equal(t, g, back)
	var viaJSON Guardrails
	require.NoError(t, json.Unmarshal(b, &viaJSON))
	require.Equal(t, g, viaJSON)
}

func TestDecodeGuardrailsNotObject(t *testing.T) {
	_, err := DecodeGuardrails([]byte(`[1]`))
	require.ErrorIs(t, err, ErrInvalidGuardrail)
}

func TestDailyLimits(t *testing.T) {
	tests := map[string]struct {
		g            Guardrails
		chain        string
		wantAll      int64
		wantChain    int64
		wantDailyWei string // "" for none
	}{
		"none": {chain: "base", wantAll: -1, wantChain: -1},
		"global only": {
			g:     Guardrails{TxMaxPerDay: int64p(10), TxDailyLimitETH: "2"},
			chain: "base", wantAll: 10, wantChain: -1, wantDailyWei: "2000000000000000000",
		},
		"per chain stricter": {
			g: Guardrails{TxMaxPerDay: int64p(10), TxDailyLimitETH: "2",
				PerChainGuardrails: map[string]ChainGuardrails{"Base": {MaxPerDay: int64p(3), DailyLimit: "0.5"}}},
			chain: "base", wantAll: 10, wantChain: 3, wantDailyWei: "500000000000000000",
		},
		"global stricter": {
			g: Guardrails{TxDailyLimitETH: "0.1",
				PerChainGuardrails: map[string]ChainGuardrails{"base": {DailyLimit: "5"}}},
			chain: "base", wantAll: -1, wantChain: -1, wantDailyWei: "100000000000000000",
		},
		"other chain's override ignored": {
			g:     Guardrails{PerChainGuardrails: map[string]ChainGuardrails{"base": {DailyLimit: "5", MaxPerDay: int64p(1)}}},
			chain: "ethereum", wantAll: -1, wantChain: -1,
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			all, perChain, daily := tc.g.DailyLimits(tc.chain, 18)
			require.Equal(t, tc.wantAll, all)
			require.Equal(t, tc.wantChain, perChain)
			if tc.wantDailyWei == "" {
				require.Nil(t, daily)
			} else {
				require.Equal(t, tc.wantDailyWei, daily.String())
			}
		})
	}
}

func TestDailyLimitsBadDecimalsAllowsNothing(t *testing.T) {
	_, _, daily := Guardrails{TxDailyLimitETH: "1"}.DailyLimits("base", -1)
	require.NotNil(t, daily)
	require.Zero(t, daily.Sign())
}
