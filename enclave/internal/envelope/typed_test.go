package envelope

import (
	"bytes"
	"context"
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

// sealV1 seals a legacy version-1 blob (no type bound), as the enclave did
// before secret types were bound.
func sealV1(t *testing.T, s *Sealer, loc Locator, plaintext []byte) Sealed {
	t.Helper()
	ctx := context.Background()
	kv, err := s.latestKEK(ctx, loc.OrgID, loc.VaultID)
	require.NoError(t, err)
	var dek [dekSize]byte
	_, err = rand.Read(dek[:])
	require.NoError(t, err)
	wrapped, err := s.w.WrapKey(ctx, keyvault.KeyRef{ID: kekID(loc.OrgID, loc.VaultID), Version: kv}, dek[:])
	require.NoError(t, err)
	aead, err := newAEAD(dek[:])
	require.NoError(t, err)
	out := appendBlobHeader(nil, kv)
	out = aead.Seal(out, nil, plaintext, appendAAD(nil, loc))
	return Sealed{KEKVersion: kv, WrappedDEK: wrapped, Ciphertext: out}
}

// sealV2 seals a legacy version-2 blob (type bound, DEK wrapped in the key
// store), as the enclave did before intermediate keys.
func sealV2(t *testing.T, s *Sealer, loc Locator, secretType string, plaintext []byte) Sealed {
	t.Helper()
	return sealV2TB(t, s, loc, secretType, plaintext)
}

// sealV2TB is sealV2 for tests and benchmarks.
func sealV2TB(t testing.TB, s *Sealer, loc Locator, secretType string, plaintext []byte) Sealed {
	t.Helper()
	ctx := context.Background()
	kv, err := s.latestKEK(ctx, loc.OrgID, loc.VaultID)
	require.NoError(t, err)
	var dek [dekSize]byte
	_, err = rand.Read(dek[:])
	require.NoError(t, err)
	wrapped, err := s.w.WrapKey(ctx, keyvault.KeyRef{ID: kekID(loc.OrgID, loc.VaultID), Version: kv}, dek[:])
	require.NoError(t, err)
	aead, err := newAEAD(dek[:])
	require.NoError(t, err)
	out := appendBlobHeaderV2(nil, kv, secretType)
	out = aead.Seal(out, nil, plaintext, appendAADV2(nil, loc, secretType))
	return Sealed{KEKVersion: kv, WrappedDEK: wrapped, Ciphertext: out}
}

// relabel rewrites the type field of a version-2 or 3 blob without
// touching its AEAD part: what a proxy or a database writer could do.
func relabel(blob []byte, to string) []byte {
	off := blobHeaderLen
	if blob[0] == blobV3 {
		off += 4
	}
	n := int(blob[off])
	out := append([]byte{}, blob[:off]...)
	out = append(out, byte(len(to)))
	out = append(out, to...)
	return append(out, blob[off+1+n:]...)
}

func TestSealTypedBindsType(t *testing.T) {
	s, _ := newTestSealer(t, 16)
	ctx := context.Background()
	current, err := s.SealTyped(ctx, testLoc, 0, "private_key", []byte("0xkey"))
	require.NoError(t, err)
	for name, sealed := range map[string]Sealed{"v3": current, "v2": sealV2(t, s, testLoc, "private_key", []byte("0xkey"))} {
		t.Run(name, func(t *testing.T) { testTypeBound(t, s, sealed) })
	}
}

func testTypeBound(t *testing.T, s *Sealer, sealed Sealed) {
	ctx := context.Background()
	typ, typed, err := TypeOf(sealed.Ciphertext)
	require.NoError(t, err)
	require.True(t, typed)
	require.Equal(t, "private_key", typ)
	pt, err := s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil)
	require.NoError(t, err)
	require.Equal(t, []byte("0xkey"), pt)

	tests := map[string]struct {
		blob    []byte
		wantErr error
	}{
		"ok as sealed":              {sealed.Ciphertext, nil},
		"fail relabelled api_key":   {relabel(sealed.Ciphertext, "api_key"), ErrIntegrity},
		"fail relabelled untyped":   {relabel(sealed.Ciphertext, ""), ErrIntegrity},
		"fail relabelled as legacy": {append([]byte{blobV1}, sealed.Ciphertext[1:]...), ErrIntegrity},
		"fail relabelled v2/v3":     {append([]byte{blobV2 ^ blobV3 ^ sealed.Ciphertext[0]}, sealed.Ciphertext[1:]...), ErrIntegrity},
		"fail type length too long": {append(append([]byte{}, sealed.Ciphertext[:blobHeaderLen]...), 200), ErrIntegrity},
		"fail bad type characters":  {relabel(sealed.Ciphertext, "API KEY"), ErrIntegrity},
		"fail type cut short":       {sealed.Ciphertext[:blobHeaderLen+3], ErrIntegrity},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			pt, err := s.Open(ctx, testLoc, sealed.WrappedDEK, tc.blob, nil)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr != nil {
				require.Empty(t, pt)
			}
		})
	}
}

func TestLegacyBlobStillOpens(t *testing.T) {
	s, _ := newTestSealer(t, 0)
	ctx := context.Background()
	old := sealV1(t, s, testLoc, []byte("legacy"))
	typ, typed, err := TypeOf(old.Ciphertext)
	require.NoError(t, err)
	require.False(t, typed, "a version-1 blob binds no type")
	require.Empty(t, typ)
	pt, err := s.Open(ctx, testLoc, old.WrappedDEK, old.Ciphertext, nil)
	require.NoError(t, err)
	require.Equal(t, []byte("legacy"), pt)
	// Dressed up as a typed blob it does not open.
	forged := append([]byte{blobV2}, old.Ciphertext[1:blobHeaderLen]...)
	forged = append(append(forged, 7), "api_key"...)
	forged = append(forged, old.Ciphertext[blobHeaderLen:]...)
	_, err = s.Open(ctx, testLoc, old.WrappedDEK, forged, nil)
	require.ErrorIs(t, err, ErrIntegrity)
}

func TestSecretTypeValidation(t *testing.T) {
	s, _ := newTestSealer(t, 0)
	ctx := context.Background()
	for typ, ok := range map[string]bool{
		"": true, "api_key": true, "ssh_key": true, "type2": true,
		"API_KEY": false, "api-key": false, "a b": false, string(bytes.Repeat([]byte{'a'}, MaxSecretTypeLen)): true,
		string(bytes.Repeat([]byte{'a'}, MaxSecretTypeLen+1)): false,
	} {
		require.Equal(t, ok, ValidSecretType(typ), typ)
		_, err := s.SealTyped(ctx, testLoc, 0, typ, []byte("x"))
		if ok {
			require.NoError(t, err, typ)
		} else {
			require.ErrorIs(t, err, ErrInvalidLocator, typ)
		}
	}
}

func FuzzTypeOf(f *testing.F) {
	f.Add([]byte{2, 0, 0, 0, 1, 3, 'a', 'b', 'c'})
	f.Add([]byte{1, 0, 0, 0, 1})
	f.Fuzz(func(t *testing.T, b []byte) {
		typ, _, err := TypeOf(b)
		if err == nil && !ValidSecretType(typ) {
			t.Fatalf("invalid type %q accepted", typ)
		}
	})
}
