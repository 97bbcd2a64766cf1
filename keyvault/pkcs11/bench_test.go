package pkcs11_test

import (
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

// Benchmarks run from all GOMAXPROCS goroutines against the default pool and
// report ops/s; run with: go test -run '^$' -bench . ./keyvault/pkcs11/

func BenchmarkUnwrap(b *testing.B) {
	s := newStore(b)
	kek := keyvault.KeyRef{ID: "kek/bench", Version: 1}
	_, err := s.CreateKey(b.Context(), keyvault.CreateKeyRequest{Ref: kek, Algorithm: keyvault.AES256})
	require.NoError(b, err)
	dek := make([]byte, 32)
	_, _ = rand.Read(dek)
	wrapped, err := s.WrapKey(b.Context(), kek, dek)
	require.NoError(b, err)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.UnwrapKey(b.Context(), kek, wrapped); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

func BenchmarkWrap(b *testing.B) {
	s := newStore(b)
	kek := keyvault.KeyRef{ID: "kek/bench", Version: 1}
	_, err := s.CreateKey(b.Context(), keyvault.CreateKeyRequest{Ref: kek, Algorithm: keyvault.AES256})
	require.NoError(b, err)
	dek := make([]byte, 32)
	_, _ = rand.Read(dek)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.WrapKey(b.Context(), kek, dek); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

func benchmarkSign(b *testing.B, alg keyvault.Algorithm) {
	s := newStore(b)
	ref := keyvault.KeyRef{ID: "sig/bench", Version: 1}
	_, err := s.CreateKey(b.Context(), keyvault.CreateKeyRequest{Ref: ref, Algorithm: alg})
	require.NoError(b, err)
	sg, err := s.Signer(b.Context(), ref)
	require.NoError(b, err)
	digest := make([]byte, 32)
	_, _ = rand.Read(digest)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := sg.SignDigest(b.Context(), digest); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}

func BenchmarkSignP256(b *testing.B)      { benchmarkSign(b, keyvault.P256) }
func BenchmarkSignSecp256k1(b *testing.B) { benchmarkSign(b, keyvault.Secp256k1) }
func BenchmarkSignEd25519(b *testing.B)   { benchmarkSign(b, keyvault.Ed25519) }

// BenchmarkMAC is HMAC-SHA256 of a 1 KiB message (a small policy set).
func BenchmarkMAC(b *testing.B) {
	s := newStore(b)
	ref := keyvault.KeyRef{ID: "mac/bench", Version: 1}
	_, err := s.CreateKey(b.Context(), keyvault.CreateKeyRequest{Ref: ref, Algorithm: keyvault.HMACSHA256})
	require.NoError(b, err)
	msg := make([]byte, 1024)
	_, _ = rand.Read(msg)
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := s.MAC(b.Context(), ref, msg); err != nil {
				b.Error(err)
				return
			}
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}
