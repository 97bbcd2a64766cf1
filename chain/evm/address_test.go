package evm

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

func TestAddress(t *testing.T) {
	known := newTestSigner(t, testKeyHex)
	eip155 := newTestSigner(t, "4646464646464646464646464646464646464646464646464646464646464646")
	offCurve := append(keyvault.Secp256k1Point(nil), known.pub...)
	offCurve[64] ^= 1

	tests := map[string]struct {
		pub     keyvault.Secp256k1Point
		want    string
		wantErr error
	}{
		"ok web3 docs key":   {pub: known.pub, want: "0x2c7536E3605D9C16a7a3D7b1898e529396a65c23"},
		"ok eip-155 example": {pub: eip155.pub, want: "0x9d8A62f656a8d1615C1294fd71e9CFb3E4855A4F"},
		"fail empty":         {pub: nil, wantErr: ErrInvalidPublicKey},
		// A compressed point is a valid key but not the form the contract promises.
		"fail compressed": {pub: crypto.CompressPubkey(&known.key.PublicKey), wantErr: ErrInvalidPublicKey},
		"fail bad prefix": {pub: append(keyvault.Secp256k1Point{0x05}, known.pub[1:]...), wantErr: ErrInvalidPublicKey},
		// A point off the curve must not yield an address nobody controls.
		"fail off curve": {pub: offCurve, wantErr: ErrInvalidPublicKey},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := Address(tc.pub)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, common.HexToAddress(tc.want), got)
				require.Equal(t, tc.want, got.Hex())
			}
		})
	}
}
