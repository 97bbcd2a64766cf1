package proxy

import (
	"context"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseTestHosts(t *testing.T) {
	tests := map[string]struct {
		in      string
		want    testHostsResolver
		wantErr bool
	}{
		"empty":        {in: "", want: testHostsResolver{}},
		"two names":    {in: "Rebind.Example.com.=127.0.0.1, v6.example.com=::1", want: testHostsResolver{"rebind.example.com": netip.MustParseAddr("127.0.0.1"), "v6.example.com": netip.MustParseAddr("::1")}},
		"fail no ip":   {in: "a.example.com", wantErr: true},
		"fail bad ip":  {in: "a.example.com=nope", wantErr: true},
		"fail no name": {in: "=127.0.0.1", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := parseTestHosts(tc.in)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestTestHostsResolver(t *testing.T) {
	r, err := parseTestHosts("rebind.example.com=127.0.0.1")
	require.NoError(t, err)
	got, err := r.LookupNetIP(context.Background(), "ip", "REBIND.example.com.")
	require.NoError(t, err)
	require.Equal(t, []netip.Addr{netip.MustParseAddr("127.0.0.1")}, got)
	_, err = r.LookupNetIP(context.Background(), "ip6", "rebind.example.com")
	require.Error(t, err)
	cfg := Config{WebhooksTestHosts: "rebind.example.com=127.0.0.1"}
	require.NotNil(t, cfg.WebhookOptions().Resolver)
	require.Nil(t, (&Config{}).WebhookOptions().Resolver)
}
