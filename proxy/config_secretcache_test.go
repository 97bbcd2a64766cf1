package proxy

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestSecretCacheEnv(t *testing.T) {
	tests := map[string]struct {
		env       map[string]string
		want      SecretCacheConfig
		wantErrs  int
		wantValid bool
	}{
		"defaults": {env: map[string]string{}, want: DefaultSecretCache(), wantValid: true},
		"disabled": {env: map[string]string{"OCV_SECRET_CACHE_BYTES": "0"},
			want: SecretCacheConfig{Entries: 10_000, Bytes: 0, TTL: 5 * time.Minute, Poll: 50 * time.Millisecond}, wantValid: true},
		"overrides": {env: map[string]string{"OCV_SECRET_CACHE_ENTRIES": "5", "OCV_SECRET_CACHE_BYTES": "4096",
			"OCV_SECRET_CACHE_TTL": "1m", "OCV_SECRET_CACHE_POLL": "10ms"},
			want: SecretCacheConfig{Entries: 5, Bytes: 4096, TTL: time.Minute, Poll: 10 * time.Millisecond}, wantValid: true},
		"not a number":   {env: map[string]string{"OCV_SECRET_CACHE_BYTES": "lots"}, want: SecretCacheConfig{Entries: 10_000, TTL: 5 * time.Minute, Poll: 50 * time.Millisecond}, wantErrs: 1, wantValid: true},
		"negative bytes": {env: map[string]string{"OCV_SECRET_CACHE_BYTES": "-1"}, want: SecretCacheConfig{Entries: 10_000, Bytes: -1, TTL: 5 * time.Minute, Poll: 50 * time.Millisecond}},
		"poll too fast":  {env: map[string]string{"OCV_SECRET_CACHE_POLL": "1ms"}, want: SecretCacheConfig{Entries: 10_000, Bytes: 64 << 20, TTL: 5 * time.Minute, Poll: time.Millisecond}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := DefaultConfig()
			errs := c.applySecretCacheEnv(func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			require.Len(t, errs, tc.wantErrs)
			require.Equal(t, tc.want, c.SecretCache)
			require.Equal(t, tc.wantValid, len(c.validateSecretCache()) == 0)
		})
	}
}

func TestSecretCacheMaxLag(t *testing.T) {
	require.Equal(t, time.Second, SecretCacheConfig{Poll: 50 * time.Millisecond}.MaxLag())
	require.Equal(t, 4*time.Second, SecretCacheConfig{Poll: 200 * time.Millisecond}.MaxLag())
}
