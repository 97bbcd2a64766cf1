package tokens

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// TestVerifyReadsWireClaims checks the strict parser against the one
// definition of the claim set: a payload encoded from wire.Claims, as the
// proxy's minter encodes it, verifies to the claims it carries.
func TestVerifyReadsWireClaims(t *testing.T) {
	f := newFixture(t)
	scopes, yes, no := []string{"prod/*"}, true, false
	tests := map[string]struct {
		claims wire.Claims
		want   Claims
	}{
		"user": {
			claims: wire.Claims{Issuer: "https://ocv.test", Subject: "user-1", Audience: wire.TokenAudience,
				IssuedAt: now.Unix() - 10, ExpiresAt: now.Unix() + 900, ID: "jti-1", OrgID: "org-1",
				Type: policy.PrincipalUser, Role: "admin", PlatformRole: "super_admin", IssuedAtMs: now.UnixMilli() - 10_000},
			want: Claims{Issuer: "https://ocv.test", Subject: "user-1", OrgID: "org-1", PrincipalType: policy.PrincipalUser,
				Role: policy.RoleAdmin, JTI: "jti-1", IssuedAt: time.Unix(now.Unix()-10, 0), ExpiresAt: time.Unix(now.Unix()+900, 0),
				IssuedAtMs: now.UnixMilli() - 10_000, PlatformRole: "super_admin"},
		},
		"agent": {
			claims: wire.Claims{Issuer: "https://ocv.test", Subject: "agent-1", Audience: wire.TokenAudience,
				IssuedAt: now.Unix() - 10, ExpiresAt: now.Unix() + 900, ID: "jti-2", OrgID: "org-1",
				Type: policy.PrincipalAgent, Scopes: &scopes, Environment: "prod", IntentsAPIEnabled: &yes,
				ExecutionIntentsEnabled: &no, IntentsRequireTEE: true, IssuedAtMs: now.UnixMilli() - 10_000},
			want: Claims{Issuer: "https://ocv.test", Subject: "agent-1", OrgID: "org-1", PrincipalType: policy.PrincipalAgent,
				JTI: "jti-2", Environment: "prod", Scopes: []string{"prod/*"}, HasScopes: true, IntentsAPIEnabled: true,
				IssuedAt: time.Unix(now.Unix()-10, 0), ExpiresAt: time.Unix(now.Unix()+900, 0), IssuedAtMs: now.UnixMilli() - 10_000},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := f.v.Verify(t.Context(), f.mint(t, header("ocv-jwt-v1"), tc.claims), now)
			require.NoError(t, err)
			require.Equal(t, tc.want, got)
		})
	}
}
