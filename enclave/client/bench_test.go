package client_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
)

// BenchmarkOpen measures one Open through client → Unix socket → enclave
// (memstore key store, DEK cache warm), 256-byte value.
func BenchmarkOpen(b *testing.B) {
	e := newEnv(b)
	e.start(b)
	c := e.client(b, testPCR0)
	waitAttested(b, c)
	ctx := context.Background()
	_, err := c.CreateKEK(ctx, "org", "vault")
	require.NoError(b, err)
	sealed, err := c.Seal(ctx, wire.SealRequest{OrgID: "org", VaultID: "vault", Path: "bench/value", SecretVersion: 1, Plaintext: bytes.Repeat([]byte{'x'}, 256)})
	require.NoError(b, err)
	req := wire.OpenRequest{OrgID: "org", VaultID: "vault", Path: "bench/value", SecretVersion: 1, WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext}

	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Open(ctx, req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				if _, err := c.Open(ctx, req); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}
