package x402_test

import (
	"encoding/json"
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/metering/x402"
)

func TestPaymentRequiredBody(t *testing.T) {
	cfg := testConfig()
	rec := httptest.NewRecorder()
	cfg.PaymentRequired("https://api.test/v1/vaults?x=1", "quota used up", errors.Join(x402.ErrExpired)).Write(rec)
	require.Equal(t, 402, rec.Code)
	require.Equal(t, "application/problem+json", rec.Header().Get("Content-Type"))
	require.JSONEq(t, `{
		"type": "payment_required", "title": "Payment Required", "status": 402, "detail": "quota used up",
		"x402Version": 1, "error": "invalid_exact_evm_payload_authorization_valid_before",
		"accepts": [{
			"scheme": "exact", "network": "base", "maxAmountRequired": "10000",
			"resource": "https://api.test/v1/vaults?x=1", "description": "OCV API request",
			"mimeType": "application/json", "payTo": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C",
			"maxTimeoutSeconds": 60, "asset": "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
			"extra": {"name": "USD Coin", "version": "2"}
		}]}`, rec.Body.String())

	disabled := x402.PaymentConfig{}.WithDefaults().PaymentRequired("https://api.test/", "d", nil)
	raw, err := json.Marshal(disabled)
	require.NoError(t, err)
	require.JSONEq(t, `{"type":"payment_required","title":"Payment Required","status":402,"detail":"d",
		"x402Version":1,"accepts":[]}`, string(raw), "without a payee accepts is empty, not null")
}

func TestDiscovery(t *testing.T) {
	raw, err := json.Marshal(testConfig().Discovery("https://api.test/v1"))
	require.NoError(t, err)
	var d map[string]any
	require.NoError(t, json.Unmarshal(raw, &d))
	require.Equal(t, true, d["enabled"])
	require.EqualValues(t, 8453, d["chainId"])
	require.Equal(t, "X-PAYMENT", d["paymentHeader"])
	require.Equal(t, "https://facilitator.test", d["facilitator"])
	require.Len(t, d["accepts"], 1)

	sep := x402.PaymentConfig{Network: "base-sepolia"}.WithDefaults()
	require.EqualValues(t, 84532, sep.ChainID())
	require.Equal(t, x402.USDCBaseSepolia, sep.Asset)
	require.False(t, sep.Discovery("https://api.test/v1").Enabled)
}

func TestReason(t *testing.T) {
	tests := map[string]struct {
		err  error
		want string
	}{
		"nil":      {err: nil, want: ""},
		"reused":   {err: x402.ErrNonceReused, want: "invalid_exact_evm_payload_nonce_used"},
		"settle":   {err: x402.ErrSettlement, want: "settlement_failed"},
		"other":    {err: errors.New("x"), want: "unexpected_error"},
		"disabled": {err: x402.ErrDisabled, want: "payments_disabled"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) { require.Equal(t, tc.want, x402.Reason(tc.err)) })
	}
}
