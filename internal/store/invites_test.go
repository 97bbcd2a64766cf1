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

func TestInvitationAcceptedOnce(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	owner, org, _ := seedUser(t, s, "h")
	invite := func(email string, expires time.Time) store.Invite {
		t.Helper()
		in := store.Invite{OrgID: org, ID: newID(), Email: email, Role: "member", InvitedBy: owner, UserID: newID(),
			Hash: hashOf(email), ExpiresAt: expires}
		_, err := s.CreateInvite(ctx, in, email, event(org, "org.invite.create"))
		require.NoError(t, err)
		return in
	}
	in := invite("new@example.com", time.Now().Add(time.Hour))

	blocked, err := s.InviteBlocked(ctx, org, "new@example.com")
	require.NoError(t, err)
	require.True(t, blocked, "a pending invitation blocks another")
	id, exists, err := s.InviteeUserID(ctx, "new@example.com")
	require.NoError(t, err)
	require.False(t, exists)
	require.Equal(t, in.UserID, id, "a pending invitee keeps its user id")

	p, err := s.InviteByHash(ctx, hashOf("new@example.com"))
	require.NoError(t, err)
	require.Equal(t, in.UserID, p.UserID)
	require.False(t, p.Accepted)
	_, err = s.InviteByHash(ctx, hashOf("nobody"))
	requireNotFound(t, err, "invitation")

	require.NoError(t, s.AcceptInvite(ctx, p, "argon-hash", event(org, "org.invite.accept")))
	err = s.AcceptInvite(ctx, p, "argon-hash", event(org, "org.invite.accept"))
	require.ErrorIs(t, err, store.ErrNotFound, "single use")
	p, err = s.InviteByHash(ctx, hashOf("new@example.com"))
	require.NoError(t, err)
	require.True(t, p.Accepted)
	id, exists, err = s.InviteeUserID(ctx, "new@example.com")
	require.NoError(t, err)
	require.True(t, exists)
	require.Equal(t, in.UserID, id)
	blocked, err = s.InviteBlocked(ctx, org, "new@example.com")
	require.NoError(t, err)
	require.True(t, blocked, "a member is blocked")

	// Expiry is judged on the database's now(), in the statement: an
	// invitation that expired a second ago by the database's clock is spent
	// whatever time the caller believes it is.
	late := invite("late@example.com", time.Now().Add(time.Hour))
	_, err = s.Pool().Exec(ctx, `UPDATE org_invites SET expires_at = now() - interval '1 second' WHERE id = $1`, late.ID)
	require.NoError(t, err)
	p, err = s.InviteByHash(ctx, late.Hash)
	require.NoError(t, err)
	err = s.AcceptInvite(ctx, p, "argon-hash", event(org, "org.invite.accept"))
	require.ErrorIs(t, err, store.ErrNotFound, "expired")
}

func TestListActorEvents(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	owner, org, _ := seedUser(t, s, "h")
	member := addMember(t, s, org, "member")
	ev := func(actorType, actor, action string) {
		t.Helper()
		e := event(org, action)
		e.ActorType, e.ActorID = actorType, actor
		require.NoError(t, s.InsertEvents(ctx, []*auditchain.Event{e}))
	}
	ev("user", owner, "a.owner")
	ev("user", member, "a.member")
	ev("agent", newID(), "a.agent")
	all, err := s.ListEvents(ctx, org, "", 0, 100)
	require.NoError(t, err)
	mine, err := s.ListActorEvents(ctx, org, member, "", 0, 100)
	require.NoError(t, err)
	require.Greater(t, len(all), len(mine))
	require.NotEmpty(t, mine)
	for _, e := range mine {
		require.Equal(t, member, e.ActorID)
	}
}
