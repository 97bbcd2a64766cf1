package xrp_test

import (
	"crypto/ed25519"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/chain/xrp"
)

func TestAddressVectors(t *testing.T) {
	tests := map[string]struct {
		pubHex    string // as the XRPL prints it: "ED" ‖ key
		accountID string
		want      string
	}{
		// xrpl.js packages/ripple-keypairs/test/fixtures/api.json, ed25519
		// entry (seed sEdSKaCy2JT7JaM7v95H9SxkhP9wS2r); the same key, account
		// id and address appear in the xrpl-py / xpring wallet docs.
		"ok ripple-keypairs ed25519 fixture": {
			pubHex:    "ED01FA53FA5A7E77798F882ECE20B1ABC00BB358A9E55A202D0D0676BD0CE37A63",
			accountID: "d28b177e48d9a8d057e70f7e464b498367281b98",
			want:      "rLUEXYuLiQptky37CqLcm9USQpPiz5rkpD",
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			raw, err := hex.DecodeString(tc.pubHex[2:])
			require.NoError(t, err)
			pub := ed25519.PublicKey(raw)

			id, err := xrp.AccountID(pub)
			require.NoError(t, err)
			require.Equal(t, tc.accountID, hex.EncodeToString(id[:]))

			got, err := xrp.Address(pub)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)

			gotHex, err := xrp.PublicKeyHex(pub)
			require.NoError(t, err)
			require.Equal(t, tc.pubHex, gotHex)
		})
	}
}

func TestAddressErrors(t *testing.T) {
	tests := map[string]struct {
		pub     ed25519.PublicKey
		wantErr error
	}{
		"fail nil":      {pub: nil, wantErr: xrp.ErrInvalidPublicKey},
		"fail 31 bytes": {pub: make(ed25519.PublicKey, 31), wantErr: xrp.ErrInvalidPublicKey},
		// The XRPL's own 33-byte "ED ‖ key" form is not an ed25519.PublicKey.
		"fail ed prefixed": {pub: append(ed25519.PublicKey{0xED}, make([]byte, 32)...), wantErr: xrp.ErrInvalidPublicKey},
		"fail private key": {pub: ed25519.PublicKey(ed25519.NewKeyFromSeed(make([]byte, 32))), wantErr: xrp.ErrInvalidPublicKey},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := xrp.Address(tc.pub)
			require.ErrorIs(t, err, tc.wantErr)
			require.Empty(t, got)
			gotHex, err := xrp.PublicKeyHex(tc.pub)
			require.ErrorIs(t, err, tc.wantErr)
			require.Empty(t, gotHex)
			_, err = xrp.AccountID(tc.pub)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}
