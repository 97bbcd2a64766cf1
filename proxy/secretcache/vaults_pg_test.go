package secretcache

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"log/slog"
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

// replica is one proxy's view: its cache, listening, over the shared store.
func replica(t *testing.T, db *store.Store) Vaults {
	t.Helper()
	c := New(Config{MaxEntries: 100, MaxBytes: 1 << 20})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Run(ctx, StoreFeed(db), c, 10*time.Millisecond, slog.New(slog.DiscardHandler)) }()
	t.Cleanup(func() { cancel(); <-done })
	deadline := time.Now().Add(10 * time.Second)
	for {
		c.mu.Lock()
		live := c.live
		c.mu.Unlock()
		if live {
			return Vaults{Store: db, Cache: c}
		}
		require.True(t, time.Now().Before(deadline), "change feed not started after 10 s")
		time.Sleep(10 * time.Millisecond)
	}
}

// TestVaultsOverPostgreSQL checks the cache against the database's own
// change log: two replicas, writers that bypass them, idempotent
// transactions (their uncommitted writes are never cached), deletions.
func TestVaultsOverPostgreSQL(t *testing.T) {
	db := storetest.New(t)
	ctx := context.Background()
	org := newID()
	_, err := db.CreateUserWithOrg(ctx, store.User{ID: newID(), Email: org + "@example.com", PasswordHash: "h"},
		org+"@example.com", store.Org{ID: org, Name: "o"}, event(org, "auth.signup"))
	require.NoError(t, err)
	v, err := db.CreateVault(ctx, store.Vault{OrgID: org, ID: newID(), Name: "v"},
		func(context.Context) (uint32, error) { return 1, nil }, event(org, "vault.create"))
	require.NoError(t, err)
	vault := v.ID

	a, b := replica(t, db), replica(t, db)
	in := store.Secret{OrgID: org, VaultID: vault, Path: "app/key", Type: "password", Metadata: json.RawMessage(`{}`)}
	write := func(w interface {
		PutSecret(context.Context, store.Secret, store.SealFunc, func(bool) *auditchain.Event) (store.Secret, bool, error)
	}, ctx context.Context, tag string) uint32 {
		t.Helper()
		sec, _, err := w.PutSecret(ctx, in, func(_ context.Context, version uint32) (store.Sealed, error) {
			return store.Sealed{KEKVersion: 1, WrappedDEK: []byte("wrapped"), Ciphertext: []byte(tag)}, nil
		}, func(bool) *auditchain.Event { return event(org, "secret.write") })
		require.NoError(t, err)
		return sec.Version
	}
	read := func(r Vaults, ctx context.Context) (string, error) {
		_, sealed, err := r.GetSecret(ctx, org, vault, in.Path)
		return string(sealed.Ciphertext), err
	}
	eventually := func(r Vaults, want string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for {
			got, err := read(r, ctx)
			if want == "" && errors.Is(err, store.ErrNotFound) || err == nil && got == want {
				return
			}
			require.True(t, time.Now().Before(deadline), "still %q (%v) after 10 s, want %q", got, err, want)
			time.Sleep(5 * time.Millisecond)
		}
	}

	write(a, ctx, "one")
	eventually(b, "one")
	// A fill racing the feed's sight of the write itself is refused: the key is
	// cached by one of the next reads.
	for deadline := time.Now().Add(10 * time.Second); b.Cache.cfg.Hits.Load() == 0; {
		got, err := read(b, ctx)
		require.NoError(t, err)
		require.Equal(t, "one", got)
		require.True(t, time.Now().Before(deadline), "b never served the key from its cache")
	}

	t.Run("a writer that bypasses every cache is announced", func(t *testing.T) {
		write(db, ctx, "two")
		eventually(a, "two")
		eventually(b, "two")
	})

	t.Run("a replica reads its own writes at once", func(t *testing.T) {
		write(a, ctx, "three")
		got, err := read(a, ctx)
		require.NoError(t, err)
		require.Equal(t, "three", got)
	})

	claim := func(key string) store.IdempotencyClaim {
		h := sha256.Sum256([]byte(key))
		return store.IdempotencyClaim{IdempotencyKey: store.IdempotencyKey{OrgID: org, PrincipalID: org, Key: key},
			RequestHash: h[:], TTL: time.Hour}
	}

	t.Run("an uncommitted write read in its own transaction is never cached", func(t *testing.T) {
		eventually(a, "three")
		hold, _, err := db.BeginIdempotent(ctx, claim("rolled-back"), nil)
		require.NoError(t, err)
		bound := hold.Bind(ctx)
		write(a, bound, "uncommitted")
		got, err := read(a, bound)
		require.NoError(t, err)
		require.Equal(t, "uncommitted", got, "the transaction sees its own write")
		got, err = read(a, ctx)
		require.NoError(t, err)
		require.Equal(t, "three", got, "others do not")
		hold.Rollback(ctx)
		for range 3 {
			got, err = read(a, ctx)
			require.NoError(t, err)
			require.Equal(t, "three", got)
		}
	})

	t.Run("an idempotent write is read at once after its commit", func(t *testing.T) {
		hold, _, err := db.BeginIdempotent(ctx, claim("committed"), nil)
		require.NoError(t, err)
		write(a, hold.Bind(ctx), "four")
		got, err := read(a, ctx) // before the commit: the key is held, read from the database
		require.NoError(t, err)
		require.Equal(t, "three", got)
		// b serves the committed version from its cache while the
		// transaction stays open across many polls; the feed must still
		// see it when it commits, later than transactions begun after it.
		hits := b.Cache.cfg.Hits.Load()
		for deadline := time.Now().Add(10 * time.Second); b.Cache.cfg.Hits.Load() < hits+3; {
			got, err := read(b, ctx)
			require.NoError(t, err)
			require.Equal(t, "three", got)
			require.True(t, time.Now().Before(deadline), "b never served the key from its cache")
			time.Sleep(10 * time.Millisecond)
		}
		other := in
		other.Path = "app/other" // a transaction begun later commits first
		_, _, err = db.PutSecret(ctx, other, func(context.Context, uint32) (store.Sealed, error) {
			return store.Sealed{KEKVersion: 1, WrappedDEK: []byte("w"), Ciphertext: []byte("x")}, nil
		}, nil)
		require.NoError(t, err)
		time.Sleep(50 * time.Millisecond) // polls see it; the open transaction's xid stays in their snapshots
		require.NoError(t, hold.Finish(ctx, nil))
		got, err = read(a, ctx)
		require.NoError(t, err)
		require.Equal(t, "four", got)
		eventually(b, "four")
	})

	t.Run("deletions are announced", func(t *testing.T) {
		eventually(b, "four")
		require.NoError(t, a.DeleteSecret(ctx, org, vault, in.Path, event(org, "secret.delete")))
		_, err := read(a, ctx)
		require.ErrorIs(t, err, store.ErrNotFound)
		eventually(b, "")

		write(a, ctx, "five")
		eventually(b, "five")
		require.NoError(t, db.DeleteVault(ctx, org, vault, event(org, "vault.delete")))
		eventually(a, "")
		eventually(b, "")
	})
}
