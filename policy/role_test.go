package policy

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRole(t *testing.T) {
	tests := map[string]struct {
		in         string
		want       Role
		wantBypass bool
		wantErr    error
	}{
		"owner":          {in: "owner", want: RoleOwner, wantBypass: true},
		"admin":          {in: "admin", want: RoleAdmin, wantBypass: true},
		"member":         {in: "member", want: RoleMember},
		"fail uppercase": {in: "Owner", wantErr: ErrInvalidRole}, // exact lowercase only
		"fail padded":    {in: " admin", wantErr: ErrInvalidRole},
		"fail empty":     {in: "", wantErr: ErrInvalidRole},
		"fail unknown":   {in: "superadmin", wantErr: ErrInvalidRole},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			r, err := ParseRole(tc.in)
			require.ErrorIs(t, err, tc.wantErr)
			require.Equal(t, tc.want, r)
			require.Equal(t, tc.wantBypass, r.BypassesPolicies())
		})
	}
}
