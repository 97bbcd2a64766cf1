package auth

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestUserCutoffs(t *testing.T) {
	t0 := time.Unix(1000, 0)
	tests := map[string]struct {
		user, org string
		at        time.Time
		wantRefus bool
	}{
		"no cut-off":                      {user: "v", org: "o", at: t0.Add(-time.Hour)},
		"before the org's cut-off":        {user: "u", org: "o", at: t0.Add(-time.Millisecond), wantRefus: true},
		"at the org's cut-off":            {user: "u", org: "o", at: t0},
		"other organization":              {user: "u", org: "p", at: t0.Add(-time.Millisecond)},
		"before the all-orgs cut-off":     {user: "w", org: "p", at: t0.Add(-time.Millisecond), wantRefus: true},
		"after the all-orgs cut-off":      {user: "w", org: "p", at: t0.Add(time.Millisecond)},
		"cut-offs never move backwards":   {user: "x", org: "o", at: t0.Add(-time.Millisecond), wantRefus: true},
		"forgotten cut-offs do not apply": {user: "old", org: "o", at: t0.Add(-48 * time.Hour)},
	}
	c := NewUserCutoffs()
	c.Set("u", "o", t0)
	c.Set("w", AllOrgs, t0)
	c.Set("x", "o", t0)
	c.Set("x", "o", t0.Add(-time.Hour))
	c.Set("old", "o", t0.Add(-30*time.Hour))
	c.Forget(t0.Add(-25 * time.Hour))
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.wantRefus, c.Refuses(tc.user, tc.org, tc.at))
		})
	}
}
