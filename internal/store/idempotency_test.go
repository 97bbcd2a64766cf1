package store_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

func idemClaim(org, principal, key, body string) store.IdempotencyClaim {
	h := sha256.Sum256([]byte(body))
	return store.IdempotencyClaim{
		IdempotencyKey: store.IdempotencyKey{OrgID: org, PrincipalID: principal, Key: key},
		RequestHash:    h[:], TTL: 24 * time.Hour,
	}
}

// backdate moves a key's record into the past, as if it was stored age ago.
func backdate(t *testing.T, s *store.Store, k store.IdempotencyKey, age time.Duration) {
	t.Helper()
	_, err := s.Pool().Exec(context.Background(), `UPDATE idempotency_keys
		SET created_at = created_at - make_interval(secs => $4), expires_at = expires_at - make_interval(secs => $4)
		WHERE org_id = $1 AND principal_id = $2 AND key = $3`, k.OrgID, k.PrincipalID, k.Key, age.Seconds())
	require.NoError(t, err)
}

// hold begins c's idempotent transaction and requires that it holds the key.
func hold(t *testing.T, s *store.Store, c store.IdempotencyClaim) store.IdempotencyHold {
	t.Helper()
	h, _, err := s.BeginIdempotent(context.Background(), c, nil)
	require.NoError(t, err)
	require.NotNil(t, h, "the key must be free")
	t.Cleanup(func() { h.Rollback(context.Background()) })
	return h
}

// balance reads an organization's credit on a connection of its own.
func balance(t *testing.T, s *store.Store, org string) int64 {
	t.Helper()
	var b int64
	err := s.Pool().QueryRow(context.Background(), `SELECT balance_cents FROM org_credits WHERE org_id = $1`, org).Scan(&b)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0
	}
	require.NoError(t, err)
	return b
}

var answer = store.IdempotentResponse{Status: 201, Header: map[string][]string{"Content-Type": {"application/json"}}, Body: []byte(`{"id":"x"}`)}

func TestIdempotentAnswerCommitsWithTheEffect(t *testing.T) {
	s := storetest.New(t)
	org, _ := seedOrg(t, s)
	c := idemClaim(org, newID(), "k-1", "body")
	h := hold(t, s, c)
	ctx := h.Bind(context.Background())

	_, err := s.AddCredit(ctx, org, 100)
	require.NoError(t, err)
	require.Zero(t, balance(t, s, org), "the effect is invisible before the commit")
	busy, rec, err := s.BeginIdempotent(context.Background(), c, nil)
	require.NoError(t, err)
	require.Nil(t, busy, "the key is held")
	require.Equal(t, store.IdempotencyInFlight, rec.State)

	require.NoError(t, h.Finish(ctx, &answer))
	require.EqualValues(t, 100, balance(t, s, org))

	again, rec, err := s.BeginIdempotent(context.Background(), c, nil)
	require.NoError(t, err)
	require.Nil(t, again, "a stored answer is replayed, never run again")
	require.Equal(t, store.IdempotencyDone, rec.State)
	require.Equal(t, c.RequestHash, rec.RequestHash)
	require.Equal(t, answer.Status, rec.Response.Status)
	require.Equal(t, answer.Body, rec.Response.Body)
	require.Equal(t, answer.Header, rec.Response.Header)

	// After the commit the context's statements run on their own.
	_, err = s.AddCredit(ctx, org, 1)
	require.NoError(t, err)
	require.EqualValues(t, 101, balance(t, s, org))
}

func TestIdempotentRollbackLeavesNothing(t *testing.T) {
	s := storetest.New(t)
	org, _ := seedOrg(t, s)
	c := idemClaim(org, newID(), "k", "b")
	h := hold(t, s, c)
	ctx := h.Bind(context.Background())
	_, err := s.AddCredit(ctx, org, 100)
	require.NoError(t, err)
	h.Rollback(ctx) // as a crash before the commit does

	require.Zero(t, balance(t, s, org))
	h2 := hold(t, s, c) // the key is free at once: the retry runs normally
	require.NoError(t, h2.Finish(context.Background(), nil))
}

