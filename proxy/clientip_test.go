package proxy

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestClientAddr(t *testing.T) {
	trusted, err := parseTrustedProxies([]string{"10.0.0.0/8", " 192.0.2.7 ", "fd00::/8"})
	require.NoError(t, err)
	tests := map[string]struct {
		trusted trustedProxies
		peer    string
		xff     []string
		want    string
	}{
		"no trusted proxies ignores xff":      {peer: "203.0.113.9:5555", xff: []string{"198.51.100.1"}, want: "203.0.113.9"},
		"untrusted peer ignores xff":          {trusted: trusted, peer: "203.0.113.9:5555", xff: []string{"198.51.100.1"}, want: "203.0.113.9"},
		"trusted peer without xff":            {trusted: trusted, peer: "10.1.1.1:443", want: "10.1.1.1"},
		"trusted peer takes right-most":       {trusted: trusted, peer: "10.1.1.1:443", xff: []string{"198.51.100.1, 203.0.113.5"}, want: "203.0.113.5"},
		"skips trusted hops from the right":   {trusted: trusted, peer: "10.1.1.1:443", xff: []string{"6.6.6.6, 198.51.100.1, 10.2.2.2", "192.0.2.7"}, want: "198.51.100.1"},
		"all trusted gives the left-most":     {trusted: trusted, peer: "10.1.1.1:443", xff: []string{"10.9.9.9, 10.2.2.2"}, want: "10.9.9.9"},
		"garbage gives the peer":              {trusted: trusted, peer: "10.1.1.1:443", xff: []string{"198.51.100.1, not-an-ip"}, want: "10.1.1.1"},
		"empty header gives the peer":         {trusted: trusted, peer: "10.1.1.1:443", xff: []string{""}, want: "10.1.1.1"},
		"garbage left of the client is moot":  {trusted: trusted, peer: "10.1.1.1:443", xff: []string{"junk, 198.51.100.1"}, want: "198.51.100.1"},
		"ipv6 peer and hop":                   {trusted: trusted, peer: "[fd00::1]:443", xff: []string{"2001:db8::5"}, want: "2001:db8::5"},
		"ipv4-mapped peer is unmapped":        {trusted: trusted, peer: "[::ffff:10.1.1.1]:443", xff: []string{"::ffff:198.51.100.1"}, want: "198.51.100.1"},
		"hop with a port":                     {trusted: trusted, peer: "10.1.1.1:443", xff: []string{"[2001:db8::5]:1234"}, want: "2001:db8::5"},
		"untrusted ipv4-mapped peer unmapped": {peer: "[::ffff:203.0.113.9]:1", want: "203.0.113.9"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := tc.trusted.clientAddr(tc.peer, tc.xff)
			require.Equal(t, tc.want, got.String())
		})
	}
}

func TestParseTrustedProxies(t *testing.T) {
	p, err := parseTrustedProxies([]string{"10.1.2.3/8", "::ffff:192.0.2.0/120", "2001:db8::1"})
	require.NoError(t, err)
	require.Equal(t, "10.0.0.0/8", p[0].String())
	require.Equal(t, "192.0.2.0/24", p[1].String())
	require.Equal(t, "2001:db8::1/128", p[2].String())
	_, err = parseTrustedProxies([]string{"10.0.0.0/33"})
	require.Error(t, err)
	_, err = parseTrustedProxies([]string{"proxy.example.com"})
	require.Error(t, err)
}

func TestServerClientIPUsesTrustedProxies(t *testing.T) {
	trusted, err := parseTrustedProxies([]string{"127.0.0.0/8"})
	require.NoError(t, err)
	s := &Server{trusted: trusted}
	r := httptest.NewRequest("GET", "/v1/vaults", nil)
	r.RemoteAddr = "127.0.0.1:5000"
	r.Header.Set("X-Forwarded-For", "198.51.100.4")
	require.Equal(t, "198.51.100.4", s.clientIP(r))
	s.trusted = nil
	require.Equal(t, "127.0.0.1", s.clientIP(r), "without trusted proxies the header means nothing")
}
