package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
	"github.com/opencustody/ocv/policy"
)

func seedAgent(t *testing.T, s *store.Store, orgID string) store.Agent {
	t.Helper()
	a, err := s.CreateAgent(context.Background(), store.Agent{OrgID: orgID, ID: newID(), Name: "bot", KeyHash: hashOf(newID()),
		KeyLastFour: "abcd", CreatedBy: newID(), Guardrails: []byte(`{"tx_max_per_day":5}`)}, event(orgID, "agent.create"))
	require.NoError(t, err)
	return a
}

func agentRule(agentID, pattern string) policy.Policy {
	return policy.Policy{ID: newID(), Pattern: pattern, PrincipalType: policy.PrincipalAgent, PrincipalID: agentID,
		Permissions: []policy.Permission{policy.PermissionRead}, Effect: policy.EffectAllow,
		Conditions: policy.Conditions{IPCIDRs: []string{"127.0.0.0/8"}, TimeWindow: &policy.TimeWindow{Start: "01:00", End: "02:00",
			Days: []time.Weekday{time.Monday}}}}
}

func TestPolicySetVersions(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, vault := seedOrg(t, s)
	a := seedAgent(t, s, org)
	require.Nil(t, a.TokensValidAfter)

	v, set, mac, err := s.PolicySet(ctx, org, vault)
	require.NoError(t, err)
	require.Zero(t, v)
	require.Nil(t, mac)
	_, _, empty, err := policy.DecodeSet(set)
	require.NoError(t, err)
	require.Empty(t, empty)

	p, ch, err := s.CreatePolicy(ctx, store.Policy{OrgID: org, VaultID: vault, Rule: agentRule(a.ID, "prod/*"),
		TxConditions: []byte(`{"chain_in":["base"]}`)}, event(org, "policy.create"))
	require.NoError(t, err)
	require.EqualValues(t, 1, ch.Version)
	require.Len(t, ch.Revoked, 1, "a policy for an agent revokes its tokens")
	require.NotNil(t, ch.Revoked[0].TokensValidAfter)
	require.Equal(t, "127.0.0.0/8", p.Rule.Conditions.IPCIDRs[0])
	require.Equal(t, []time.Weekday{time.Monday}, p.Rule.Conditions.TimeWindow.Days)

	v, set, mac, err = s.PolicySet(ctx, org, vault)
	require.NoError(t, err)
	require.EqualValues(t, 1, v)
	require.Nil(t, mac, "the MAC is the enclave's to fill")
	gotVault, gotVersion, rules, err := policy.DecodeSet(set)
	require.NoError(t, err)
	require.Equal(t, vault, gotVault)
	require.EqualValues(t, 1, gotVersion)
	require.Len(t, rules, 1)
	require.Equal(t, p.Rule.ID, rules[0].ID)
	require.Equal(t, ch.Set, set)

	stored, err := s.SetPolicySetMAC(ctx, org, vault, 1, []byte("mac"))
	require.NoError(t, err)
	require.True(t, stored)
	p.Rule.Priority = 7
	_, ch, err = s.UpdatePolicy(ctx, p, event(org, "policy.update"))
	require.NoError(t, err)
	require.EqualValues(t, 2, ch.Version)
	stored, err = s.SetPolicySetMAC(ctx, org, vault, 1, []byte("old"))
	require.NoError(t, err)
	require.False(t, stored, "a MAC of an older version is not stored")
	_, _, mac, err = s.PolicySet(ctx, org, vault)
	require.NoError(t, err)
	require.Nil(t, mac, "every change clears the MAC")

	scopes, err := s.AgentPolicies(ctx, org, a.ID)
	require.NoError(t, err)
	require.Equal(t, []string{"prod/*"}, policy.Scopes(nil, scopes, time.Now()))

	cutoffs, err := s.AgentTokenCutoffs(ctx)
	require.NoError(t, err)
	require.Contains(t, cutoffs, a.ID)

	// Deactivation deletes the agent's policies and moves the set on.
	_, changes, err := s.DeactivateAgent(ctx, org, a.ID, event(org, "agent.delete"))
	require.NoError(t, err)
	require.Len(t, changes, 1)
	require.Equal(t, vault, changes[0].VaultID)
	v, set, _, err = s.PolicySet(ctx, org, vault)
	require.NoError(t, err)
	require.EqualValues(t, 3, v)
	_, _, rules, err = policy.DecodeSet(set)
	require.NoError(t, err)
	require.Empty(t, rules)
	_, _, err = s.DeactivateAgent(ctx, org, a.ID, event(org, "agent.delete"))
	require.ErrorIs(t, err, store.ErrNotFound)
	require.Equal(t, 6, countEvents(t, s, org, ""), "signup, vault, agent, two policy changes and the deactivation are audited")
}