// A failed attempt (no answer stored) still commits what it wrote, such as
// a failed-sign-in counter and its audit event, and leaves the key free.
func TestIdempotentFinishWithoutAnswerKeepsSecurityState(t *testing.T) {
	s := storetest.New(t)
	user, org, _ := seedUser(t, s, "h")
	c := idemClaim(org, user, "k", "b")
	h := hold(t, s, c)
	ctx := h.Bind(context.Background())

	var stored atomic.Bool
	ev := event(org, "auth.token")
	ev.OnStored = func() { stored.Store(true) }
	_, err := s.RecordLoginFailure(ctx, user, 10, time.Hour, ev, nil)
	require.NoError(t, err)
	require.False(t, stored.Load(), "an event is stored only when the idempotent transaction commits")
	// A statement the database refuses does not undo the request's other writes.
	_, err = s.AddCredit(ctx, newID(), 5)
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.AddCredit(ctx, org, 7)
	require.NoError(t, err)

	require.NoError(t, h.Finish(ctx, nil))
	require.True(t, stored.Load())
	require.Equal(t, 1, countEvents(t, s, org, "auth.token"))
	require.EqualValues(t, 7, balance(t, s, org))
	var failed int
	require.NoError(t, s.Pool().QueryRow(context.Background(), `SELECT failed_logins FROM users WHERE id = $1`, user).Scan(&failed))
	require.Equal(t, 1, failed)
	hold(t, s, c) // no answer was stored: the key is free
}

func TestIdempotentEventDroppedOnRollback(t *testing.T) {
	s := storetest.New(t)
	user, org, _ := seedUser(t, s, "h")
	h := hold(t, s, idemClaim(org, user, "k", "b"))
	ctx := h.Bind(context.Background())
	var stored atomic.Bool
	ev := event(org, "auth.token")
	ev.OnStored = func() { stored.Store(true) }
	_, err := s.RecordLoginFailure(ctx, user, 10, time.Hour, ev, nil)
	require.NoError(t, err)
	h.Rollback(ctx)
	require.False(t, stored.Load())
	require.Equal(t, 0, countEvents(t, s, org, "auth.token"))
}

func TestCheckpointIdempotent(t *testing.T) {
	s := storetest.New(t)
	org, _ := seedOrg(t, s)
	c := idemClaim(org, newID(), "k", "b")
	var commits atomic.Int32
	h, _, err := s.BeginIdempotent(context.Background(), c, func() { commits.Add(1) })
	require.NoError(t, err)
	require.NotNil(t, h)
	ctx := h.Bind(context.Background())
	_, err = s.AddCredit(ctx, org, 100)
	require.NoError(t, err)

	provisional := store.IdempotentResponse{Status: 200, Body: []byte(`{"status":"signed"}`)}
	require.NoError(t, s.CheckpointIdempotent(ctx, provisional))
	require.EqualValues(t, 1, commits.Load(), "the test hook runs after the commit")
	require.EqualValues(t, 100, balance(t, s, org), "the checkpoint committed the effect")
	_, rec, err := s.BeginIdempotent(context.Background(), c, nil)
	require.NoError(t, err)
	require.Equal(t, provisional.Body, rec.Response.Body, "a retry after the checkpoint replays")

	_, err = s.AddCredit(ctx, org, 1) // after the checkpoint: on its own
	require.NoError(t, err)
	require.EqualValues(t, 101, balance(t, s, org))
	require.NoError(t, h.Finish(ctx, nil), "a failure after the checkpoint keeps its answer")
	_, rec, err = s.BeginIdempotent(context.Background(), c, nil)
	require.NoError(t, err)
	require.Equal(t, provisional.Body, rec.Response.Body)
	require.NoError(t, h.Finish(ctx, &answer), "the final answer replaces the provisional one")
	_, rec, err = s.BeginIdempotent(context.Background(), c, nil)
	require.NoError(t, err)
	require.Equal(t, answer.Body, rec.Response.Body)

	require.NoError(t, s.ForgetIdempotent(ctx))
	hold(t, s, c)
}

