package auth

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestAgentClaims(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	tests := map[string]struct {
		agent   *AgentClaims
		want    map[string]any
		absent  []string
		wantErr error
	}{
		"no policies: empty scopes": {agent: &AgentClaims{},
			want:   map[string]any{"scopes": []any{}, "intents_api_enabled": false, "execution_intents_enabled": false},
			absent: []string{"environment", "intents_require_tee", "execution_require_tee", "role", "platform_role"}},
		"flags and environment": {agent: &AgentClaims{Scopes: []string{"prod/*"}, Environment: "production",
			IntentsAPIEnabled: true, IntentsRequireTEE: true, ExecutionRequireTEE: true},
			want: map[string]any{"scopes": []any{"prod/*"}, "environment": "production", "intents_api_enabled": true,
				"intents_require_tee": true, "execution_require_tee": true}},
		// A cutoff in the future (the revocation's margin) stamps the token with it.
		"stamped at the cutoff": {agent: &AgentClaims{NotBefore: now.Add(700 * time.Microsecond)},
			want: map[string]any{"iat_ms": float64(now.UnixMilli() + 1)}},
		// Agent tokens never go out without their claims.
		"fail no agent claims": {wantErr: errNoAgentClaims},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := NewMinter(&captureSigner{}, "https://ocv.example", time.Minute)
			c, ttl, err := m.claims(Principal{Type: PrincipalAgent, ID: "a", OrgID: "o", Role: "owner", Agent: tc.agent}, now, "j")
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr != nil {
				return
			}
			require.Equal(t, DefaultAgentTTL, ttl)
			body, err := json.Marshal(c)
			require.NoError(t, err)
			var got map[string]any
			require.NoError(t, json.Unmarshal(body, &got))
			require.Equal(t, "agent", got["principal_type"])
			require.Equal(t, got["iat"].(float64)+DefaultAgentTTL.Seconds(), got["exp"])
			for k, v := range tc.want {
				require.Equal(t, v, got[k], k)
			}
			for _, k := range tc.absent {
				require.NotContains(t, got, k)
			}
			// The verifier reads back what was minted.
			p := principalOf(c)
			require.NotNil(t, p.Agent)
			require.Equal(t, tc.agent.Environment, p.Agent.Environment)
			require.NotNil(t, p.Agent.Scopes)
			require.False(t, p.IssuedAt.Before(tc.agent.NotBefore))
		})
	}
}

func TestHumanClaimsUnchanged(t *testing.T) {
	s := &captureSigner{}
	_, _, err := NewMinter(s, "https://ocv.example", time.Minute).Mint(context.Background(),
		Principal{Type: PrincipalUser, ID: "u", OrgID: "o", Role: "member"})
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(s.claims, &got))
	for _, k := range []string{"scopes", "environment", "intents_api_enabled", "execution_intents_enabled"} {
		require.NotContains(t, got, k)
	}
	require.Contains(t, got, "iat_ms", "human tokens are compared with the user's cut-off")
}

func TestAgentCutoffs(t *testing.T) {
	c := NewAgentCutoffs()
	t0 := time.Unix(1000, 0)
	require.False(t, c.Refuses("a", t0))
	c.Set("a", t0)
	require.True(t, c.Refuses("a", t0.Add(-time.Millisecond)))
	require.False(t, c.Refuses("a", t0), "a token stamped at the cutoff is valid")
	c.Set("a", t0.Add(-time.Hour))
	require.True(t, c.Refuses("a", t0.Add(-time.Millisecond)), "cutoffs never move backwards")
	c.Merge(map[string]time.Time{"b": t0}, t0.Add(time.Second))
	require.False(t, c.Refuses("a", t0.Add(-time.Millisecond)), "old cutoffs are forgotten")
}
