package envelope

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/memstore"
)

// countingStore is memstore with a count of UnwrapKey calls, to see the
// DEK cache at work.
type countingStore struct {
	*memstore.Store
	unwraps atomic.Int64
	wraps   atomic.Int64
	checks  atomic.Int64
}

func (c *countingStore) WrapKey(ctx context.Context, kek keyvault.KeyRef, dek []byte) ([]byte, error) {
	c.wraps.Add(1)
	return c.Store.WrapKey(ctx, kek, dek)
}

func (c *countingStore) CheckKey(ctx context.Context, ref keyvault.KeyRef) error {
	c.checks.Add(1)
	return c.Store.CheckKey(ctx, ref)
}

func newCountingStore(t testing.TB) *countingStore {
	t.Helper()
	ms, err := memstore.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = ms.Close() })
	return &countingStore{Store: ms}
}

func (c *countingStore) UnwrapKey(ctx context.Context, kek keyvault.KeyRef, wrapped []byte) ([]byte, error) {
	c.unwraps.Add(1)
	return c.Store.UnwrapKey(ctx, kek, wrapped)
}

func (c *countingStore) unwrapCount() int { return int(c.unwraps.Load()) }

// noWrapStore is a KeyStore without the KeyWrapper capability.
type noWrapStore struct{ keyvault.KeyStore }
