package auth

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMintedClaimsBytes pins the exact claim bytes a minter signs: member
// order, names and omissions. Tokens minted by every release must read the
// same, so a change here is a change of the token format.
func TestMintedClaimsBytes(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	tests := map[string]struct {
		principal Principal
		want      string
	}{
		"user": {principal: Principal{Type: PrincipalUser, ID: "u", OrgID: "o", Role: "member"},
			want: `{"iss":"https://ocv.example","sub":"u","aud":"ocv","iat":1767323045,"exp":1767323105,` +
				`"jti":"j","org_id":"o","principal_type":"user","role":"member","iat_ms":1767323045600}`},
		"platform admin": {principal: Principal{Type: PrincipalUser, ID: "u", OrgID: "o", Role: "owner", PlatformRole: "super_admin"},
			want: `{"iss":"https://ocv.example","sub":"u","aud":"ocv","iat":1767323045,"exp":1767323105,` +
				`"jti":"j","org_id":"o","principal_type":"user","role":"owner","platform_role":"super_admin","iat_ms":1767323045600}`},
		"agent, no policies": {principal: Principal{Type: PrincipalAgent, ID: "a", OrgID: "o", Agent: &AgentClaims{}},
			want: `{"iss":"https://ocv.example","sub":"a","aud":"ocv","iat":1767323045,"exp":1767330245,` +
				`"jti":"j","org_id":"o","principal_type":"agent","scopes":[],"intents_api_enabled":false,` +
				`"execution_intents_enabled":false,"iat_ms":1767323045600}`},
		"agent, every claim": {principal: Principal{Type: PrincipalAgent, ID: "a", OrgID: "o", Agent: &AgentClaims{
			Scopes: []string{"prod/*", "shared/db"}, Environment: "production", IntentsAPIEnabled: true,
			ExecutionIntentsEnabled: true, IntentsRequireTEE: true, ExecutionRequireTEE: true}},
			want: `{"iss":"https://ocv.example","sub":"a","aud":"ocv","iat":1767323045,"exp":1767330245,` +
				`"jti":"j","org_id":"o","principal_type":"agent","scopes":["prod/*","shared/db"],"environment":"production",` +
				`"intents_api_enabled":true,"execution_intents_enabled":true,"intents_require_tee":true,` +
				`"execution_require_tee":true,"iat_ms":1767323045600}`},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			m := NewMinter(&captureSigner{}, "https://ocv.example", time.Minute)
			c, _, err := m.claims(tc.principal, now, "j")
			require.NoError(t, err)
			body, err := json.Marshal(c)
			require.NoError(t, err)
			require.Equal(t, tc.want, string(body))
		})
	}
}
