package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
	"github.com/opencustody/ocv/policy"
)

func TestSettings(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	_, err := s.Setting(ctx, "signup_enabled")
	require.ErrorIs(t, err, store.ErrNotFound)

	st, err := s.PutSetting(ctx, "signup_enabled", json.RawMessage(`false`), "admin-1", nil)
	require.NoError(t, err)
	require.JSONEq(t, `false`, string(st.Value))
	_, err = s.PutSetting(ctx, "signup_enabled", json.RawMessage(`true`), "admin-2", nil)
	require.NoError(t, err)
	st, err = s.Setting(ctx, "signup_enabled")
	require.NoError(t, err)
	require.JSONEq(t, `true`, string(st.Value))
	require.Equal(t, "admin-2", st.UpdatedBy)

	_, err = s.PutSetting(ctx, "Bad Key", json.RawMessage(`1`), "a", nil)
	require.Error(t, err, "the table refuses keys outside [a-z0-9_.]{1,64}")
	all, err := s.ListSettings(ctx)
	require.NoError(t, err)
	require.Len(t, all, 1)
}

func TestResolveChain(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	tests := map[string]struct {
		ref     string
		want    string
		wantErr error
	}{
		"id":             {ref: "ethereum", want: "ethereum"},
		"alias":          {ref: "mainnet", want: "ethereum"},
		"short alias":    {ref: "eth", want: "ethereum"},
		"chain id":       {ref: "1", want: "ethereum"},
		"base":           {ref: "base", want: "base"},
		"base chain id":  {ref: "8453", want: "base"},
		"upper case":     {ref: "Base-Sepolia", want: "base-sepolia"},
		"non-evm":        {ref: "btc", want: "bitcoin"},
		"unknown":        {ref: "dogecoin", wantErr: store.ErrNotFound},
		"unknown number": {ref: "999999", wantErr: store.ErrNotFound},
		// "0" must not match the NULL chain ids of non-EVM chains.
		"zero": {ref: "0", wantErr: store.ErrNotFound},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := s.ResolveChain(ctx, tc.ref)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, c.ID)
			} else {
				requireNotFound(t, err, "chain")
			}
		})
	}
}

