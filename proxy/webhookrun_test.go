package proxy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/testbuild"
)

func TestWebhookSettings(t *testing.T) {
	tests := map[string]struct {
		env       map[string]string
		want      Config
		wantEnv   bool // an environment parse error
		wantValid bool
	}{
		"defaults": {env: map[string]string{}, wantValid: true},
		"test settings": {env: map[string]string{"OCV_WEBHOOKS_ALLOW_LOOPBACK": "true", "OCV_WEBHOOKS_RETRY_BASE": "100ms",
			"OCV_WEBHOOKS_POLL_INTERVAL": "200ms", "OCV_WEBHOOKS_LEASE": "15s"},
			want:      Config{WebhooksAllowLoopback: true, WebhooksRetryBase: 100 * time.Millisecond, WebhooksPollInterval: 200 * time.Millisecond, WebhooksLease: 15 * time.Second},
			wantValid: true},
		"bad bool":        {env: map[string]string{"OCV_WEBHOOKS_ALLOW_LOOPBACK": "maybe"}, wantEnv: true},
		"bad duration":    {env: map[string]string{"OCV_WEBHOOKS_RETRY_BASE": "soon"}, wantEnv: true},
		"lease too short": {env: map[string]string{"OCV_WEBHOOKS_LEASE": "5s"}, want: Config{WebhooksLease: 5 * time.Second}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var c Config
			errs := c.applyWebhookEnv(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if tc.wantEnv {
				require.NotEmpty(t, errs)
				return
			}
			require.Empty(t, errs)
			require.Equal(t, tc.want, c)
			require.Equal(t, tc.wantValid, len(c.validateWebhooks()) == 0)
			require.Equal(t, c.WebhooksAllowLoopback && testbuild.Enabled, c.WebhookOptions().AllowLoopback)
		})
	}
}
