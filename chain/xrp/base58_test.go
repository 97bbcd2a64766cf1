package xrp

import (
	"encoding/hex"
	"strings"
	"testing"

	"github.com/btcsuite/btcd/btcutil/base58"
	"github.com/stretchr/testify/require"
)

// bitcoinAlphabet is base58's usual alphabet, used here only to cross-check
// encode58 against an independent implementation.
const bitcoinAlphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// viaBitcoinBase58 encodes b with btcutil's base58 and maps each character
// to the Ripple alphabet by position: the same number in the same base.
func viaBitcoinBase58(b []byte) string {
	s := base58.Encode(b)
	var sb strings.Builder
	for i := range len(s) {
		sb.WriteByte(rippleAlphabet[strings.IndexByte(bitcoinAlphabet, s[i])])
	}
	return sb.String()
}

func TestCheckEncodeAccountIDs(t *testing.T) {
	tests := map[string]struct {
		accountID string
		want      string
	}{
		// XRPL docs, "Addresses" → "Special Addresses": ACCOUNT_ZERO.
		"ok account zero": {accountID: "0000000000000000000000000000000000000000", want: "rrrrrrrrrrrrrrrrrrrrrhoLvTp"},
		// XRPL docs, "Special Addresses": ACCOUNT_ONE.
		"ok account one": {accountID: "0000000000000000000000000000000000000001", want: "rrrrrrrrrrrrrrrrrrrrBZbvji"},
		// XRPL docs, "Special Addresses": the genesis account (its id checked
		// with ripple-address-codec encodeAccountID).
		"ok genesis": {accountID: "b5f762798a53d543a014caf8b297cff8f2f937e8", want: "rHb9CJAWyB4rj91VRWn96DkukG4bwdtyTh"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			id, err := hex.DecodeString(tc.accountID)
			require.NoError(t, err)
			require.Equal(t, tc.want, checkEncode(accountIDVersion, id))
		})
	}
}

func TestEncode58(t *testing.T) {
	tests := map[string]struct {
		in   []byte
		want string
	}{
		"ok empty":          {in: nil, want: ""},
		"ok one zero":       {in: []byte{0}, want: "r"},
		"ok zeros kept":     {in: []byte{0, 0, 1}, want: "rrp"},
		"ok last digit":     {in: []byte{57}, want: "z"},
		"ok carry to two":   {in: []byte{58}, want: "pr"},
		"ok two bytes":      {in: []byte{0xff, 0xff}, want: viaBitcoinBase58([]byte{0xff, 0xff})},
		"ok all ones bytes": {in: []byte{1, 1, 1, 1, 1, 1, 1, 1}, want: viaBitcoinBase58([]byte{1, 1, 1, 1, 1, 1, 1, 1})},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, encode58(tc.in))
		})
	}
}

// FuzzEncode58 checks encode58 against btcutil's base58 (mapped to the
// Ripple alphabet) on arbitrary input, leading zeros included.
func FuzzEncode58(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0})
	f.Add([]byte{0, 0xd2, 0x8b, 0x17, 0x7e})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := encode58(b), viaBitcoinBase58(b); got != want {
			t.Fatalf("encode58(%x) = %q, want %q", b, got, want)
		}
	})
}