func TestUpsertChain(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	c := store.Chain{ID: "optimism", ChainID: 10, Family: "evm", Name: "OP Mainnet", Aliases: []string{"op"},
		RPCURL: "https://rpc.example/op", IsEnabled: true}
	out, created, err := s.UpsertChain(ctx, c, nil)
	require.NoError(t, err)
	require.True(t, created)
	require.Equal(t, int64(10), out.ChainID)

	c.Name = "Optimism"
	out, created, err = s.UpsertChain(ctx, c, nil)
	require.NoError(t, err)
	require.False(t, created)
	require.Equal(t, "Optimism", out.Name)
	got, err := s.ResolveChain(ctx, "op")
	require.NoError(t, err)
	require.Equal(t, "optimism", got.ID)

	tests := map[string]struct {
		chain   store.Chain
		wantErr error
	}{
		"alias taken":    {chain: store.Chain{ID: "other", ChainID: 11, Family: "evm", Name: "x", Aliases: []string{"mainnet"}}, wantErr: store.ErrConflict},
		"id is an alias": {chain: store.Chain{ID: "eth", ChainID: 12, Family: "evm", Name: "x"}, wantErr: store.ErrConflict},
		"chain id taken": {chain: store.Chain{ID: "other", ChainID: 8453, Family: "evm", Name: "x"}, wantErr: store.ErrConflict},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, _, err := s.UpsertChain(ctx, tc.chain, nil)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func TestKnownTokens(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	k := store.KnownToken{Chain: "sepolia", ContractAddress: "0x1c7d4b196cb0c7b01d743fbc6116a902379c7238", Symbol: "USDC", Decimals: 6}
	_, err := s.CreateToken(ctx, k, nil)
	require.NoError(t, err)
	_, err = s.CreateToken(ctx, k, nil)
	require.ErrorIs(t, err, store.ErrConflict)
	_, err = s.CreateToken(ctx, store.KnownToken{Chain: "nochain", ContractAddress: "x", Symbol: "X"}, nil)
	require.ErrorIs(t, err, store.ErrNotFound)

	ks, err := s.ListTokens(ctx, "sepolia")
	require.NoError(t, err)
	require.Len(t, ks, 1)
	all, err := s.ListTokens(ctx, "")
	require.NoError(t, err)
	require.Greater(t, len(all), 1, "the seeded USDC entries are listed too")

	require.NoError(t, s.DeleteToken(ctx, "sepolia", k.ContractAddress, nil))
	requireNotFound(t, s.DeleteToken(ctx, "sepolia", k.ContractAddress, nil), "token")
}

func TestDeleteUser(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	ok := func(store.User) error { return nil }

	// The user owns a solo organization and is a member of a shared one,
	// with an API key and a policy there.
	user, soloOrg, _ := seedUser(t, s, "h")
	shared, vault := seedOrg(t, s)
	_, err := s.Pool().Exec(ctx, `INSERT INTO org_members (org_id, user_id, role) VALUES ($1, $2, 'member')`, shared, user)
	require.NoError(t, err)
	_, err = s.CreateAPIKey(ctx, store.APIKey{OrgID: shared, ID: newID(), UserID: user, Name: "k", Hash: hashOf(user), LastFour: "abcd"}, nil)
	require.NoError(t, err)
	rule := policy.Policy{ID: newID(), Pattern: "a/*", PrincipalType: policy.PrincipalUser, PrincipalID: user,
		Permissions: []policy.Permission{policy.PermissionRead}, Effect: policy.EffectAllow}
	_, _, err = s.CreatePolicy(ctx, store.Policy{OrgID: shared, VaultID: vault, Rule: rule}, nil)
	require.NoError(t, err)

	refused := errors.New("refused")
	_, err = s.DeleteUser(ctx, user, func(store.User) error { return refused }, nil)
	require.ErrorIs(t, err, refused)

	out, err := s.DeleteUser(ctx, user, ok, event(shared, "admin.user.delete"))
	require.NoError(t, err)
	require.Equal(t, []string{soloOrg}, out.DeletedOrgs)
	require.Len(t, out.APIKeyIDs, 1)
	require.Len(t, out.Changes, 1)
	require.Equal(t, shared, out.Changes[0].OrgID)
	require.Equal(t, "owner", out.Changes[0].Sealer.Role)

	_, err = s.UserByID(ctx, user)
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.OrgUsage(ctx, soloOrg)
	require.ErrorIs(t, err, store.ErrNotFound, "the solo organization is gone")
	requireNotFound(t, err, "organization")
	ps, err := s.ListPolicies(ctx, shared, vault, "", 10)
	require.NoError(t, err)
	require.Empty(t, ps)
	_, err = s.APIKeyByHash(ctx, hashOf(user))
	require.ErrorIs(t, err, store.ErrNotFound)
	_, err = s.DeleteUser(ctx, user, ok, nil)
	requireNotFound(t, err, "user")
}

func TestDeleteUserLastOwner(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	owner, org, _ := seedUser(t, s, "h")
	addMember(t, s, org, "member")

	_, err := s.DeleteUser(ctx, owner, func(store.User) error { return nil }, nil)
	var lo *store.LastOwnerError
	require.ErrorAs(t, err, &lo)
	require.ErrorIs(t, err, store.ErrLastOwner)
	require.Equal(t, org, lo.OrgID)
	_, err = s.UserByID(ctx, owner)
	require.NoError(t, err, "nothing changed")
}

func TestOrgUsage(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	u, err := s.OrgUsage(ctx, org)
	require.NoError(t, err)
	require.Equal(t, store.OrgUsage{Tier: "free", Vaults: 1}, u)
	require.NoError(t, s.SetOrgTier(ctx, org, "pro"))
	u, err = s.OrgUsage(ctx, org)
	require.NoError(t, err)
	require.Equal(t, "pro", u.Tier)
	_, err = s.OrgUsage(ctx, newID())
	require.ErrorIs(t, err, store.ErrNotFound)
}
