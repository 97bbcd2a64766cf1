package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

func TestAPIKeys(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	user, org, _ := seedUser(t, s, "h")
	other, otherOrg, _ := seedUser(t, s, "h")

	exp := time.Now().Add(time.Hour).UTC().Truncate(time.Microsecond)
	k, err := s.CreateAPIKey(ctx, store.APIKey{OrgID: org, ID: newID(), UserID: user, Name: "ci", Hash: hashOf("k1"),
		LastFour: "abcd", ExpiresAt: &exp}, event(org, "auth.api_key.create"))
	require.NoError(t, err)
	require.Equal(t, "ci", k.Name)
	require.True(t, exp.Equal(*k.ExpiresAt))
	require.False(t, k.CreatedAt.IsZero())

	// A key for someone who is not a member of the organization is refused.
	_, err = s.CreateAPIKey(ctx, store.APIKey{OrgID: org, ID: newID(), UserID: other, Name: "x", Hash: hashOf("k2"), LastFour: "x"}, nil)
	require.ErrorIs(t, err, store.ErrNotFound)

	o, err := s.APIKeyByHash(ctx, hashOf("k1"))
	require.NoError(t, err)
	require.Equal(t, k.ID, o.Key.ID)
	require.Equal(t, "owner", o.Role)
	require.Equal(t, "", o.PlatformRole)
	_, err = s.APIKeyByHash(ctx, hashOf("nope"))
	require.ErrorIs(t, err, store.ErrNotFound)

	list, err := s.ListAPIKeys(ctx, org, user, "", 10)
	require.NoError(t, err)
	require.Len(t, list, 1)
	require.Empty(t, list[0].Hash, "a listing never carries the hash")
	list, err = s.ListAPIKeys(ctx, otherOrg, other, "", 10)
	require.NoError(t, err)
	require.Empty(t, list)

	// Deleting announces the key id to every listening replica.
	got := make(chan string, 1)
	ready := make(chan struct{})
	lctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		_ = s.Listen(lctx, store.APIKeyRevocationChannel, func() { close(ready) }, func(id string) { got <- id })
	}()
	<-ready

	tests := map[string]struct {
		org, user string
		wantErr   error
	}{
		// Another user's key answers like a missing one.
		"fail other user": {org: otherOrg, user: other, wantErr: store.ErrNotFound},
		"fail other org":  {org: otherOrg, user: user, wantErr: store.ErrNotFound},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, s.DeleteAPIKey(ctx, tc.org, tc.user, k.ID, nil), tc.wantErr)
		})
	}
	require.NoError(t, s.DeleteAPIKey(ctx, org, user, k.ID, event(org, "auth.api_key.delete")))
	require.Equal(t, k.ID, <-got)
	_, err = s.APIKeyByHash(ctx, hashOf("k1"))
	require.ErrorIs(t, err, store.ErrNotFound)
	requireNotFound(t, s.DeleteAPIKey(ctx, org, user, k.ID, nil), "API key")
}

func TestSettingsUsersAndPlatformRole(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	user, org, key := seedUser(t, s, "h")

	st, err := s.Settings(ctx, user)
	require.NoError(t, err)
	require.False(t, st.RequirePasskeyForVaults)
	require.NoError(t, s.SaveSettings(ctx, user, store.UserSettings{RequirePasskeyForVaults: true}, event(org, "auth.settings.update")))
	st, err = s.Settings(ctx, user)
	require.NoError(t, err)
	require.True(t, st.RequirePasskeyForVaults)

	calls := 0
	promote := func(u store.User, m store.Membership) *auditchain.Event {
		calls++
		require.Equal(t, org, m.OrgID)
		return event(m.OrgID, "admin.bootstrap")
	}
	u, changed, err := s.SetPlatformRole(ctx, key, "super_admin", promote)
	require.NoError(t, err)
	require.True(t, changed)
	require.Equal(t, user, u.ID)
	_, changed, err = s.SetPlatformRole(ctx, key, "super_admin", promote)
	require.NoError(t, err)
	require.False(t, changed, "promoting twice changes nothing")
	require.Equal(t, 1, calls)
	_, _, err = s.SetPlatformRole(ctx, "ghost@example.com", "admin", promote)
	require.ErrorIs(t, err, store.ErrNotFound)

	seedUser(t, s, "h")
	users, err := s.ListUsers(ctx, "", 1)
	require.NoError(t, err)
	require.Len(t, users, 1)
	more, err := s.ListUsers(ctx, users[0].ID, 10)
	require.NoError(t, err)
	require.Len(t, more, 1)
	roles := map[string]string{users[0].ID: users[0].PlatformRole, more[0].ID: more[0].PlatformRole}
	require.Equal(t, "super_admin", roles[user])
}

func TestInvitesAndMembers(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	user, org, key := seedUser(t, s, "h")
	invite := func(email string, exp time.Time) error {
		_, err := s.CreateInvite(ctx, store.Invite{OrgID: org, ID: newID(), Email: email, Role: "member", InvitedBy: user,
			Hash: hashOf(email + exp.String()), ExpiresAt: exp}, email, event(org, "org.invite.create"))
		return err
	}
	later := time.Now().Add(time.Hour)
	require.NoError(t, invite("new@example.com", later))
	require.NoError(t, invite("old@example.com", time.Now().Add(-time.Minute)))

	tests := map[string]struct {
		email   string
		wantErr error
	}{
		"fail pending invitation": {email: "new@example.com", wantErr: store.ErrConflict},
		"fail already a member":   {email: key, wantErr: store.ErrConflict},
		// An expired invitation does not block a new one.
		"ok expired replaced": {email: "old@example.com"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, invite(tc.email, later), tc.wantErr)
		})
	}

	members, err := s.ListMembers(ctx, org, "", 10)
	require.NoError(t, err)
	require.Len(t, members, 1)
	require.Equal(t, store.Member{UserID: user, Email: key, Role: "owner", JoinedAt: members[0].JoinedAt}, members[0])
	members, err = s.ListMembers(ctx, org, user, 10)
	require.NoError(t, err)
	require.Empty(t, members)
	require.NoError(t, s.PurgeExpiredIdentity(ctx))
}
