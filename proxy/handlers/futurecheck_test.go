package handlers

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/api"
)

// TestFutureChecksUseTheGivenClock checks that the "must be in the future"
// checks of a policy's expires_at and an agent's api_key_expires_at judge
// on the clock they are given (the database's, h.now()), not on this
// process's: a replica whose own clock is an hour slow must refuse a time
// the database has already passed, and one an hour fast must accept a time
// the database has not reached.
func TestFutureChecksUseTheGivenClock(t *testing.T) {
	local := time.Now()
	tests := map[string]struct {
		db      time.Time // the database's clock
		expires time.Time
		ok      bool
	}{
		// The replica's clock is slow: by its own time this is future.
		"fail past by the database's clock": {db: local.Add(time.Hour), expires: local.Add(30 * time.Minute)},
		"fail equal to the database's now":  {db: local, expires: local},
		// The replica's clock is fast: by its own time this is past.
		"ok future by the database's clock": {db: local.Add(-time.Hour), expires: local.Add(-30 * time.Minute), ok: true},
		"ok plainly future":                 {db: local, expires: local.Add(time.Hour), ok: true},
	}
	for name, tc := range tests {
		t.Run(name+" (policy expires_at)", func(t *testing.T) {
			pattern, ptype, pid := "*", "user", "6f1c7a52-3f4e-4f7d-9a51-2b9b0c1d2e3f"
			in := api.PolicyWrite{SecretPathPattern: &pattern, PrincipalType: &ptype, PrincipalID: &pid,
				Permissions: []string{"read"}, ExpiresAt: &tc.expires}
			_, err := policyRule(in, "0b0c5a8e-64a1-4f3b-8f0e-7f3d2c1b0a99", tc.db)
			if tc.ok {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, "expires_at must be in the future")
			}
		})
		t.Run(name+" (agent api_key_expires_at)", func(t *testing.T) {
			raw, err := json.Marshal(tc.expires)
			require.NoError(t, err)
			body := map[string]json.RawMessage{"name": json.RawMessage(`"bot"`), "api_key_expires_at": raw}
			in, err := parseAgentInput(body, true, tc.db)
			if tc.ok {
				require.NoError(t, err)
				require.True(t, in.APIKeyExpiresAt.Equal(tc.expires))
			} else {
				require.ErrorContains(t, err, "api_key_expires_at must be a future RFC 3339 timestamp")
			}
		})
	}
}
