package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

func TestUserCutoffs(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	owner, org, _ := seedUser(t, s, "h")
	ok := func(store.Member) error { return nil }
	var mu sync.Mutex
	var seen []store.UserCutoff
	s.SetUserCutoffHook(func(c store.UserCutoff) {
		mu.Lock()
		seen = append(seen, c)
		mu.Unlock()
	})
	last := func() store.UserCutoff {
		mu.Lock()
		defer mu.Unlock()
		require.NotEmpty(t, seen)
		return seen[len(seen)-1]
	}

	m := addMember(t, s, org, "admin")
	nb, err := s.UserTokensNotBefore(ctx, m, org)
	require.NoError(t, err)
	require.True(t, nb.IsZero())

	// The same role: nothing to cut off.
	_, err = s.UpdateMemberRole(ctx, org, m, "admin", ok, nil)
	require.NoError(t, err)
	require.Empty(t, seen)

	_, err = s.UpdateMemberRole(ctx, org, m, "member", ok, nil)
	require.NoError(t, err)
	c := last()
	require.Equal(t, store.UserCutoff{UserID: m, OrgID: org, At: c.At}, c)
	nb, err = s.UserTokensNotBefore(ctx, m, org)
	require.NoError(t, err)
	require.True(t, nb.Equal(c.At))
	other, err := s.UserTokensNotBefore(ctx, m, newID())
	require.NoError(t, err)
	require.True(t, other.IsZero(), "a membership cut-off applies in its organization only")

	_, err = s.RemoveMember(ctx, org, m, ok, nil)
	require.NoError(t, err)
	require.Equal(t, org, last().OrgID)
	require.False(t, last().At.Before(c.At), "cut-offs never move backwards")

	require.NoError(t, s.ChangePassword(ctx, owner, "h2", nil))
	require.Equal(t, store.AllOrgs, last().OrgID)
	nb, err = s.UserTokensNotBefore(ctx, owner, newID())
	require.NoError(t, err)
	require.True(t, nb.Equal(last().At), "a password change applies in every organization")

	all, err := s.UserTokenCutoffs(ctx)
	require.NoError(t, err)
	require.GreaterOrEqual(t, len(all), 2)

	got, err := s.RevokeUserTokens(ctx, owner, store.AllOrgs)
	require.NoError(t, err)
	require.Equal(t, got, last())
	parsed, okParse := store.ParseUserCutoff(store.FormatUserCutoff(got))
	require.True(t, okParse)
	require.True(t, parsed.At.Equal(got.At.Truncate(time.Microsecond)))
	_, okParse = store.ParseUserCutoff("garbage")
	require.False(t, okParse)
	require.NoError(t, s.PurgeUserTokenCutoffs(ctx))
}
