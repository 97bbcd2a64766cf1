package egress

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestParseLegacyIPv4(t *testing.T) {
	tests := map[string]struct {
		host string
		want string
	}{
		"decimal dword":   {host: "2130706433", want: "127.0.0.1"},
		"octal":           {host: "0177.0.0.1", want: "127.0.0.1"},
		"hex two parts":   {host: "0x7f.1", want: "127.0.0.1"},
		"short":           {host: "127.1", want: "127.0.0.1"},
		"three parts":     {host: "10.1.258", want: "10.1.1.2"},
		"bare 0x":         {host: "0x", want: "0.0.0.0"},
		"max":             {host: "4294967295", want: "255.255.255.255"},
		"dotted ordinary": {host: "93.184.216.34", want: "93.184.216.34"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.True(t, endsInNumber(tc.host))
			a, err := parseLegacyIPv4(tc.host)
			require.NoError(t, err)
			require.Equal(t, tc.want, a.String())
		})
	}
	for _, bad := range []string{"4294967296", "1.2.3.4.5", "1.256.0.0", "1.2.65536", "99999999999999999999999", "09", "0xg"} {
		_, err := parseLegacyIPv4(bad)
		require.ErrorIs(t, err, errNotIPv4, bad)
	}
}
