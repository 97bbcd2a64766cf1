package envelope

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

var testLoc = Locator{OrgID: "org-a", VaultID: "vault-1", Path: "prod/db/password", SecretVersion: 3}

func newTestSealer(t testing.TB, cacheSize int) (*Sealer, *countingStore) {
	t.Helper()
	ks := newCountingStore(t)
	s, err := New(ks, Config{CacheSize: cacheSize})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	for _, v := range []string{"vault-1", "vault-2"} {
		_, err = s.CreateKEK(context.Background(), testLoc.OrgID, v)
		require.NoError(t, err)
	}
	return s, ks
}

func TestSealOpenRoundTrip(t *testing.T) {
	for name, size := range map[string]int{"cache on": 16, "cache off": 0} {
		t.Run(name, func(t *testing.T) {
			s, _ := newTestSealer(t, size)
			ctx := context.Background()
			sealed, err := s.Seal(ctx, testLoc, 0, []byte("hunter2"))
			require.NoError(t, err)
			require.Equal(t, uint32(1), sealed.KEKVersion)
			require.Equal(t, byte(blobV3), sealed.Ciphertext[0])
			require.False(t, bytes.Contains(sealed.Ciphertext, []byte("hunter2")))

			pt, err := s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil)
			require.NoError(t, err)
			require.Equal(t, []byte("hunter2"), pt)

			empty, err := s.Seal(ctx, testLoc, 0, nil)
			require.NoError(t, err)
			pt, err = s.Open(ctx, testLoc, empty.WrappedDEK, empty.Ciphertext, nil)
			require.NoError(t, err)
			require.Empty(t, pt)
		})
	}
}

func TestOpenRefusesMovedOrEdited(t *testing.T) {
	s, _ := newTestSealer(t, 0)
	ctx := context.Background()
	sealed, err := s.Seal(ctx, testLoc, 0, []byte("value-a"))
	require.NoError(t, err)
	other, err := s.Seal(ctx, Locator{OrgID: "org-a", VaultID: "vault-1", Path: "prod/other", SecretVersion: 1}, 0, []byte("value-b"))
	require.NoError(t, err)
	edit := func(b []byte, i int) []byte { c := bytes.Clone(b); c[i] ^= 0x01; return c }
	with := func(f func(l *Locator)) Locator { l := testLoc; f(&l); return l }

	tests := map[string]struct {
		loc     Locator
		wrapped []byte
		blob    []byte
		wantErr error
	}{
		"ok":                 {testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil},
		"fail other path":    {with(func(l *Locator) { l.Path = "prod/db/other" }), sealed.WrappedDEK, sealed.Ciphertext, ErrIntegrity},
		"fail other version": {with(func(l *Locator) { l.SecretVersion = 4 }), sealed.WrappedDEK, sealed.Ciphertext, ErrIntegrity},
		// org-b has no KEK named for vault-1: the key the blob names is
		// missing from the store.
		"fail other org": {with(func(l *Locator) { l.OrgID = "org-b" }), sealed.WrappedDEK, sealed.Ciphertext, ErrKEKDestroyed},
		// Another vault has another KEK: the unwrap itself fails.
		"fail other vault": {with(func(l *Locator) { l.VaultID = "vault-2" }), sealed.WrappedDEK, sealed.Ciphertext, ErrIntegrity},
		// The DEK of another secret unwraps fine but does not open this blob.
		"fail swapped wrapped dek": {testLoc, other.WrappedDEK, sealed.Ciphertext, ErrIntegrity},
		"fail edited wrapped dek":  {testLoc, edit(sealed.WrappedDEK, 3), sealed.Ciphertext, ErrIntegrity},
		"fail edited ciphertext":   {testLoc, sealed.WrappedDEK, edit(sealed.Ciphertext, len(sealed.Ciphertext)-20), ErrIntegrity},
		"fail edited tag":          {testLoc, sealed.WrappedDEK, edit(sealed.Ciphertext, len(sealed.Ciphertext)-1), ErrIntegrity},
		"fail edited nonce":        {testLoc, sealed.WrappedDEK, edit(sealed.Ciphertext, blobHeaderLen+1), ErrIntegrity},
		// A forged KEK version names a key that does not exist.
		"fail edited kek version":   {testLoc, sealed.WrappedDEK, edit(sealed.Ciphertext, 4), ErrIntegrity},
		"fail unknown blob version": {testLoc, sealed.WrappedDEK, append([]byte{9}, sealed.Ciphertext[1:]...), ErrUnsupportedFormat},
		"fail edited ik generation": {testLoc, sealed.WrappedDEK, edit(sealed.Ciphertext, blobHeaderLen+3), ErrIntegrity},
		"fail truncated blob":       {testLoc, sealed.WrappedDEK, sealed.Ciphertext[:blobHeaderLen+5], ErrIntegrity},
		"fail empty blob":           {testLoc, sealed.WrappedDEK, nil, ErrIntegrity},
		"fail empty path":           {with(func(l *Locator) { l.Path = "" }), sealed.WrappedDEK, sealed.Ciphertext, ErrInvalidLocator},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			pt, err := s.Open(ctx, tc.loc, tc.wrapped, tc.blob, nil)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr != nil {
				require.Empty(t, pt)
			}
		})
	}
}

