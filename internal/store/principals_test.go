package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

func TestHasPrincipal(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	ok := func(store.Member) error { return nil }
	owner, org, _ := seedUser(t, s, "h")
	member := addMember(t, s, org, "member")
	agent := seedAgent(t, s, org)
	gone := seedAgent(t, s, org)
	_, _, err := s.DeactivateAgent(ctx, org, gone.ID, nil)
	require.NoError(t, err)
	left := addMember(t, s, org, "member")
	_, err = s.RemoveMember(ctx, org, left, ok, nil)
	require.NoError(t, err)
	_, otherOrg, _ := seedUser(t, s, "h")

	admin := addMember(t, s, org, "admin")
	_, err = s.Pool().Exec(ctx, `UPDATE users SET platform_role = 'super_admin' WHERE id = $1`, admin)
	require.NoError(t, err)

	tests := map[string]struct {
		ptype, id, org, role, platformRole string
		want                               bool
	}{
		"ok owner":       {"user", owner, org, "owner", "", true},
		"ok member":      {"user", member, org, "member", "", true},
		"ok super admin": {"user", admin, org, "admin", "super_admin", true},
		"ok agent":       {"agent", agent.ID, org, "", "", true},
		// A member's token claiming a higher role, or a platform role.
		"fail member as owner":       {"user", member, org, "owner", "", false},
		"fail member as super admin": {"user", member, org, "member", "super_admin", false},
		"fail admin without role":    {"user", admin, org, "admin", "", false},
		"fail no role":               {"user", member, org, "", "", false},
		// A member who left, of an organization they never joined.
		"fail removed member":  {"user", left, org, "member", "", false},
		"fail other org":       {"user", owner, otherOrg, "owner", "", false},
		"fail no such user":    {"user", newID(), org, "owner", "", false},
		"fail inactive agent":  {"agent", gone.ID, org, "", "", false},
		"fail agent elsewhere": {"agent", agent.ID, otherOrg, "", "", false},
		"fail agent with role": {"agent", agent.ID, org, "owner", "", false},
		"fail user as agent":   {"agent", owner, org, "", "", false},
		"fail agent as user":   {"user", agent.ID, org, "owner", "", false},
		"fail unknown type":    {"robot", owner, org, "owner", "", false},
		// The cut-offs are keyed by the canonical spelling: another one
		// must not name the same principal here.
		"fail upper-case id": {"user", strings.ToUpper(owner), org, "owner", "", false},
		"fail braced org":    {"user", owner, "{" + org + "}", "owner", "", false},
		"fail not a uuid":    {"user", "root", org, "owner", "", false},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			found, err := s.HasPrincipal(ctx, tc.ptype, tc.id, tc.org, tc.role, tc.platformRole)
			require.NoError(t, err)
			require.Equal(t, tc.want, found)
		})
	}

	// A deleted user is no principal anywhere; its solo organization's
	// agents get a cut-off before they go with it.
	solo, soloOrg, _ := seedUser(t, s, "h")
	bot := seedAgent(t, s, soloOrg)
	conn, err := s.Pool().Acquire(ctx)
	require.NoError(t, err)
	defer func() {
		_, _ = conn.Exec(context.Background(), `UNLISTEN *`)
		conn.Release()
	}()
	_, err = conn.Exec(ctx, `LISTEN `+store.AgentTokensChannel)
	require.NoError(t, err)
	_, err = s.DeleteUser(ctx, solo, func(store.User) error { return nil }, nil)
	require.NoError(t, err)
	n, err := conn.Conn().WaitForNotification(ctx)
	require.NoError(t, err)
	id, at, parsed := store.ParseAgentCutoff(n.Payload)
	require.True(t, parsed)
	require.Equal(t, bot.ID, id, "the deleted organization's agent is cut off")
	require.False(t, at.IsZero())
	found, err := s.HasPrincipal(ctx, "user", solo, soloOrg, "owner", "")
	require.NoError(t, err)
	require.False(t, found)
	found, err = s.HasPrincipal(ctx, "agent", bot.ID, soloOrg, "", "")
	require.NoError(t, err)
	require.False(t, found)
}
