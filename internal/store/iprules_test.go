package store_test

import (
	"context"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

func TestIPRules(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	user, org, _ := seedUser(t, s, "h")
	_, otherOrg, _ := seedUser(t, s, "h")

	mk := func(orgID, cidr, typ string) (store.IPRule, error) {
		return s.CreateIPRule(ctx, store.IPRule{OrgID: orgID, ID: newID(), CIDR: netip.MustParsePrefix(cidr), RuleType: typ,
			Description: "d", CreatedBy: user}, event(orgID, "ip_rule.create"))
	}
	v4, err := mk(org, "10.1.2.3/8", "block")
	require.NoError(t, err)
	require.Equal(t, "10.0.0.0/8", v4.CIDR.String(), "stored masked")
	require.Equal(t, "d", v4.Description)
	require.False(t, v4.CreatedAt.IsZero())
	v6, err := mk(org, "2001:db8::1/128", "allow")
	require.NoError(t, err)
	require.Equal(t, "2001:db8::1/128", v6.CIDR.String())

	_, err = mk(org, "10.0.0.0/8", "block")
	require.ErrorIs(t, err, store.ErrConflict, "the same rule twice")
	_, err = mk(org, "10.0.0.0/8", "allow")
	require.NoError(t, err, "the same range as an allow rule is another rule")

	all, err := s.OrgIPRules(ctx, org)
	require.NoError(t, err)
	require.Len(t, all, 3)
	none, err := s.OrgIPRules(ctx, otherOrg)
	require.NoError(t, err)
	require.Empty(t, none)

	page, err := s.ListIPRules(ctx, org, "", 2)
	require.NoError(t, err)
	require.Len(t, page, 2)
	rest, err := s.ListIPRules(ctx, org, page[1].ID, 2)
	require.NoError(t, err)
	require.Len(t, rest, 1)

	require.ErrorIs(t, s.DeleteIPRule(ctx, otherOrg, v4.ID, nil), store.ErrNotFound, "another organization's rule")
	require.NoError(t, s.DeleteIPRule(ctx, org, v4.ID, event(org, "ip_rule.delete")))
	requireNotFound(t, s.DeleteIPRule(ctx, org, v4.ID, nil), "IP rule")
	require.Equal(t, 3, countEvents(t, s, org, "ip_rule.create"))
	require.Equal(t, 1, countEvents(t, s, org, "ip_rule.delete"))
}
