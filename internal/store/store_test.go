package store_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

func newID() string { return uuid.Must(uuid.NewV7()).String() }

func event(org, action string) *auditchain.Event {
	return &auditchain.Event{OrgID: org, OccurredAt: time.Now().UTC(), RequestID: "req", ActorType: "user",
		ActorID: "u", Action: action, Resource: "r", Outcome: auditchain.OutcomeSuccess, Status: 200, ClientIP: "127.0.0.1"}
}

func seedOrg(t *testing.T, s *store.Store) (orgID, vaultID string) {
	t.Helper()
	ctx := context.Background()
	orgID = newID()
	_, err := s.CreateUserWithOrg(ctx, store.User{ID: newID(), Email: orgID + "@example.com", PasswordHash: "h"},
		orgID+"@example.com", store.Org{ID: orgID, Name: "o"}, event(orgID, "auth.signup"))
	require.NoError(t, err)
	v, err := s.CreateVault(ctx, store.Vault{OrgID: orgID, ID: newID(), Name: "v"},
		func(context.Context) (uint32, error) { return 1, nil }, event(orgID, "vault.create"))
	require.NoError(t, err)
	require.EqualValues(t, 1, v.KEKVersion)
	return orgID, v.ID
}

func sealer(tag string) store.SealFunc {
	return func(_ context.Context, version uint32) (store.Sealed, error) {
		return store.Sealed{KEKVersion: 1, WrappedDEK: []byte("w" + tag), Ciphertext: []byte{byte(version)}}, nil
	}
}

func TestSecrets(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, vault := seedOrg(t, s)
	other, _ := seedOrg(t, s)

	in := store.Secret{OrgID: org, VaultID: vault, Path: "prod/db", Type: "password", Metadata: json.RawMessage(`{}`)}
	sec, created, err := s.PutSecret(ctx, in, sealer("a"), func(bool) *auditchain.Event { return event(org, "secret.write") })
	require.NoError(t, err)
	require.True(t, created)
	require.EqualValues(t, 1, sec.Version)

	sec, created, err = s.PutSecret(ctx, in, sealer("b"), func(bool) *auditchain.Event { return event(org, "secret.write") })
	require.NoError(t, err)
	require.False(t, created)
	require.EqualValues(t, 2, sec.Version)

	got, sealed, err := s.GetSecret(ctx, org, vault, "prod/db")
	require.NoError(t, err)
	require.EqualValues(t, 2, got.Version)
	require.Equal(t, []byte("wb"), sealed.WrappedDEK)

	// Another organization never sees the vault or the secret.
	_, _, err = s.GetSecret(ctx, other, vault, "prod/db")
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.GetVault(ctx, other, vault)
	require.ErrorIs(t, err, store.ErrNotFound)
	_, _, err = s.PutSecret(ctx, store.Secret{OrgID: other, VaultID: vault, Path: "x", Type: "password", Metadata: json.RawMessage(`{}`)},
		sealer("c"), nil)
	require.ErrorIs(t, err, store.ErrNotFound)

	list, err := s.ListSecrets(ctx, org, vault, "", "", 10)
	require.NoError(t, err)
	require.Len(t, list, 1)

	require.NoError(t, s.DeleteSecret(ctx, org, vault, "prod/db", event(org, "secret.delete")))
	require.ErrorIs(t, s.DeleteSecret(ctx, org, vault, "prod/db", nil), store.ErrNotFound)
}

func TestConcurrentWritesGetDistinctVersions(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, vault := seedOrg(t, s)
	const n = 16
	var wg sync.WaitGroup
	versions := make(chan uint32, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sec, _, err := s.PutSecret(ctx, store.Secret{OrgID: org, VaultID: vault, Path: "same", Type: "password",
				Metadata: json.RawMessage(`{}`)}, sealer("x"), nil)
			if err != nil {
				t.Error(err)
				return
			}
			versions <- sec.Version
		}()
	}
	wg.Wait()
	close(versions)
	seen := map[uint32]bool{}
	for v := range versions {
		require.False(t, seen[v], "version %d given twice", v)
		seen[v] = true
	}
	require.Len(t, seen, n)
}

func TestVaultNameUnique(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	_, err := s.CreateVault(ctx, store.Vault{OrgID: org, ID: newID(), Name: "v"},
		func(context.Context) (uint32, error) { t.Fatal("KEK made for a duplicate name"); return 0, nil }, nil)
	require.ErrorIs(t, err, store.ErrConflict)
}

func TestSealChain(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	require.NoError(t, s.InsertEvents(ctx, []*auditchain.Event{event(org, "secret.read"), event(org, "secret.read")}))
	head, n, err := s.SealChain(ctx, org, 1000)
	require.NoError(t, err)
	require.Equal(t, 2, n)              // the reads were chained as inserted
	require.EqualValues(t, 4, head.Seq) // signup, vault.create and two reads

	evs, err := s.ChainEvents(ctx, org, 0, 100)
	require.NoError(t, err)
	w := auditchain.NewWalker(org)
	for _, e := range evs {
		require.NoError(t, w.Next(e))
	}
	require.Equal(t, head.Hash, w.LastHash())

	// Sealing again with nothing new changes nothing.
	_, n, err = s.SealChain(ctx, org, 1000)
	require.NoError(t, err)
	require.Zero(t, n)
}
