package auth

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type captureSigner struct{ claims []byte }

func (c *captureSigner) SignJWT(_ context.Context, claims []byte) (string, error) {
	c.claims = claims
	return "signed", nil
}

func TestMintPlatformRole(t *testing.T) {
	tests := map[string]struct {
		principal Principal
		want      any
	}{
		"admin carries the claim": {principal: Principal{Type: PrincipalUser, ID: "u", OrgID: "o", Role: "owner", PlatformRole: "super_admin"}, want: "super_admin"},
		"ordinary user has none":  {principal: Principal{Type: PrincipalUser, ID: "u", OrgID: "o", Role: "member"}, want: nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s := &captureSigner{}
			_, ttl, err := NewMinter(s, "https://ocv.example", time.Minute).Mint(context.Background(), tc.principal)
			require.NoError(t, err)
			require.Equal(t, time.Minute, ttl)
			var claims map[string]any
			require.NoError(t, json.Unmarshal(s.claims, &claims))
			require.Equal(t, tc.want, claims["platform_role"])
			require.Equal(t, tc.principal.Role, claims["role"])
		})
	}
}
