package envelope

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

var testKEK = keyvault.KeyRef{ID: "kek/a", Version: 1}

func TestDEKCacheDropKEK(t *testing.T) {
	c := newDEKCache(8, CacheTTL, (&fakeClock{}).now)
	other := keyvault.KeyRef{ID: "kek/a", Version: 2}
	k1, k2, k3 := makeCacheKey("kek/a", 1, []byte("1")), makeCacheKey("kek/a", 1, []byte("2")), makeCacheKey("kek/a", 2, []byte("3"))
	c.put(k1, testKEK, dekOf(1))
	c.put(k2, testKEK, dekOf(2))
	c.put(k3, other, dekOf(3))
	dropped := c.items[k1].Value.(*cacheEntry)

	require.Equal(t, 2, c.dropKEK(testKEK))
	require.Equal(t, [dekSize]byte{}, dropped.dek, "a dropped key is zeroised")
	var got [dekSize]byte
	require.False(t, c.get(k1, &got))
	require.False(t, c.get(k2, &got))
	require.True(t, c.get(k3, &got), "another KEK version keeps its entries")
	require.Equal(t, 0, c.dropKEK(testKEK))
}

// TestOpenAfterKEKDestroyed: a value whose DEK is cached is refused at the
// next Open once its KEK version is destroyed, and says so
// (ErrKEKDestroyed, not ErrIntegrity); other KEK versions go on opening.
func TestOpenAfterKEKDestroyed(t *testing.T) {
	for name, size := range map[string]int{"cache on": 16, "cache off": 0} {
		t.Run(name, func(t *testing.T) {
			s, ks := newTestSealer(t, size)
			ctx := context.Background()
			v1, err := s.Seal(ctx, testLoc, 0, []byte("one"))
			require.NoError(t, err)
			_, err = s.CreateKEK(ctx, testLoc.OrgID, testLoc.VaultID)
			require.NoError(t, err)
			v2, err := s.Seal(ctx, testLoc, 0, []byte("two"))
			require.NoError(t, err)
			for _, sealed := range []Sealed{v1, v2} {
				_, err := s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil)
				require.NoError(t, err)
			}

			require.NoError(t, ks.DestroyKey(ctx, keyvault.KeyRef{ID: kekID(testLoc.OrgID, testLoc.VaultID), Version: 1}))
			pt, err := s.Open(ctx, testLoc, v1.WrappedDEK, v1.Ciphertext, nil)
			require.ErrorIs(t, err, ErrKEKDestroyed)
			require.NotErrorIs(t, err, ErrIntegrity)
			require.Empty(t, pt)
			require.Equal(t, 0, s.cache.dropKEK(keyvault.KeyRef{ID: kekID(testLoc.OrgID, testLoc.VaultID), Version: 1}),
				"the failed Open dropped the version's cached keys")
			pt, err = s.Open(ctx, testLoc, v2.WrappedDEK, v2.Ciphertext, nil)
			require.NoError(t, err)
			require.Equal(t, "two", string(pt))

			// Every version gone (the vault's keys destroyed, or the token
			// lost): still ErrKEKDestroyed.
			require.NoError(t, ks.DestroyKey(ctx, keyvault.KeyRef{ID: kekID(testLoc.OrgID, testLoc.VaultID), Version: 2}))
			_, err = s.Open(ctx, testLoc, v2.WrappedDEK, v2.Ciphertext, nil)
			require.ErrorIs(t, err, ErrKEKDestroyed)
		})
	}
}

// TestOpenForgedKEKVersion: a blob naming a version above every version the
// store holds names a key that never existed: tampering, ErrIntegrity.
func TestOpenForgedKEKVersion(t *testing.T) {
	s, _ := newTestSealer(t, 16)
	ctx := context.Background()
	sealed, err := s.Seal(ctx, testLoc, 0, []byte("x"))
	require.NoError(t, err)
	forged := append([]byte{}, sealed.Ciphertext...)
	forged[4] = 9 // the low byte of the big-endian KEK version
	_, err = s.Open(ctx, testLoc, sealed.WrappedDEK, forged, nil)
	require.ErrorIs(t, err, ErrIntegrity)
}

// uncheckedStore is memstore without the KeyChecker capability.
type uncheckedStore struct {
	keyvault.KeyStore
	keyvault.KeyWrapper
}

// TestNoCacheWithoutKeyChecker: a store that cannot say whether a KEK still
// exists gets no DEK cache, so a destroyed KEK is noticed by the unwrap.
func TestNoCacheWithoutKeyChecker(t *testing.T) {
	ks := newCountingStore(t)
	s, err := New(uncheckedStore{ks, ks}, Config{CacheSize: 16})
	require.NoError(t, err)
	defer s.Close()
	require.Nil(t, s.cache)
	ctx := context.Background()
	_, err = s.CreateKEK(ctx, testLoc.OrgID, testLoc.VaultID)
	require.NoError(t, err)
	require.Nil(t, s.iks)
	legacy := sealV2(t, s, testLoc, "", []byte("x"))
	sealed, err := s.Seal(ctx, testLoc, 0, []byte("x"))
	require.NoError(t, err)
	wraps := ks.wraps.Load()
	for range 2 {
		_, err = s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil)
		require.NoError(t, err)
		_, err = s.Open(ctx, testLoc, legacy.WrappedDEK, legacy.Ciphertext, nil)
		require.NoError(t, err)
	}
	require.Equal(t, 2, ks.unwrapCount())
	require.Equal(t, wraps+2, ks.wraps.Load(), "the intermediate key is derived again for every open")
}
