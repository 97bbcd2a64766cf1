package proxy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestAuditHeadsURLValidated: a bucket URL needs a usable endpoint and
// keys; errors name the setting and never the secret.
func TestAuditHeadsURLValidated(t *testing.T) {
	for _, tc := range []struct {
		name, url, endpoint, keyID, secret, want string
	}{
		{"not an s3 URL", "https://b/x", "https://s3.example.com", "k", "topsecret", "audit_heads_url"},
		{"bad bucket", "s3://B_/x", "https://s3.example.com", "k", "topsecret", "audit_heads_url"},
		{"no endpoint", "s3://heads/x", "", "k", "topsecret", "audit_heads_s3_*"},
		{"plain http to a remote host", "s3://heads/x", "http://s3.example.com", "k", "topsecret", "loopback"},
		{"no secret", "s3://heads/x", "https://s3.example.com", "k", "", "secret access key"},
		{"ok", "s3://heads/x", "https://s3.example.com", "k", "topsecret", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			c.AuditHeadsURL, c.AuditHeadsS3Endpoint = tc.url, tc.endpoint
			c.AuditHeadsS3AccessKeyID, c.AuditHeadsS3SecretAccessKey = tc.keyID, tc.secret
			err := c.Validate()
			if tc.want == "" {
				if err != nil {
					require.NotContains(t, err.Error(), "audit_heads")
				}
				return
			}
			require.ErrorContains(t, err, tc.want)
			require.NotContains(t, err.Error(), "topsecret")
		})
	}
}
