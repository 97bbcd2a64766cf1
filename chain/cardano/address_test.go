package cardano_test

import (
	"crypto/ed25519"
	"encoding/hex"
	"testing"

	"github.com/btcsuite/btcd/btcutil/bech32"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/chain/cardano"
)

// cip19PaymentVK is the payment verification key of the CIP-19 "Test
// vectors" section (bech32, CIP-5 prefix addr_vk).
const cip19PaymentVK = "addr_vk1w0l2sr2zgfm26ztc6nl9xy8ghsk5sh6ldwemlpmp9xylzy4dtf7st80zhd"

// decodeVK returns the raw 32-byte key of a bech32 addr_vk string.
func decodeVK(t *testing.T, s string) ed25519.PublicKey {
	t.Helper()
	hrp, raw, err := bech32.DecodeToBase256(s)
	require.NoError(t, err)
	require.Equal(t, "addr_vk", hrp)
	require.Len(t, raw, ed25519.PublicKeySize)
	return raw
}

func TestAddressVectors(t *testing.T) {
	tests := map[string]struct {
		mainnet bool
		want    string
		header  byte
	}{
		// CIP-19 "Test vectors": type-6 (enterprise, key hash), mainnet.
		"ok cip19 type-6 mainnet": {
			mainnet: true,
			want:    "addr1vx2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzers66hrl8",
			header:  0x61,
		},
		// CIP-19 "Test vectors": type-6 (enterprise, key hash), testnet.
		"ok cip19 type-6 testnet": {
			mainnet: false,
			want:    "addr_test1vz2fxv2umyhttkxyxp8x0dlpdt3k6cwng5pxj3jhsydzerspjrlsz",
			header:  0x60,
		},
	}
	pub := decodeVK(t, cip19PaymentVK)
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := cardano.Address(pub, tc.mainnet)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)

			// The result decodes under BIP-173's 90-character limit back to
			// header ‖ key hash.
			_, raw, err := bech32.DecodeToBase256(got)
			require.NoError(t, err)
			require.Len(t, raw, 1+cardano.KeyHashSize)
			require.Equal(t, tc.header, raw[0])
		})
	}
}

func TestPaymentKeyHash(t *testing.T) {
	// CIP-19 "Test vectors": the payment key hash inside every type-0/2/4/6
	// address of the test key.
	got, err := cardano.PaymentKeyHash(decodeVK(t, cip19PaymentVK))
	require.NoError(t, err)
	require.Equal(t, "9493315cd92eb5d8c4304e67b7e16ae36d61d34502694657811a2c8e", hex.EncodeToString(got[:]))
}

func TestAddressErrors(t *testing.T) {
	tests := map[string]struct {
		pub     ed25519.PublicKey
		wantErr error
	}{
		"fail nil":      {pub: nil, wantErr: cardano.ErrInvalidPublicKey},
		"fail 31 bytes": {pub: make(ed25519.PublicKey, 31), wantErr: cardano.ErrInvalidPublicKey},
		// A BIP32-Ed25519 extended key (key ‖ chain code, 64 bytes) is not a
		// plain verification key: hashing it would give a foreign address.
		"fail extended key": {pub: make(ed25519.PublicKey, 64), wantErr: cardano.ErrInvalidPublicKey},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			for _, mainnet := range []bool{true, false} {
				got, err := cardano.Address(tc.pub, mainnet)
				require.ErrorIs(t, err, tc.wantErr)
				require.Empty(t, got)
			}
			_, err := cardano.PaymentKeyHash(tc.pub)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}
