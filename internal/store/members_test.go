package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
	"github.com/opencustody/ocv/policy"
)

// addMember makes a new user a member of org with role.
func addMember(t *testing.T, s *store.Store, org, role string) string {
	t.Helper()
	user, _, _ := seedUser(t, s, "h")
	_, err := s.Pool().Exec(context.Background(), `INSERT INTO org_members (org_id, user_id, role) VALUES ($1, $2, $3)`, org, user, role)
	require.NoError(t, err)
	return user
}

func TestMemberRoleAndLastOwner(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	owner, org, _ := seedUser(t, s, "h")
	ok := func(store.Member) error { return nil }

	_, err := s.UpdateMemberRole(ctx, org, owner, "admin", ok, nil)
	require.ErrorIs(t, err, store.ErrLastOwner)
	_, err = s.RemoveMember(ctx, org, owner, ok, nil)
	require.ErrorIs(t, err, store.ErrLastOwner)
	_, err = s.UpdateMemberRole(ctx, org, newID(), "admin", ok, nil)
	requireNotFound(t, err, "member")

	m := addMember(t, s, org, "member")
	refused := errors.New("refused")
	_, err = s.UpdateMemberRole(ctx, org, m, "owner", func(cur store.Member) error {
		require.Equal(t, "member", cur.Role)
		return refused
	}, nil)
	require.ErrorIs(t, err, refused, "check can refuse")

	got, err := s.UpdateMemberRole(ctx, org, m, "owner", ok, event(org, "org.member.update"))
	require.NoError(t, err)
	require.Equal(t, "owner", got.Role)
	// Two owners now: the first may step down, then the second is the last.
	_, err = s.UpdateMemberRole(ctx, org, owner, "member", ok, nil)
	require.NoError(t, err)
	_, err = s.UpdateMemberRole(ctx, org, m, "admin", ok, nil)
	require.ErrorIs(t, err, store.ErrLastOwner)
	_, err = s.UpdateMemberRole(ctx, org, m, "owner", ok, nil)
	require.NoError(t, err, "an owner staying owner is no demotion")
}

func TestRemoveMember(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, vault := seedOrg(t, s)
	m := addMember(t, s, org, "member")
	_, err := s.CreateAPIKey(ctx, store.APIKey{OrgID: org, ID: newID(), UserID: m, Name: "k", Hash: hashOf(m), LastFour: "abcd"}, nil)
	require.NoError(t, err)
	rule := policy.Policy{ID: newID(), Pattern: "a/*", PrincipalType: policy.PrincipalUser, PrincipalID: m,
		Permissions: []policy.Permission{policy.PermissionRead}, Effect: policy.EffectAllow}
	_, ch, err := s.CreatePolicy(ctx, store.Policy{OrgID: org, VaultID: vault, Rule: rule}, nil)
	require.NoError(t, err)

	out, err := s.RemoveMember(ctx, org, m, func(store.Member) error { return nil }, event(org, "org.member.delete"))
	require.NoError(t, err)
	require.Equal(t, "member", out.Member.Role)
	require.Len(t, out.APIKeyIDs, 1)
	require.Len(t, out.Changes, 1)
	require.Equal(t, vault, out.Changes[0].VaultID)
	require.Equal(t, ch.Version+1, out.Changes[0].Version, "the policy set moved on")

	ps, err := s.ListPolicies(ctx, org, vault, "", 10)
	require.NoError(t, err)
	require.Empty(t, ps)
	_, err = s.APIKeyByHash(ctx, hashOf(m))
	require.ErrorIs(t, err, store.ErrNotFound)
	members, err := s.ListMembers(ctx, org, "", 10)
	require.NoError(t, err)
	require.Len(t, members, 1)
	_, err = s.RemoveMember(ctx, org, m, func(store.Member) error { return nil }, nil)
	requireNotFound(t, err, "member")
	require.Equal(t, 1, countEvents(t, s, org, "org.member.delete"))
}
