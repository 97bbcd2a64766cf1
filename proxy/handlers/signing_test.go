package handlers

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestDecodePrivateKey(t *testing.T) {
	const k1 = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	seedHex := "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
	pubHex := "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a" // RFC 8032 test 1
	tests := map[string]struct {
		chain, in string
		want      string
		wantErr   bool
	}{
		"ok hex":                       {chain: "ethereum", in: k1, want: k1},
		"ok 0x hex":                    {chain: "ethereum", in: "0x" + k1, want: k1},
		"ok wif compressed":            {chain: "bitcoin", in: "KymWWYtz6iLgVAzxMYNk3TcVQps2BasrSZFB2T8qVp2jgK7NRof2", want: k1},
		"ok base64":                    {chain: "ethereum", in: "TAiDppECk31iMUcbXbtiBP5RKWFwgnkq5GjQGj82Ixg=", want: k1},
		"ok ed25519 seed":              {chain: "solana", in: seedHex, want: seedHex},
		"ok ed25519 64-byte secret":    {chain: "solana", in: seedHex + pubHex, want: seedHex},
		"fail ed25519 halves disagree": {chain: "solana", in: seedHex + seedHex, wantErr: true},
		"fail short":                   {chain: "ethereum", in: k1[:60], wantErr: true},
		"fail junk":                    {chain: "ethereum", in: "not a key", wantErr: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := decodePrivateKey(tc.chain, tc.in)
			if tc.wantErr {
				require.Error(t, err)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tc.want, hex.EncodeToString(got))
		})
	}
}
