package wire

import (
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestClaimNamesMatchTags holds the Claim* constants and the JSON tags of
// Claims together: every member Claims encodes has its constant, in field
// order, and no constant names a member Claims does not carry (nbf aside:
// it is read, never minted).
func TestClaimNamesMatchTags(t *testing.T) {
	want := []string{
		ClaimIssuer, ClaimSubject, ClaimAudience, ClaimIssuedAt, ClaimExpiresAt, ClaimID, ClaimOrgID,
		ClaimPrincipalType, ClaimRole, ClaimPlatformRole, ClaimScopes, ClaimEnvironment, ClaimIntentsAPIEnabled,
		ClaimExecutionIntentsEnabled, ClaimIntentsRequireTEE, ClaimExecutionRequireTEE, ClaimIssuedAtMs,
	}
	typ := reflect.TypeFor[Claims]()
	var got []string
	for i := range typ.NumField() {
		name, _, _ := strings.Cut(typ.Field(i).Tag.Get("json"), ",")
		require.NotEmpty(t, name, typ.Field(i).Name)
		got = append(got, name)
	}
	require.Equal(t, want, got)
	require.NotContains(t, got, ClaimNotBefore)
}
