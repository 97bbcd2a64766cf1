package envelope

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

var testRef = keyvault.KeyRef{ID: kekID(testLoc.OrgID, testLoc.VaultID), Version: 1}

// TestSealCostsOneCheck: once the intermediate key is derived (one key wrap
// in the store), a seal and an open each cost one KEK liveness check and no
// wrap or unwrap in the store.
func TestSealCostsOneCheck(t *testing.T) {
	s, ks := newTestSealer(t, 16)
	ctx := context.Background()
	first, err := s.Seal(ctx, testLoc, 0, []byte("v"))
	require.NoError(t, err)
	wraps, checks := ks.wraps.Load(), ks.checks.Load()
	for range 5 {
		sealed, err := s.Seal(ctx, testLoc, 0, []byte("v"))
		require.NoError(t, err)
		_, err = s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil)
		require.NoError(t, err)
	}
	_, err = s.Open(ctx, testLoc, first.WrappedDEK, first.Ciphertext, nil)
	require.NoError(t, err)
	require.Equal(t, wraps, ks.wraps.Load(), "no key wrap in the store")
	require.Equal(t, 0, ks.unwrapCount(), "no key unwrap in the store")
	require.Equal(t, checks+11, ks.checks.Load(), "one check per seal and per open")
	require.Equal(t, 1, s.iks.len())
}

// TestIntermediateKeyDerivation: the key is the same for every sealer on
// the same key store (another enclave on the token), differs per vault and
// KEK version, and is re-derived (to the same value) after IKTTL.
func TestIntermediateKeyDerivation(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	ks := newCountingStore(t)
	s, err := New(ks, Config{CacheSize: 16, Now: clk.now})
	require.NoError(t, err)
	t.Cleanup(s.Close)
	ctx := context.Background()
	for _, v := range []string{"vault-1", "vault-2"} {
		_, err = s.CreateKEK(ctx, testLoc.OrgID, v)
		require.NoError(t, err)
	}
	_, err = s.CreateKEK(ctx, testLoc.OrgID, "vault-1")
	require.NoError(t, err)
	var k1, k1again, k2, kv2 [ikSize]byte
	require.NoError(t, s.intermediateKey(ctx, testRef, ikGeneration, &k1))
	require.NoError(t, s.intermediateKey(ctx, keyvault.KeyRef{ID: kekID(testLoc.OrgID, "vault-2"), Version: 1}, ikGeneration, &k2))
	require.NoError(t, s.intermediateKey(ctx, keyvault.KeyRef{ID: testRef.ID, Version: 2}, ikGeneration, &kv2))
	require.NotEqual(t, k1, k2, "each vault has its own key")
	require.NotEqual(t, k1, kv2, "each KEK version has its own key")
	require.NotEqual(t, [ikSize]byte{}, k1)

	other, err := New(ks, Config{CacheSize: 16})
	require.NoError(t, err)
	t.Cleanup(other.Close)
	require.NoError(t, other.intermediateKey(ctx, testRef, ikGeneration, &k1again))
	require.Equal(t, k1, k1again, "another enclave on the same token derives the same key")

	sealed, err := s.Seal(ctx, testLoc, 1, []byte("v"))
	require.NoError(t, err)
	pt, err := other.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil)
	require.NoError(t, err)
	require.Equal(t, "v", string(pt))

	wraps := ks.wraps.Load()
	clk.add(IKTTL)
	pt, err = s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil)
	require.NoError(t, err)
	require.Equal(t, "v", string(pt))
	require.Equal(t, wraps+1, ks.wraps.Load(), "an expired key is derived again")
}

// TestOpenV3RefusesWrongKeys: a wrong intermediate key, a wrapped data key
// of another vault or another secret, and a blob moved across vaults all
// fail as ErrIntegrity, never as plaintext.
func TestOpenV3RefusesWrongKeys(t *testing.T) {
	s, _ := newTestSealer(t, 16)
	ctx := context.Background()
	sealed, err := s.Seal(ctx, testLoc, 0, []byte("vault-1 value"))
	require.NoError(t, err)
	loc2 := testLoc
	loc2.VaultID = "vault-2"
	sealed2, err := s.Seal(ctx, loc2, 0, []byte("vault-2 value"))
	require.NoError(t, err)

	tests := map[string]struct {
		loc     Locator
		wrapped []byte
		blob    []byte
	}{
		"fail wrapped dek of another vault":        {testLoc, sealed2.WrappedDEK, sealed.Ciphertext},
		"fail row of another vault moved here":     {testLoc, sealed2.WrappedDEK, sealed2.Ciphertext},
		"fail opened as another vault":             {loc2, sealed.WrappedDEK, sealed.Ciphertext},
		"fail wrapped dek cut short":               {testLoc, sealed.WrappedDEK[:40], sealed.Ciphertext},
		"fail legacy-length wrapped dek":           {testLoc, make([]byte, 40), sealed.Ciphertext},
		"fail secret type relabelled":              {testLoc, sealed.WrappedDEK, relabel(sealed.Ciphertext, "api_key")},
		"fail other secret version (AAD of value)": {Locator{OrgID: testLoc.OrgID, VaultID: testLoc.VaultID, Path: testLoc.Path, SecretVersion: 9}, sealed.WrappedDEK, sealed.Ciphertext},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			pt, err := s.Open(ctx, tc.loc, tc.wrapped, tc.blob, nil)
			require.ErrorIs(t, err, ErrIntegrity)
			require.Empty(t, pt)
		})
	}

	t.Run("fail wrong intermediate key", func(t *testing.T) {
		var wrong [ikSize]byte
		wrong[0] = 1
		s.iks.put(testRef, ikGeneration, &wrong)
		pt, err := s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil)
		require.ErrorIs(t, err, ErrIntegrity)
		require.Empty(t, pt)
		s.iks.drop(testRef)
		pt, err = s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil)
		require.NoError(t, err)
		require.Equal(t, "vault-1 value", string(pt))
	})
}

