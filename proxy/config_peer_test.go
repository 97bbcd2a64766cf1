package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestProxyIdentityKeyRequired: the proxy refuses to start without its
// identity key (the enclave would serve it nothing).
func TestProxyIdentityKeyRequired(t *testing.T) {
	c := DefaultConfig()
	require.ErrorContains(t, c.Validate(), "proxy_identity_key")
	require.NoError(t, c.applyEnv(func(k string) (string, bool) {
		if k == "OCV_PROXY_IDENTITY_KEY" {
			return "/etc/ocv/proxy-identity.key", true
		}
		return "", false
	}))
	require.Equal(t, "/etc/ocv/proxy-identity.key", c.ProxyIdentityKey)
	if err := c.Validate(); err != nil {
		require.NotContains(t, err.Error(), "proxy_identity_key")
	}
}
