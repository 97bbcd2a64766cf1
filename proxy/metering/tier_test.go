package metering_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/metering"
)

func TestParseTier(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    metering.Tier
		wantErr error
	}{
		"free":          {in: "free", want: metering.TierFree},
		"mixed case":    {in: " Business ", want: metering.TierBusiness},
		"enterprise":    {in: "enterprise", want: metering.TierEnterprise},
		"fail unknown":  {in: "platinum", wantErr: metering.ErrUnknownTier},
		"fail empty":    {in: "", wantErr: metering.ErrUnknownTier},
		"fail sneaky":   {in: "free\x00", wantErr: metering.ErrUnknownTier},
		"team":          {in: "team", want: metering.TierTeam},
		"pro uppercase": {in: "PRO", want: metering.TierPro},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := metering.ParseTier(tc.in)
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestDefaultTiers(t *testing.T) {
	ts := metering.DefaultTiers()
	require.NoError(t, ts.Validate())
	require.EqualValues(t, 1_000, ts.For(metering.TierFree).Requests, "spec: Free 1,000 calls a month")
	require.EqualValues(t, 1_000_000, ts.For(metering.TierBusiness).Requests, "spec: Business 1,000,000")
	require.EqualValues(t, 10, ts.For(metering.TierFree).Wallets, "spec: Free 10 wallets")
	require.Equal(t, metering.Unlimited, ts.For(metering.TierEnterprise).Requests)
	require.Equal(t, ts.For(metering.TierFree), ts.For("gold"), "an unknown tier gets the smallest limits")
}

func TestTiersApplyEnv(t *testing.T) {
	tests := map[string]struct {
		env     map[string]string
		check   func(t *testing.T, ts metering.Tiers)
		wantErr error
	}{
		"pro requests": {env: map[string]string{"OCV_TIER_PRO_REQUESTS": "200000"},
			check: func(t *testing.T, ts metering.Tiers) { require.EqualValues(t, 200000, ts[metering.TierPro].Requests) }},
		"team unlimited vaults": {env: map[string]string{"OCV_TIER_TEAM_VAULTS": "unlimited"},
			check: func(t *testing.T, ts metering.Tiers) {
				require.Equal(t, metering.Unlimited, ts[metering.TierTeam].Vaults)
			}},
		"fail not a number":  {env: map[string]string{"OCV_TIER_FREE_AGENTS": "many"}, wantErr: metering.ErrInvalidConfig},
		"fail below minus 1": {env: map[string]string{"OCV_TIER_FREE_SECRETS": "-2"}, wantErr: metering.ErrInvalidConfig},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ts := metering.DefaultTiers()
			err := ts.ApplyEnv(func(k string) string { return tc.env[k] })
			require.ErrorIs(t, err, tc.wantErr)
			if tc.check != nil {
				tc.check(t, ts)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	env := map[string]string{
		"OCV_METERING_LEASE_BLOCK": "20", "OCV_METERING_LEASE_MAX_AGE": "10s", "OCV_CREDIT_CENTS_PER_REQUEST": "2",
		"OCV_X402_PAY_TO": "0x209693Bc6afc0C5328bA36FaF03C514EF312287C", "OCV_X402_FACILITATOR_URL": "https://f.test",
		"OCV_X402_NETWORK": "base-sepolia", "OCV_X402_PRICE_ATOMIC": "5000", "OCV_TIER_PRO_REQUESTS": "7",
	}
	var c metering.Config
	require.NoError(t, c.ApplyEnv(func(k string) string { return env[k] }))
	c = c.WithDefaults()
	require.NoError(t, c.Validate())
	require.EqualValues(t, 20, c.LeaseBlock)
	require.EqualValues(t, 2, c.CreditCentsPerRequest)
	require.EqualValues(t, 7, c.Tiers[metering.TierPro].Requests)
	require.Equal(t, "0x036CbD53842c5426634e7929541eC2318f3dCF7e", c.Payment.Asset)

	bad := map[string]struct {
		env     map[string]string
		wantErr error
	}{
		"fail duration":       {env: map[string]string{"OCV_METERING_LEASE_MAX_AGE": "soon"}, wantErr: metering.ErrInvalidConfig},
		"fail block":          {env: map[string]string{"OCV_METERING_LEASE_BLOCK": "x"}, wantErr: metering.ErrInvalidConfig},
		"fail network":        {env: map[string]string{"OCV_X402_NETWORK": "ethereum"}, wantErr: metering.ErrInvalidConfig},
		"fail negative block": {env: map[string]string{"OCV_METERING_LEASE_BLOCK": "-3"}, wantErr: metering.ErrInvalidConfig},
	}
	for name, tc := range bad {
		t.Run(name, func(t *testing.T) {
			var c metering.Config
			err := c.ApplyEnv(func(k string) string { return tc.env[k] })
			if err == nil {
				err = c.WithDefaults().Validate()
			}
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}
