package store_test

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

// countingSealer seals the version into the ciphertext (what the enclave's
// AAD binding amounts to) and counts its calls.
type countingSealer struct{ calls atomic.Int64 }

func (c *countingSealer) seal(_ context.Context, version uint32) (store.Sealed, error) {
	c.calls.Add(1)
	return store.Sealed{KEKVersion: 1, WrappedDEK: []byte("w"), Ciphertext: []byte{byte(version)}}, nil
}

// requireSealedAsWritten checks that the current version row carries the
// ciphertext sealed for its own version number.
func requireSealedAsWritten(t *testing.T, s *store.Store, org, vault, path string, want uint32) {
	t.Helper()
	got, sealed, err := s.GetSecret(context.Background(), org, vault, path)
	require.NoError(t, err)
	require.Equal(t, want, got.Version)
	require.Equal(t, []byte{byte(want)}, sealed.Ciphertext, "sealed for the version written")
}

// TestPutSecretGuessesVersion: a write seals once when the version is
// guessed right (a new secret, or the version this process wrote last), and
// when another replica wrote in between, or the secret was deleted, the
// write still seals for the version it writes.
func TestPutSecretGuessesVersion(t *testing.T) {
	dbURL := storetest.NewDatabase(t)
	ctx := context.Background()
	open := func() *store.Store {
		s, err := store.Open(ctx, dbURL, 4)
		require.NoError(t, err)
		t.Cleanup(s.Close)
		return s
	}
	a := open()
	require.NoError(t, a.Migrate(ctx))
	b := open() // another proxy replica
	org, vault := seedOrg(t, a)
	in := store.Secret{OrgID: org, VaultID: vault, Path: "p", Type: "password", Metadata: json.RawMessage(`{}`)}
	var c countingSealer
	put := func(s *store.Store, wantVersion uint32, wantCreated bool, wantSeals int64) {
		t.Helper()
		before := c.calls.Load()
		sec, created, err := s.PutSecret(ctx, in, c.seal, nil)
		require.NoError(t, err)
		require.Equal(t, wantVersion, sec.Version)
		require.Equal(t, wantCreated, created)
		require.Equal(t, wantSeals, c.calls.Load()-before, "seals")
		requireSealedAsWritten(t, s, org, vault, "p", wantVersion)
	}
	put(a, 1, true, 1)  // new secret: guessed right
	put(a, 2, false, 1) // a's own last version: guessed right
	put(b, 3, false, 2) // b guessed "new": the statement told it version 2
	put(a, 4, false, 2) // a's guess (2) is stale
	put(a, 5, false, 1)
	require.NoError(t, a.DeleteSecret(ctx, org, vault, "p", nil))
	put(a, 1, true, 2) // a guessed 5, the secret is gone: read afresh
	put(b, 2, false, 2)

	// The vault of another organization stays not found.
	other, _ := seedOrg(t, a)
	_, _, err := b.PutSecret(ctx, store.Secret{OrgID: other, VaultID: vault, Path: "p", Type: "password",
		Metadata: json.RawMessage(`{}`)}, c.seal, nil)
	require.ErrorIs(t, err, store.ErrNotFound)
}

// TestConcurrentReplicaWritesSealWhatTheyWrite: two replicas writing one
// secret concurrently give distinct versions, each sealed for its own.
func TestConcurrentReplicaWritesSealWhatTheyWrite(t *testing.T) {
	dbURL := storetest.NewDatabase(t)
	ctx := context.Background()
	var stores []*store.Store
	for range 2 {
		s, err := store.Open(ctx, dbURL, 8)
		require.NoError(t, err)
		t.Cleanup(s.Close)
		stores = append(stores, s)
	}
	require.NoError(t, stores[0].Migrate(ctx))
	org, vault := seedOrg(t, stores[0])
	const n = 24
	var wg sync.WaitGroup
	var mu sync.Mutex
	seen := map[uint32]bool{}
	var c countingSealer
	for i := range n {
		wg.Go(func() {
			s := stores[i%2]
			sec, _, err := s.PutSecret(ctx, store.Secret{OrgID: org, VaultID: vault, Path: "same", Type: "password",
				Metadata: json.RawMessage(`{}`)}, c.seal, nil)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if seen[sec.Version] {
				t.Errorf("version %d given twice", sec.Version)
			}
			seen[sec.Version] = true
		})
	}
	wg.Wait()
	require.Len(t, seen, n)
	requireSealedAsWritten(t, stores[1], org, vault, "same", n)
}
