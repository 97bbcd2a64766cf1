//go:build cgo

package pkcs11_test

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/pkcs11"
)

// TestKeyWrapRFC3394 runs the RFC 3394 section 4 vectors with a 256-bit KEK
// through the Store: SoftHSM's CKM_AES_KEY_WRAP must be plain RFC 3394.
func TestKeyWrapRFC3394(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	const kek = "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"
	vectors := map[string]struct{ data, wrapped string }{
		"4.3 128-bit data": {
			data:    "00112233445566778899AABBCCDDEEFF",
			wrapped: "64E8C3F9CE0F5BA263E9777905818A2A93C8191E7D6E8AE7",
		},
		"4.5 192-bit data": {
			data:    "00112233445566778899AABBCCDDEEFF0001020304050607",
			wrapped: "A8F9BC1612C68B3FF6E6F4FBE30E71E4769C8B80A32CB8958CD5D17D6B254DA1",
		},
		"4.6 256-bit data": {
			data:    "00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F",
			wrapped: "28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21",
		},
	}
	ref := keyvault.KeyRef{ID: "kek/rfc3394", Version: 1}
	require.NoError(t, pkcs11.ImportKEK(t.Context(), s, ref, unhex(t, kek)))
	for name, v := range vectors {
		t.Run(name, func(t *testing.T) {
			data, want := unhex(t, v.data), unhex(t, v.wrapped)
			got, err := s.WrapKey(t.Context(), ref, data)
			require.NoError(t, err)
			require.Equal(t, want, got)
			back, err := s.UnwrapKey(t.Context(), ref, want)
			require.NoError(t, err)
			require.Equal(t, data, back)
		})
	}
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}
