package tron_test

import (
	"encoding/hex"
	"testing"

	"github.com/decred/dcrd/dcrec/secp256k1/v4"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/chain/tron"
	"github.com/opencustody/ocv/keyvault"
)

// pubOfPrivate returns the uncompressed public key of a hex private key.
// Only tests see private keys: the package itself never does.
func pubOfPrivate(t *testing.T, privHex string) keyvault.Secp256k1Point {
	t.Helper()
	raw, err := hex.DecodeString(privHex)
	require.NoError(t, err)
	return secp256k1.PrivKeyFromBytes(raw).PubKey().SerializeUncompressed()
}

func TestAddressVectors(t *testing.T) {
	tests := map[string]struct {
		priv    string
		want    string
		wantHex string
	}{
		// Private key 1 (public key G). Its account id is the Ethereum address
		// of key 1, 0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf; TRON address as
		// printed by TronWeb (address.fromPrivateKey) and used across the
		// TronWeb/tronpy test suites.
		"ok private key 1": {
			priv:    "0000000000000000000000000000000000000000000000000000000000000001",
			want:    "TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC",
			wantHex: "417e5f4552091a69125d5dfcb7b8c2659029395bdf",
		},
		// TRON HTTP API /wallet/generateaddress documented example response
		// (privateKey, address, hexAddress).
		"ok generateaddress docs example": {
			priv:    "097c8ba8a310f39a41a667d35a20000cd21d58c7322484b584c4ada8ebd3ec06",
			want:    "TLHx2Ta9WwtwDjgGxyeifHs5ipmJrJAbZ3",
			wantHex: "41713ca8ee9c3db6bdc947b8e0c7846645307e6e63",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			pub := pubOfPrivate(t, tc.priv)
			got, err := tron.Address(pub)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
			gotHex, err := tron.HexAddress(pub)
			require.NoError(t, err)
			require.Equal(t, tc.wantHex, gotHex)
		})
	}
}

func TestAddressErrors(t *testing.T) {
	g := pubOfPrivate(t, "0000000000000000000000000000000000000000000000000000000000000001")
	offCurve := append(keyvault.Secp256k1Point(nil), g...)
	offCurve[64] ^= 0x01 // G with a wrong Y: hashing it would give an unspendable address
	compressed := secp256k1.PrivKeyFromBytes([]byte{1}).PubKey().SerializeCompressed()

	tests := map[string]struct {
		pub     keyvault.Secp256k1Point
		wantErr error
	}{
		"fail nil":        {pub: nil, wantErr: tron.ErrInvalidPublicKey},
		"fail compressed": {pub: compressed, wantErr: tron.ErrInvalidPublicKey},
		"fail raw x‖y":    {pub: g[1:], wantErr: tron.ErrInvalidPublicKey},
		"fail off curve":  {pub: offCurve, wantErr: tron.ErrInvalidPublicKey},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := tron.Address(tc.pub)
			require.ErrorIs(t, err, tc.wantErr)
			require.Empty(t, got)
			gotHex, err := tron.HexAddress(tc.pub)
			require.ErrorIs(t, err, tc.wantErr)
			require.Empty(t, gotHex)
		})
	}
}
