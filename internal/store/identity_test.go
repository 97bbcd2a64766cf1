package store_test

import (
	"context"
	"crypto/sha256"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

// seedUser creates a user who owns a new organization.
func seedUser(t *testing.T, s *store.Store, passwordHash string) (userID, orgID, emailKey string) {
	t.Helper()
	userID, orgID = newID(), newID()
	emailKey = userID + "@example.com"
	_, err := s.CreateUserWithOrg(context.Background(), store.User{ID: userID, Email: emailKey, PasswordHash: passwordHash},
		emailKey, store.Org{ID: orgID, Name: "o"}, event(orgID, "auth.signup"))
	require.NoError(t, err)
	return userID, orgID, emailKey
}

func hashOf(s string) []byte {
	h := sha256.Sum256([]byte(s))
	return h[:]
}

func countEvents(t *testing.T, s *store.Store, org, action string) int {
	t.Helper()
	evs, err := s.ListEvents(context.Background(), org, action, 0, 1000)
	require.NoError(t, err)
	return len(evs)
}

func TestLoginLockout(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	user, org, key := seedUser(t, s, "h")
	fail := func() time.Time {
		until, err := s.RecordLoginFailure(ctx, user, 10, time.Hour, event(org, "auth.token"), event(org, "auth.lockout"))
		require.NoError(t, err)
		return until
	}
	for i := 0; i < 9; i++ {
		require.True(t, fail().IsZero(), "failure %d must not lock", i+1)
	}
	until := fail()
	require.True(t, until.After(time.Now().Add(50*time.Minute)), "the tenth failure locks for the configured time")
	require.Equal(t, until, fail(), "a failure while locked does not move the lock")
	require.Equal(t, 1, countEvents(t, s, org, "auth.lockout"))
	require.Equal(t, 11, countEvents(t, s, org, "auth.token"))

	u, _, err := s.UserByEmail(ctx, key)
	require.NoError(t, err)
	require.Equal(t, until, u.LockedUntil)
	require.ErrorIs(t, s.CompleteSignIn(ctx, user, nil, nil), store.ErrLocked)

	// Once the lock has passed, a sign-in succeeds and resets the count.
	_, err = s.Pool().Exec(ctx, `UPDATE users SET locked_until = now() - interval '1 second', failed_logins = 5 WHERE id = $1`, user)
	require.NoError(t, err)
	require.NoError(t, s.CompleteSignIn(ctx, user, nil, event(org, "auth.token")))
	for i := 0; i < 9; i++ {
		require.True(t, fail().IsZero(), "the count restarted after the sign-in")
	}

	_, err = s.RecordLoginFailure(ctx, newID(), 10, time.Hour, nil, nil)
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestLoginLockoutConcurrent(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	user, org, _ := seedUser(t, s, "h")
	var wg sync.WaitGroup
	for i := 0; i < 25; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := s.RecordLoginFailure(ctx, user, 10, time.Hour, nil, event(org, "auth.lockout")); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	// Every failure counted atomically: exactly one of them locked the account.
	require.Equal(t, 1, countEvents(t, s, org, "auth.lockout"))
	require.ErrorIs(t, s.CompleteSignIn(ctx, user, nil, nil), store.ErrLocked)
}

func refreshToken(raw string) store.RefreshToken {
	return store.RefreshToken{ID: newID(), Hash: hashOf(raw), ExpiresAt: time.Now().Add(time.Hour)}
}

func TestRefreshRotation(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	user, org, _ := seedUser(t, s, "h")
	first := refreshToken("r1")
	first.OrgID, first.UserID, first.FamilyID = org, user, newID()
	require.NoError(t, s.CompleteSignIn(ctx, user, &first, event(org, "auth.token")))

	var grants []store.RefreshGrant
	issue := func(_ context.Context, g store.RefreshGrant) (*auditchain.Event, error) {
		grants = append(grants, g)
		return event(g.OrgID, "auth.refresh"), nil
	}
	reuse := func(g store.RefreshGrant) []*auditchain.Event {
		return []*auditchain.Event{event(g.OrgID, "auth.refresh.reuse")}
	}
	require.NoError(t, s.RotateRefreshToken(ctx, hashOf("r1"), refreshToken("r2"), issue, reuse))
	require.Len(t, grants, 1)
	require.Equal(t, store.RefreshGrant{OrgID: org, UserID: user, FamilyID: first.FamilyID, Role: "owner"}, grants[0])

	tests := map[string]struct {
		present string
		wantErr error
	}{
		// r1 was spent: presenting it again is theft or a replay; the family dies.
		"fail reused token":        {present: "r1", wantErr: store.ErrReused},
		"fail rotated after reuse": {present: "r2", wantErr: store.ErrNotFound},
		"fail unknown":             {present: "nope", wantErr: store.ErrNotFound},
	}
	for _, name := range []string{"fail reused token", "fail rotated after reuse", "fail unknown"} {
		tc := tests[name]
		t.Run(name, func(t *testing.T) {
			err := s.RotateRefreshToken(ctx, hashOf(tc.present), refreshToken("next-"+name), issue, reuse)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
	require.Len(t, grants, 1)
	require.Equal(t, 1, countEvents(t, s, org, "auth.refresh.reuse"))

	t.Run("fail expired", func(t *testing.T) {
		exp := refreshToken("old")
		exp.OrgID, exp.UserID, exp.FamilyID, exp.ExpiresAt = org, user, newID(), time.Now().Add(-time.Minute)
		require.NoError(t, s.CompleteSignIn(ctx, user, &exp, nil))
		require.ErrorIs(t, s.RotateRefreshToken(ctx, hashOf("old"), refreshToken("x"), issue, reuse), store.ErrNotFound)
	})
}

func TestRevokeSessionAndPasswords(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	user, org, _ := seedUser(t, s, "h")
	other, otherOrg, _ := seedUser(t, s, "")
	issue := func(_ context.Context, g store.RefreshGrant) (*auditchain.Event, error) { return nil, nil }
	none := func(store.RefreshGrant) []*auditchain.Event { return nil }
	mine, theirs := refreshToken("mine"), refreshToken("theirs")
	mine.OrgID, mine.UserID, mine.FamilyID = org, user, newID()
	theirs.OrgID, theirs.UserID, theirs.FamilyID = otherOrg, other, newID()
	require.NoError(t, s.CompleteSignIn(ctx, user, &mine, nil))
	require.NoError(t, s.CompleteSignIn(ctx, other, &theirs, nil))

	// Another user's refresh token is left alone.
	revoked, err := s.RevokeSession(ctx, "jti-1", org, time.Now().Add(time.Hour), hashOf("theirs"), user, event(org, "auth.token.revoke"))
	require.NoError(t, err)
	require.False(t, revoked)
	require.NoError(t, s.RotateRefreshToken(ctx, hashOf("theirs"), refreshToken("theirs2"), issue, none))
	isRevoked, err := s.IsTokenRevoked(ctx, "jti-1")
	require.NoError(t, err)
	require.True(t, isRevoked)

	revoked, err = s.RevokeSession(ctx, "jti-2", org, time.Now().Add(time.Hour), hashOf("mine"), user, nil)
	require.NoError(t, err)
	require.True(t, revoked)
	require.ErrorIs(t, s.RotateRefreshToken(ctx, hashOf("mine"), refreshToken("m2"), issue, none), store.ErrNotFound)

	// Set-password only for a user without one; change-password ends sessions.
	require.ErrorIs(t, s.SetPassword(ctx, user, "h2", nil), store.ErrConflict)
	require.NoError(t, s.SetPassword(ctx, other, "h2", event(otherOrg, "auth.password.set")))
	u, err := s.UserByID(ctx, other)
	require.NoError(t, err)
	require.Equal(t, "h2", u.PasswordHash)
	require.NoError(t, s.ChangePassword(ctx, other, "h3", event(otherOrg, "auth.password.change")))
	require.ErrorIs(t, s.RotateRefreshToken(ctx, hashOf("theirs2"), refreshToken("t3"), issue, none), store.ErrNotFound)
	require.ErrorIs(t, s.ChangePassword(ctx, newID(), "h", nil), store.ErrNotFound)
	_, err = s.UserByID(ctx, newID())
	require.ErrorIs(t, err, store.ErrNotFound)
}
