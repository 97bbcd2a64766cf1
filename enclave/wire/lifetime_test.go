package wire

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCheckLifetime(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	l := DefaultTokenLifetimes()
	tests := map[string]struct {
		ptype    string
		iat, exp time.Time
		wantErr  error
	}{
		"ok user at the bound":         {PrincipalUser, now, now.Add(DefaultUserTokenTTL + TokenClockSkew), nil},
		"ok agent at the bound":        {PrincipalAgent, now, now.Add(DefaultAgentTokenTTL + TokenClockSkew), nil},
		"ok as minted":                 {PrincipalUser, now.Add(-time.Minute), now.Add(DefaultUserTokenTTL - time.Minute), nil},
		"ok iat within the skew ahead": {PrincipalUser, now.Add(TokenClockSkew), now.Add(TokenClockSkew + time.Minute), nil},
		// A compromised proxy had the enclave sign a ten-year token.
		"fail ten years":           {PrincipalUser, now, now.AddDate(10, 0, 0), ErrTokenLifetime},
		"fail just above the user": {PrincipalUser, now, now.Add(DefaultUserTokenTTL + TokenClockSkew + time.Second), ErrTokenLifetime},
		// An agent's lifetime is not a user's.
		"fail user with the agent lifetime": {PrincipalUser, now, now.Add(DefaultAgentTokenTTL), ErrTokenLifetime},
		"fail just above the agent":         {PrincipalAgent, now, now.Add(DefaultAgentTokenTTL + TokenClockSkew + time.Second), ErrTokenLifetime},
		"fail no iat":                       {PrincipalUser, time.Time{}, now.Add(time.Minute), ErrTokenLifetime},
		"fail iat zero":                     {PrincipalUser, time.Unix(0, 0), now.Add(time.Minute), ErrTokenLifetime},
		// Dated ahead, a short lifetime would still be valid for years.
		"fail iat ten years ahead": {PrincipalUser, now.AddDate(10, 0, 0), now.AddDate(10, 0, 0).Add(time.Minute), ErrTokenLifetime},
		"fail iat beyond the skew": {PrincipalUser, now.Add(TokenClockSkew + time.Second), now.Add(10 * time.Minute), ErrTokenLifetime},
		"fail exp before iat":      {PrincipalUser, now, now.Add(-time.Second), ErrTokenLifetime},
		"fail unknown type":        {"robot", now, now.Add(time.Minute), ErrTokenLifetime},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, l.CheckLifetime(tc.ptype, tc.iat, tc.exp, now), tc.wantErr)
		})
	}
	require.ErrorIs(t, TokenLifetimes{}.CheckLifetime(PrincipalUser, now, now.Add(time.Second), now), ErrTokenLifetime,
		"no configured lifetime refuses every token")
}

func TestTokenLifetimesValidate(t *testing.T) {
	require.NoError(t, DefaultTokenLifetimes().Validate())
	require.Error(t, TokenLifetimes{User: 0, Agent: time.Hour}.Validate())
	require.Error(t, TokenLifetimes{User: time.Hour, Agent: 25 * time.Hour}.Validate())
}
