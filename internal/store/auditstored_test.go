package store_test

import (
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

// TestWriteMarksItsEventStored: a write that records its audit event tells
// the event it is stored once its transaction commits, and never when the
// transaction rolls back (the audit middleware would then drop the event).
func TestWriteMarksItsEventStored(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, vault := seedOrg(t, s)

	tests := map[string]struct {
		seal       store.SealFunc
		wantStored bool
	}{
		"committed write": {seal: sealer("a"), wantStored: true},
		// The seal fails inside the transaction after the event is queued:
		// nothing commits, so the event must not count as stored.
		"fail rolled back": {seal: func(context.Context, uint32) (store.Sealed, error) {
			return store.Sealed{}, errors.New("enclave unavailable")
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			stored := 0
			ev := event(org, "secret.write")
			ev.OnStored = func() { stored++ }
			_, _, err := s.PutSecret(ctx, store.Secret{OrgID: org, VaultID: vault, Path: "p/" + name, Type: "generic",
				Metadata: []byte("{}")}, tc.seal, func(bool) *auditchain.Event { return ev })
			if tc.wantStored {
				require.NoError(t, err)
				require.Equal(t, 1, stored)
			} else {
				require.Error(t, err)
				require.Zero(t, stored)
			}
		})
	}
}

// verifyChain walks org's whole chain and returns its length.
func verifyChain(t *testing.T, s *store.Store, org string) int64 {
	t.Helper()
	w := auditchain.NewWalker(org)
	for {
		evs, err := s.ChainEvents(context.Background(), org, w.Seq(), 500)
		require.NoError(t, err)
		if len(evs) == 0 {
			return w.Seq()
		}
		for _, e := range evs {
			require.NoError(t, w.Next(e))
		}
	}
}

// TestInsertEventsChainsConcurrently: batches of several writers (as
// several proxy replicas would send), mixed organizations and the sealer
// chaining a write's unsealed events at the same time, number each chain
// gap-free and uniquely, with hashes that verify.
func TestInsertEventsChainsConcurrently(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	orgA, _ := seedOrg(t, s)
	orgB, _ := seedOrg(t, s)
	fresh := newID() // no tip yet: its first batches race to start the chain

	const writers, batches = 6, 15
	var wg sync.WaitGroup
	errs := make(chan error, writers*batches+2*batches)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range batches {
				// Orgs in varying order within a batch: the tips are
				// still locked in one order, so batches cannot deadlock.
				evs := []*auditchain.Event{event(orgB, "secret.read"), event(fresh, "auth.login"), event(orgA, "secret.read")}
				if (w+i)%2 == 0 {
					evs = []*auditchain.Event{event(orgA, "secret.read"), event(orgA, "vault.read"), event(fresh, "auth.login"), event(orgB, "secret.read")}
				}
				errs <- s.InsertEvents(ctx, evs)
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range batches {
			_, err := s.CreateVault(ctx, store.Vault{OrgID: orgA, ID: newID(), Name: newID()},
				func(context.Context) (uint32, error) { return 1, nil }, event(orgA, "vault.create"))
			errs <- err
			_, _, err = s.SealChain(ctx, orgA, 1000)
			errs <- err
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	_, _, err := s.SealChain(ctx, orgA, 1000)
	require.NoError(t, err)
	_, _, err = s.SealChain(ctx, orgB, 1000)
	require.NoError(t, err)

	reads := int64(writers*batches/2*2 + writers*batches/2)
	require.EqualValues(t, 2+reads+batches, verifyChain(t, s, orgA))
	require.EqualValues(t, 2+writers*batches, verifyChain(t, s, orgB))
	require.EqualValues(t, writers*batches, verifyChain(t, s, fresh))
}

// TestInsertEventsOrgSpelling: an organization id spelled in capitals
// still joins the chain the database keeps under its canonical spelling,
// and its hash is computed over that spelling.
func TestInsertEventsOrgSpelling(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	evs := []*auditchain.Event{event(strings.ToUpper(org), "secret.read"), event(org, "secret.read")}
	require.NoError(t, s.InsertEvents(ctx, evs))
	require.Equal(t, org, evs[0].OrgID)
	require.Equal(t, evs[0].ChainSeq+1, evs[1].ChainSeq)
	_, _, err := s.SealChain(ctx, org, 1000)
	require.NoError(t, err)
	require.EqualValues(t, 4, verifyChain(t, s, org))
}

// TestInsertEventsAllOrNothing: a batch with one bad event stores none
// and leaves every chain tip where it was.
func TestInsertEventsAllOrNothing(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	require.NoError(t, s.InsertEvents(ctx, []*auditchain.Event{event(org, "secret.read")}))
	bad := event(org, "secret.read")
	bad.Resource = "nul\x00byte" // PostgreSQL refuses NUL in text
	require.Error(t, s.InsertEvents(ctx, []*auditchain.Event{event(org, "secret.read"), bad}))
	require.NoError(t, s.InsertEvents(ctx, []*auditchain.Event{event(org, "secret.read")}))
	_, _, err := s.SealChain(ctx, org, 1000)
	require.NoError(t, err)
	require.EqualValues(t, 4, verifyChain(t, s, org))
}

// TestMigration29Upgrade: a database from before chained inserts, with a
// sealed prefix and unsealed events (one organization never sealed at
// all), takes migration 0029 again without harm, and every chain goes on
// from its last sealed event and verifies.
func TestMigration29Upgrade(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	sealed, _ := seedOrg(t, s)
	_, n, err := s.SealChain(ctx, sealed, 1) // a sealed prefix of one event
	require.NoError(t, err)
	require.Equal(t, 1, n)
	unsealed, _ := seedOrg(t, s)
	sql, err := os.ReadFile("migrations/0029_audit_chained_insert.sql")
	require.NoError(t, err)
	_, err = s.Pool().Exec(ctx, string(sql))
	require.NoError(t, err)
	var tips int
	require.NoError(t, s.Pool().QueryRow(ctx, `SELECT count(*) FROM audit_chain_state WHERE org_id = ANY($1::uuid[]) AND
		last_seq = CASE WHEN org_id = $2::uuid THEN 1 ELSE 0 END`, []string{sealed, unsealed}, sealed).Scan(&tips))
	require.Equal(t, 2, tips)

	require.NoError(t, s.InsertEvents(ctx, []*auditchain.Event{event(sealed, "secret.read"), event(unsealed, "secret.read")}))
	for _, org := range []string{sealed, unsealed} {
		_, _, err := s.SealChain(ctx, org, 1000)
		require.NoError(t, err)
		require.EqualValues(t, 3, verifyChain(t, s, org))
	}
}
