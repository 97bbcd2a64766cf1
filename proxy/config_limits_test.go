package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/metering"
)

func TestLimitsEnv(t *testing.T) {
	tests := map[string]struct {
		env       map[string]string
		wantIP    float64
		wantBurst int
		wantFree  int64
		wantErrs  int
		wantValid bool
	}{
		"defaults":         {env: map[string]string{}, wantIP: 10000, wantBurst: 20000, wantFree: 1000, wantValid: true},
		"overrides":        {env: map[string]string{"OCV_RATE_LIMIT_IP_RATE": "0.5", "OCV_RATE_LIMIT_IP_BURST": "3", "OCV_TIER_FREE_REQUESTS": "unlimited"}, wantIP: 0.5, wantBurst: 3, wantFree: metering.Unlimited, wantValid: true},
		"bad rate":         {env: map[string]string{"OCV_RATE_LIMIT_IP_RATE": "fast"}, wantBurst: 20000, wantFree: 1000, wantErrs: 1, wantValid: true},
		"bad tier value":   {env: map[string]string{"OCV_TIER_FREE_REQUESTS": "lots"}, wantIP: 10000, wantBurst: 20000, wantFree: 1000, wantErrs: 1, wantValid: true},
		"negative burst":   {env: map[string]string{"OCV_RATE_LIMIT_IP_BURST": "-1"}, wantIP: 10000, wantBurst: -1, wantFree: 1000, wantValid: false},
		"pay_to, no facil": {env: map[string]string{"OCV_X402_PAY_TO": "0x1111111111111111111111111111111111111111"}, wantIP: 10000, wantBurst: 20000, wantFree: 1000, wantValid: false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := DefaultConfig()
			errs := c.applyLimitsEnv(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			require.Len(t, errs, tc.wantErrs)
			require.Equal(t, tc.wantIP, c.RateLimit.IPRate)
			require.Equal(t, tc.wantBurst, c.RateLimit.IPBurst)
			require.Equal(t, tc.wantFree, c.Metering.Tiers.For(metering.TierFree).Requests)
			require.Equal(t, tc.wantValid, len(c.validateLimits()) == 0)
		})
	}
}