func TestSealKEKVersions(t *testing.T) {
	s, _ := newTestSealer(t, 0)
	ctx := context.Background()
	v1, err := s.Seal(ctx, testLoc, 0, []byte("one"))
	require.NoError(t, err)
	require.Equal(t, uint32(1), v1.KEKVersion)

	next, err := s.CreateKEK(ctx, testLoc.OrgID, "vault-1")
	require.NoError(t, err)
	require.Equal(t, uint32(2), next)

	v2, err := s.Seal(ctx, testLoc, 0, []byte("two"))
	require.NoError(t, err)
	require.Equal(t, uint32(2), v2.KEKVersion, "0 means the latest version")
	pinned, err := s.Seal(ctx, testLoc, 1, []byte("pinned"))
	require.NoError(t, err)
	require.Equal(t, uint32(1), pinned.KEKVersion)

	for want, sealed := range map[string]Sealed{"one": v1, "two": v2, "pinned": pinned} {
		pt, err := s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil)
		require.NoError(t, err)
		require.Equal(t, want, string(pt))
	}

	tests := map[string]struct {
		loc     Locator
		kek     uint32
		wantErr error
	}{
		"fail vault without kek": {Locator{OrgID: "o", VaultID: "vault-none", Path: "p"}, 0, keyvault.ErrKeyNotFound},
		"fail missing version":   {testLoc, 9, keyvault.ErrKeyNotFound},
		// A vault id becomes part of a key name: nothing that could shift it.
		"fail vault id with slash": {Locator{OrgID: "o", VaultID: "a/b", Path: "p"}, 0, ErrInvalidLocator},
		"fail vault id with colon": {Locator{OrgID: "o", VaultID: "a:v1", Path: "p"}, 0, ErrInvalidLocator},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := s.Seal(ctx, tc.loc, tc.kek, []byte("x"))
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func TestOpenUsesCache(t *testing.T) {
	s, ks := newTestSealer(t, 16)
	ctx := context.Background()
	sealed := sealV2(t, s, testLoc, "", []byte("v"))
	for range 3 {
		_, err := s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil)
		require.NoError(t, err)
	}
	require.Equal(t, 1, ks.unwrapCount())
}

func TestNewRequiresWrapper(t *testing.T) {
	_, err := New(noWrapStore{newCountingStore(t)}, Config{})
	require.ErrorIs(t, err, keyvault.ErrUnsupported)
	_, err = New(newCountingStore(t), Config{CacheSize: -1})
	require.ErrorIs(t, err, ErrInvalidConfig)
}

func TestOpenKeyStoreDownIsNotIntegrity(t *testing.T) {
	s, ks := newTestSealer(t, 0)
	ctx := context.Background()
	sealed, err := s.Seal(ctx, testLoc, 0, []byte("v"))
	require.NoError(t, err)
	require.NoError(t, ks.Close())
	// An HSM outage must not be reported as tampered data.
	_, err = s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil)
	require.ErrorIs(t, err, keyvault.ErrClosed)
	require.NotErrorIs(t, err, ErrIntegrity)
}
