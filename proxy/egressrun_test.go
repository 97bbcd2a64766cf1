package proxy

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/egress"
	"github.com/opencustody/ocv/internal/testbuild"
)

// TestTestOnlySettingsRefusedInProductionBuilds runs in the ordinary
// (non-ocvtest) build: every TEST ONLY setting is a startup error there,
// naming the variable.
func TestTestOnlySettingsRefusedInProductionBuilds(t *testing.T) {
	require.False(t, testbuild.Enabled, "unit tests run without -tags ocvtest")
	for _, kv := range []string{
		"OCV_EGRESS_TEST_ALLOW_LOOPBACK=true", "OCV_WEBHOOKS_ALLOW_LOOPBACK=true", "OCV_WEBHOOKS_TEST_HOSTS=a.example.com=127.0.0.1",
		"OCV_WEBHOOKS_RETRY_BASE=100ms", "OCV_WEBHOOKS_RETRY_MAX=3", "OCV_WEBHOOKS_POLL_INTERVAL=200ms", "OCV_WEBHOOKS_LEASE=15s",
		"OCV_TEST_CRASH_AFTER_COMMIT=PUT /v1/x", "OCV_TEST_CRASH_BEFORE_COMMIT=PUT /v1/x",
	} {
		key, val, _ := strings.Cut(kv, "=")
		t.Run(key, func(t *testing.T) {
			c := DefaultConfig()
			require.NoError(t, c.applyEnv(func(k string) (string, bool) {
				if k == key {
					return val, true
				}
				return "", false
			}))
			errs := c.validateTestOnly(testbuild.Enabled)
			require.Len(t, errs, 1)
			require.Contains(t, errs[0].Error(), key)
			require.Empty(t, c.validateTestOnly(true), "a test build honours it")
		})
	}
	c := DefaultConfig()
	require.Empty(t, c.validateTestOnly(false), "the defaults hold no test-only setting")
	require.Len(t, testOnlySettings, 9)
}

func TestEgressSettings(t *testing.T) {
	c := DefaultConfig()
	env := map[string]string{"OCV_EGRESS_ALLOW": "rpc.internal.example:8545,10.0.0.0/8:8545", "OCV_EGRESS_TEST_ALLOW_LOOPBACK": "true"}
	require.NoError(t, c.applyEnv(func(k string) (string, bool) { v, ok := env[k]; return v, ok }))
	require.Empty(t, c.validateEgress())
	p := c.Egress()
	require.NoError(t, p.CheckURL("http://10.1.2.3:8545/"))
	require.NoError(t, p.CheckURL("https://rpc.internal.example:8545/"))
	require.False(t, p.AllowsLoopback(), "the loopback allowance is honoured only in test builds")
	require.ErrorIs(t, p.CheckURL("http://127.0.0.1:8545/"), egress.ErrForbiddenAddress)

	bad := DefaultConfig()
	bad.EgressAllow = []string{"no-port"}
	require.NotEmpty(t, bad.validateEgress())

	smtp := DefaultConfig()
	smtp.SMTPAddr, smtp.SMTPFrom = "127.0.0.1:25", "ocv@example.com"
	require.NotEmpty(t, smtp.validateEgress(), "a loopback relay needs an allowlist entry")
	smtp.EgressAllow = []string{"127.0.0.1/32:25"}
	require.Empty(t, smtp.validateEgress())
	smtp.SMTPAddr = "smtp.example.com:587"
	require.Empty(t, smtp.validateEgress(), "the relay's own port is admitted")
}

// TestLoadConfigRefusesTestOnlySettings: the startup path itself (file,
// environment, Validate) names the variable in a production build.
func TestLoadConfigRefusesTestOnlySettings(t *testing.T) {
	for _, s := range testOnlySettings {
		t.Setenv(s.env, "")
	}
	t.Setenv("OCV_EGRESS_TEST_ALLOW_LOOPBACK", "true")
	t.Setenv("OCV_WEBHOOKS_RETRY_MAX", "3")
	_, err := LoadConfig("")
	require.Error(t, err)
	require.Contains(t, err.Error(), "OCV_EGRESS_TEST_ALLOW_LOOPBACK")
	require.Contains(t, err.Error(), "OCV_WEBHOOKS_RETRY_MAX")
	require.Contains(t, err.Error(), "TEST ONLY")
}