func TestIdempotentConcurrentHolders(t *testing.T) {
	s := storetest.New(t)
	org, user := newID(), newID()
	c := idemClaim(org, user, "k", "b")
	var wg sync.WaitGroup
	var holders atomic.Int32
	for range 20 {
		wg.Go(func() {
			h, rec, err := s.BeginIdempotent(context.Background(), c, nil)
			if err != nil {
				t.Error(err)
				return
			}
			if h == nil {
				if rec.State != store.IdempotencyInFlight && rec.State != store.IdempotencyDone {
					t.Errorf("unexpected state %q", rec.State)
				}
				return
			}
			holders.Add(1)
			if err := h.Finish(context.Background(), &answer); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	require.EqualValues(t, 1, holders.Load(), "one holder; every other request saw it in flight or replayed it")
}

func TestIdempotentExpiredAnswerRunsAgain(t *testing.T) {
	s := storetest.New(t)
	c := idemClaim(newID(), newID(), "k", "b")
	require.NoError(t, hold(t, s, c).Finish(context.Background(), &answer))
	backdate(t, s, c.IdempotencyKey, 25*time.Hour)
	require.NoError(t, hold(t, s, c).Finish(context.Background(), &answer))
}

func TestIdempotencyPurge(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, user := newID(), newID()
	ages := map[string]time.Duration{"fresh": 0, "day": 30 * time.Hour, "old": 49 * time.Hour, "older": 100 * time.Hour}
	for key, age := range ages {
		c := idemClaim(org, user, key, "b")
		require.NoError(t, hold(t, s, c).Finish(ctx, &answer))
		backdate(t, s, c.IdempotencyKey, age)
	}
	n, err := s.PurgeIdempotencyKeys(ctx, 48*time.Hour)
	require.NoError(t, err)
	require.EqualValues(t, 2, n)
	var left []string
	rows, err := s.Pool().Query(ctx, `SELECT key FROM idempotency_keys ORDER BY key`)
	require.NoError(t, err)
	defer rows.Close()
	for rows.Next() {
		var k string
		require.NoError(t, rows.Scan(&k))
		left = append(left, k)
	}
	require.NoError(t, rows.Err())
	require.Equal(t, []string{"day", "fresh"}, left)
}

func TestIdempotencyInvalidClaim(t *testing.T) {
	s := storetest.New(t)
	c := idemClaim(newID(), newID(), "k", "b")
	c.RequestHash = c.RequestHash[:8]
	_, _, err := s.BeginIdempotent(context.Background(), c, nil)
	require.Error(t, err)
}

// RecordEvent in an idempotent transaction stores the request's event once:
// not again when a write of the request already inserted it.
func TestRecordEventOncePerRequest(t *testing.T) {
	s := storetest.New(t)
	user, org, _ := seedUser(t, s, "h")
	h := hold(t, s, idemClaim(org, user, "k", "b"))
	ctx := h.Bind(context.Background())
	ev := event(org, "auth.token")
	_, err := s.RecordLoginFailure(ctx, user, 10, time.Hour, ev, nil)
	require.NoError(t, err)
	again := *ev
	require.NoError(t, s.RecordEvent(ctx, &again))
	other := event(org, "secret.write")
	require.NoError(t, s.RecordEvent(ctx, other))
	require.NoError(t, h.Finish(ctx, nil))
	require.Equal(t, 1, countEvents(t, s, org, "auth.token"))
	require.Equal(t, 1, countEvents(t, s, org, "secret.write"))
}
