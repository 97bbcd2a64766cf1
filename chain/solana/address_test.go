package solana_test

import (
	"crypto/ed25519"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/chain/solana"
)

func TestAddressVectors(t *testing.T) {
	tests := map[string]struct {
		pubHex string
		want   string
	}{
		// RFC 8032 section 7.1 TEST 1 public key; its base58 form is the
		// widely published Solana address of that key.
		"ok rfc8032 test 1": {
			pubHex: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
			want:   "FVen3X669xLzsi6N2V91DoiyzHzg1uAgqiT8jZ9nS96Z",
		},
		// solana-web3.js test/publickey.test.ts: the key [3, 0, …, 0].
		"ok web3js publickey test": {
			pubHex: "03" + "00000000000000000000000000000000000000000000000000000000000000",
			want:   "CiDwVBFgWV9E5MvXWoLgnEgn2hK7rJikbvfWavzAQz3",
		},
		// The System Program id: 32 zero bytes (leading zero bytes become '1').
		"ok system program": {
			pubHex: "0000000000000000000000000000000000000000000000000000000000000000",
			want:   "11111111111111111111111111111111",
		},
		// The SPL Token Program id.
		"ok token program": {
			pubHex: "06ddf6e1d765a193d9cbe146ceeb79ac1cb485ed5f5b37913a8cf5857eff00a9",
			want:   "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			raw, err := hex.DecodeString(tc.pubHex)
			require.NoError(t, err)
			got, err := solana.Address(ed25519.PublicKey(raw))
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}

func TestAddressErrors(t *testing.T) {
	tests := map[string]struct {
		pub     ed25519.PublicKey
		wantErr error
	}{
		"fail nil": {pub: nil, wantErr: solana.ErrInvalidPublicKey},
		// solana-go would panic on these lengths: Address must refuse them first.
		"fail 31 bytes": {pub: make(ed25519.PublicKey, 31), wantErr: solana.ErrInvalidPublicKey},
		"fail 33 bytes": {pub: make(ed25519.PublicKey, 33), wantErr: solana.ErrInvalidPublicKey},
		// A 64-byte private key (seed ‖ public) passed by mistake is refused.
		"fail private key": {pub: ed25519.PublicKey(ed25519.NewKeyFromSeed(make([]byte, 32))), wantErr: solana.ErrInvalidPublicKey},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := solana.Address(tc.pub)
			require.ErrorIs(t, err, tc.wantErr)
			require.Empty(t, got)
		})
	}
}