// TestKEKDestroyedWithIntermediateKeyCached: with the intermediate key in
// memory, a destroyed KEK refuses the next open AND the next seal
// (ErrKEKDestroyed), and the key is dropped and zeroised at once.
func TestKEKDestroyedWithIntermediateKeyCached(t *testing.T) {
	s, ks := newTestSealer(t, 16)
	ctx := context.Background()
	sealed, err := s.Seal(ctx, testLoc, 0, []byte("v"))
	require.NoError(t, err)
	require.Equal(t, 1, s.iks.len())
	entry := s.iks.m[ikKey{testRef, ikGeneration}]
	require.NotNil(t, entry)

	require.NoError(t, ks.DestroyKey(ctx, testRef))
	pt, err := s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil)
	require.ErrorIs(t, err, ErrKEKDestroyed)
	require.Empty(t, pt)
	require.Equal(t, 0, s.iks.len(), "the intermediate key is dropped")
	require.Equal(t, [ikSize]byte{}, entry.key, "and zeroised")

	// The vault has no KEK left: "the latest" is not found (a vault that
	// never had one looks the same); the named version is destroyed.
	_, err = s.Seal(ctx, testLoc, 0, []byte("w"))
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)
	_, err = s.Seal(ctx, testLoc, 1, []byte("w"))
	require.ErrorIs(t, err, ErrKEKDestroyed)

	// The seal sees the destruction first, too.
	loc2 := testLoc
	loc2.VaultID = "vault-2"
	_, err = s.Seal(ctx, loc2, 0, []byte("x"))
	require.NoError(t, err)
	require.NoError(t, ks.DestroyKey(ctx, keyvault.KeyRef{ID: kekID(loc2.OrgID, loc2.VaultID), Version: 1}))
	_, err = s.Seal(ctx, loc2, 1, []byte("x"))
	require.ErrorIs(t, err, ErrKEKDestroyed)
	require.Equal(t, 0, s.iks.len())
}

// TestSealAfterRotationAndDestroy: a remembered latest KEK version that was
// destroyed after a rotation is looked up again; the seal goes to the new
// version.
func TestSealAfterRotationAndDestroy(t *testing.T) {
	s, ks := newTestSealer(t, 16)
	ctx := context.Background()
	_, err := s.Seal(ctx, testLoc, 0, []byte("v"))
	require.NoError(t, err)
	// Another enclave rotates and destroys version 1 behind this one's back.
	other, err := New(ks, Config{})
	require.NoError(t, err)
	t.Cleanup(other.Close)
	v, err := other.CreateKEK(ctx, testLoc.OrgID, testLoc.VaultID)
	require.NoError(t, err)
	require.NoError(t, ks.DestroyKey(ctx, testRef))
	sealed, err := s.Seal(ctx, testLoc, 0, []byte("v"))
	require.NoError(t, err)
	require.Equal(t, v, sealed.KEKVersion)
}

func TestIKCacheBounded(t *testing.T) {
	clk := &fakeClock{t: time.Unix(1_700_000_000, 0)}
	c := newIKCache(2, IKTTL, clk.now)
	var k [ikSize]byte
	for v := uint32(1); v <= 5; v++ {
		k[0] = byte(v)
		c.put(keyvault.KeyRef{ID: "kek/o/v", Version: v}, ikGeneration, &k)
		require.LessOrEqual(t, c.len(), 2)
	}
	var got [ikSize]byte
	require.True(t, c.get(keyvault.KeyRef{ID: "kek/o/v", Version: 5}, ikGeneration, &got))
	require.Equal(t, byte(5), got[0])
	clk.add(IKTTL)
	require.False(t, c.get(keyvault.KeyRef{ID: "kek/o/v", Version: 5}, ikGeneration, &got))
	require.Nil(t, newIKCache(0, IKTTL, clk.now))
}
