//go:build cgo

package envelope

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/pkcs11"
	"github.com/opencustody/ocv/keyvault/pkcs11/softhsmtest"
)

// softhsmSealer is a Sealer over a private SoftHSM2 token with one vault.
func softhsmSealer(b *testing.B) *Sealer {
	b.Helper()
	ks, err := pkcs11.New(context.Background(), softhsmtest.New(b))
	require.NoError(b, err)
	b.Cleanup(func() { _ = ks.Close() })
	s, err := New(ks, Config{CacheSize: DefaultCacheSize})
	require.NoError(b, err)
	b.Cleanup(s.Close)
	_, err = s.CreateKEK(context.Background(), testLoc.OrgID, testLoc.VaultID)
	require.NoError(b, err)
	return s
}

// BenchmarkSealSoftHSM compares a seal before intermediate keys (version 2:
// a fresh data key wrapped in the HSM, three PKCS#11 calls) with a seal now
// (version 3: one KEK liveness check, the data key wrapped in the enclave),
// and the opens of each with their keys cached. Run with
// go test -run '^$' -bench SoftHSM ./enclave/internal/envelope/.
func BenchmarkSealSoftHSM(b *testing.B) {
	ctx := context.Background()
	value := []byte("a database password of ordinary length")
	b.Run("seal/v2-hsm-wrap", func(b *testing.B) {
		s := softhsmSealer(b)
		for b.Loop() {
			sealV2Bench(b, s, value)
		}
	})
	b.Run("seal/v3-intermediate-key", func(b *testing.B) {
		s := softhsmSealer(b)
		for b.Loop() {
			if _, err := s.Seal(ctx, testLoc, 0, value); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("seal-parallel/v2-hsm-wrap", func(b *testing.B) {
		s := softhsmSealer(b)
		b.SetParallelism(8) // 16 goroutines on 2 cores, like c=16
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				sealV2Bench(b, s, value)
			}
		})
	})
	b.Run("seal-parallel/v3-intermediate-key", func(b *testing.B) {
		s := softhsmSealer(b)
		cc := &countingChecker{KeyChecker: s.chk}
		s.chk = cc
		b.SetParallelism(8) // 16 goroutines on 2 cores, like c=16
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := s.Seal(ctx, testLoc, 0, value); err != nil {
					b.Error(err)
					return
				}
			}
		})
		b.ReportMetric(float64(cc.n.Load())/float64(b.N), "hsm-checks/op")
	})
	b.Run("kek-check", func(b *testing.B) {
		s := softhsmSealer(b)
		ref := testRef
		for b.Loop() {
			if err := s.chk.CheckKey(ctx, ref); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("open/v2-dek-cached", func(b *testing.B) {
		s := softhsmSealer(b)
		sealed := sealV2Bench(b, s, value)
		for b.Loop() {
			if _, err := s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("open/v3-intermediate-key", func(b *testing.B) {
		s := softhsmSealer(b)
		sealed, err := s.Seal(ctx, testLoc, 0, value)
		require.NoError(b, err)
		for b.Loop() {
			if _, err := s.Open(ctx, testLoc, sealed.WrappedDEK, sealed.Ciphertext, nil); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// countingChecker counts the KEK checks that reach the key store.
type countingChecker struct {
	keyvault.KeyChecker
	n atomic.Int64
}

func (c *countingChecker) CheckKey(ctx context.Context, ref keyvault.KeyRef) error {
	c.n.Add(1)
	return c.KeyChecker.CheckKey(ctx, ref)
}

// sealV2Bench is the version-2 seal the enclave did before intermediate
// keys, kept here to measure against.
func sealV2Bench(b *testing.B, s *Sealer, value []byte) Sealed {
	b.Helper()
	return sealV2TB(b, s, testLoc, "", value)
}