func TestPolicyWriteErrors(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, vault := seedOrg(t, s)
	otherOrg, otherVault := seedOrg(t, s)
	a := seedAgent(t, s, org)
	tests := map[string]struct {
		orgID, vaultID string
		rule           policy.Policy
		wantErr        error
	}{
		"ok":                         {orgID: org, vaultID: vault, rule: agentRule(a.ID, "x")},
		"fail another org's vault":   {orgID: org, vaultID: otherVault, rule: agentRule(a.ID, "x"), wantErr: store.ErrNotFound},
		"fail agent of another org":  {orgID: otherOrg, vaultID: otherVault, rule: agentRule(a.ID, "x"), wantErr: store.ErrUnknownPrincipal},
		"fail unknown user":          {orgID: org, vaultID: vault, rule: func() policy.Policy { r := agentRule(newID(), "x"); r.PrincipalType = "user"; return r }(), wantErr: store.ErrUnknownPrincipal},
		"fail missing policy update": {orgID: org, vaultID: vault, rule: agentRule(a.ID, "x"), wantErr: store.ErrNotFound},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			write := s.CreatePolicy
			if name == "fail missing policy update" {
				write = s.UpdatePolicy
			}
			_, _, err := write(ctx, store.Policy{OrgID: tc.orgID, VaultID: tc.vaultID, Rule: tc.rule}, event(tc.orgID, "policy.create"))
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func TestAgentKeyAndUpdate(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	a := seedAgent(t, s, org)
	hash := hashOf("new")
	r, err := s.RotateAgentKey(ctx, org, a.ID, hash, "wxyz", nil, event(org, "agent.rotate_key"))
	require.NoError(t, err)
	require.NotNil(t, r.TokensValidAfter)
	got, err := s.AgentByKey(ctx, a.ID, hash)
	require.NoError(t, err)
	require.Equal(t, "wxyz", got.KeyLastFour)
	_, err = s.AgentByKey(ctx, a.ID, a.KeyHash)
	require.ErrorIs(t, err, store.ErrNotFound, "the old key is gone")

	u, err := s.UpdateAgent(ctx, org, a.ID, func(x *store.Agent) error {
		x.Scopes, x.Environment = []string{"a/*"}, "preview"
		return nil
	}, event(org, "agent.update"))
	require.NoError(t, err)
	require.Equal(t, []string{"a/*"}, u.Scopes)
	require.Equal(t, "preview", u.Environment)
	require.JSONEq(t, `{"tx_max_per_day":5}`, string(u.Guardrails))
	require.False(t, u.TokensValidAfter.Before(*r.TokensValidAfter), "cutoffs never move backwards")

	id, at, ok := store.ParseAgentCutoff(a.ID + " 1700000000000001")
	require.True(t, ok)
	require.Equal(t, a.ID, id)
	require.Equal(t, int64(1700000000000001), at.UnixMicro())
	_, _, ok = store.ParseAgentCutoff("garbage")
	require.False(t, ok)
}
