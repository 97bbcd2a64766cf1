package memstore

import (
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"
)

// RFC 3394 section 4 test vectors.
var rfc3394Vectors = map[string]struct{ kek, data, wrapped string }{
	"4.1 128-bit data, 128-bit kek": {
		kek:     "000102030405060708090A0B0C0D0E0F",
		data:    "00112233445566778899AABBCCDDEEFF",
		wrapped: "1FA68B0A8112B447AEF34BD8FB5A7B829D3E862371D2CFE5",
	},
	"4.2 128-bit data, 192-bit kek": {
		kek:     "000102030405060708090A0B0C0D0E0F1011121314151617",
		data:    "00112233445566778899AABBCCDDEEFF",
		wrapped: "96778B25AE6CA435F92B5B97C050AED2468AB8A17AD84E5D",
	},
	"4.3 128-bit data, 256-bit kek": {
		kek:     "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
		data:    "00112233445566778899AABBCCDDEEFF",
		wrapped: "64E8C3F9CE0F5BA263E9777905818A2A93C8191E7D6E8AE7",
	},
	"4.4 192-bit data, 192-bit kek": {
		kek:     "000102030405060708090A0B0C0D0E0F1011121314151617",
		data:    "00112233445566778899AABBCCDDEEFF0001020304050607",
		wrapped: "031D33264E15D33268F24EC260743EDCE1C6C7DDEE725A936BA814915C6762D2",
	},
	"4.5 192-bit data, 256-bit kek": {
		kek:     "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
		data:    "00112233445566778899AABBCCDDEEFF0001020304050607",
		wrapped: "A8F9BC1612C68B3FF6E6F4FBE30E71E4769C8B80A32CB8958CD5D17D6B254DA1",
	},
	"4.6 256-bit data, 256-bit kek": {
		kek:     "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F",
		data:    "00112233445566778899AABBCCDDEEFF000102030405060708090A0B0C0D0E0F",
		wrapped: "28C9F404C4B810F4CBCCB35CFB87F8263F5786E2D80ED326CBC7F0E71A99F43BFB988B9B7A02DD21",
	},
}

func TestKeyWrapRFC3394(t *testing.T) {
	for name, v := range rfc3394Vectors {
		t.Run(name, func(t *testing.T) {
			kek, data, want := unhex(t, v.kek), unhex(t, v.data), unhex(t, v.wrapped)
			got, err := wrapKey(kek, data)
			require.NoError(t, err)
			require.Equal(t, want, got)
			back, err := unwrapKey(kek, want)
			require.NoError(t, err)
			require.Equal(t, data, back)
		})
	}
}

func TestUnwrapKeyRejects(t *testing.T) {
	v := rfc3394Vectors["4.6 256-bit data, 256-bit kek"]
	kek, wrapped := unhex(t, v.kek), unhex(t, v.wrapped)
	flipped := func(i int) []byte {
		b := append([]byte(nil), wrapped...)
		b[i] ^= 0x80
		return b
	}
	otherKEK := append([]byte(nil), kek...)
	otherKEK[0] ^= 1
	tests := map[string]struct {
		kek, in []byte
		wantErr error
	}{
		"fail flipped iv":         {kek: kek, in: flipped(0), wantErr: errUnwrapIntegrity},
		"fail flipped last":       {kek: kek, in: flipped(len(wrapped) - 1), wantErr: errUnwrapIntegrity},
		"fail other kek":          {kek: otherKEK, in: wrapped, wantErr: errUnwrapIntegrity},
		"fail one block":          {kek: kek, in: wrapped[:16], wantErr: errKeyWrapInput},
		"fail not block multiple": {kek: kek, in: wrapped[:39], wantErr: errKeyWrapInput},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := unwrapKey(tc.kek, tc.in)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func TestWrapKeyRejectsShortInput(t *testing.T) {
	_, err := wrapKey(make([]byte, 32), make([]byte, 8))
	require.ErrorIs(t, err, errKeyWrapInput)
	_, err = wrapKey(make([]byte, 32), make([]byte, 20))
	require.ErrorIs(t, err, errKeyWrapInput)
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	require.NoError(t, err)
	return b
}
