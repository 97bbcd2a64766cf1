package store_test

import (
	"context"
	"crypto/sha256"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

func idemClaim(org, principal, key, body string) store.IdempotencyClaim {
	h := sha256.Sum256([]byte(body))
	return store.IdempotencyClaim{
		IdempotencyKey: store.IdempotencyKey{OrgID: org, PrincipalID: principal, Key: key},
		RequestHash:    h[:], TTL: 24 * time.Hour, StaleAfter: 5 * time.Minute,
	}
}

// backdate moves a key's record into the past, as if it was claimed age ago.
func backdate(t *testing.T, s *store.Store, k store.IdempotencyKey, age time.Duration) {
	t.Helper()
	_, err := s.Pool().Exec(context.Background(), `UPDATE idempotency_keys
		SET created_at = created_at - make_interval(secs => $4), expires_at = expires_at - make_interval(secs => $4)
		WHERE org_id = $1 AND principal_id = $2 AND key = $3`, k.OrgID, k.PrincipalID, k.Key, age.Seconds())
	require.NoError(t, err)
}

func TestIdempotencyClaimCompleteReplay(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, user := newID(), newID()
	c := idemClaim(org, user, "k-1", "body")

	rec, won, err := s.ClaimIdempotencyKey(ctx, c)
	require.NoError(t, err)
	require.True(t, won)
	require.Equal(t, store.IdempotencyInFlight, rec.State)
	require.NotEmpty(t, rec.ClaimID)
	require.WithinDuration(t, rec.CreatedAt.Add(24*time.Hour), rec.ExpiresAt, time.Second)

	again, won, err := s.ClaimIdempotencyKey(ctx, c)
	require.NoError(t, err)
	require.False(t, won, "in flight")
	require.Equal(t, store.IdempotencyInFlight, again.State)
	require.Equal(t, c.RequestHash, again.RequestHash)

	resp := store.IdempotentResponse{Status: 201, Header: map[string][]string{"Content-Type": {"application/json"}}, Body: []byte(`{"id":1}`)}
	require.ErrorIs(t, s.CompleteIdempotencyKey(ctx, c.IdempotencyKey, newID(), resp), store.ErrNotFound, "another claim")
	require.NoError(t, s.CompleteIdempotencyKey(ctx, c.IdempotencyKey, rec.ClaimID, resp))
	require.ErrorIs(t, s.CompleteIdempotencyKey(ctx, c.IdempotencyKey, rec.ClaimID, resp), store.ErrNotFound, "already done")

	done, won, err := s.ClaimIdempotencyKey(ctx, c)
	require.NoError(t, err)
	require.False(t, won)
	require.Equal(t, store.IdempotencyDone, done.State)
	require.Equal(t, resp, done.Response)

	// The same key of another principal or organization is another key.
	for name, other := range map[string]store.IdempotencyClaim{
		"other principal": idemClaim(org, newID(), "k-1", "body"),
		"other org":       idemClaim(newID(), user, "k-1", "body"),
	} {
		_, won, err := s.ClaimIdempotencyKey(ctx, other)
		require.NoError(t, err, name)
		require.True(t, won, name)
	}
}

func TestIdempotencyClaimAtomic(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	c := idemClaim(newID(), newID(), "race", "body")
	const n = 20
	var wg sync.WaitGroup
	wins := make(chan string, n)
	errs := make(chan error, n)
	start := make(chan struct{})
	for range n {
		wg.Go(func() {
			<-start
			rec, won, err := s.ClaimIdempotencyKey(ctx, c)
			if err != nil {
				errs <- err
				return
			}
			if won {
				wins <- rec.ClaimID
			}
		})
	}
	close(start)
	wg.Wait()
	close(wins)
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	require.Len(t, wins, 1, "exactly one claim wins")
}

func TestIdempotencyTakeover(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tests := map[string]struct {
		complete bool
		age      time.Duration
		wantWon  bool
	}{
		"in flight, fresh":          {age: time.Minute},
		"in flight, stale":          {age: 6 * time.Minute, wantWon: true}, // its request crashed
		"done, inside the window":   {complete: true, age: 23 * time.Hour},
		"done, expired not purged":  {complete: true, age: 25 * time.Hour, wantWon: true},
		"in flight, expired (dead)": {age: 25 * time.Hour, wantWon: true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c := idemClaim(newID(), newID(), "k", "first")
			first, won, err := s.ClaimIdempotencyKey(ctx, c)
			require.NoError(t, err)
			require.True(t, won)
			if tc.complete {
				require.NoError(t, s.CompleteIdempotencyKey(ctx, c.IdempotencyKey, first.ClaimID, store.IdempotentResponse{Status: 200}))
			}
			backdate(t, s, c.IdempotencyKey, tc.age)

			second := idemClaim(c.OrgID, c.PrincipalID, c.Key, "second")
			rec, won, err := s.ClaimIdempotencyKey(ctx, second)
			require.NoError(t, err)
			require.Equal(t, tc.wantWon, won)
			if !tc.wantWon {
				require.Equal(t, c.RequestHash, rec.RequestHash)
				return
			}
			require.Equal(t, second.RequestHash, rec.RequestHash)
			require.NotEqual(t, first.ClaimID, rec.ClaimID)
			// The first holder lost its claim: it can neither complete nor release.
			require.ErrorIs(t, s.CompleteIdempotencyKey(ctx, c.IdempotencyKey, first.ClaimID, store.IdempotentResponse{Status: 200}), store.ErrNotFound)
			require.NoError(t, s.ReleaseIdempotencyKey(ctx, c.IdempotencyKey, first.ClaimID))
			require.NoError(t, s.CompleteIdempotencyKey(ctx, c.IdempotencyKey, rec.ClaimID, store.IdempotentResponse{Status: 200}))
		})
	}
}

func TestIdempotencyRelease(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	c := idemClaim(newID(), newID(), "k", "body")
	rec, won, err := s.ClaimIdempotencyKey(ctx, c)
	require.NoError(t, err)
	require.True(t, won)
	require.NoError(t, s.ReleaseIdempotencyKey(ctx, c.IdempotencyKey, rec.ClaimID))
	again, won, err := s.ClaimIdempotencyKey(ctx, c)
	require.NoError(t, err)
	require.True(t, won, "a released key can be claimed again")
	require.NotEqual(t, rec.ClaimID, again.ClaimID)
}

func TestIdempotencyPurge(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, user := newID(), newID()
	ages := map[string]time.Duration{"fresh": 0, "day": 30 * time.Hour, "old": 49 * time.Hour, "older": 100 * time.Hour}
	for key, age := range ages {
		c := idemClaim(org, user, key, "b")
		_, won, err := s.ClaimIdempotencyKey(ctx, c)
		require.NoError(t, err)
		require.True(t, won)
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
	_, _, err := s.ClaimIdempotencyKey(context.Background(), c)
	require.Error(t, err)
}
