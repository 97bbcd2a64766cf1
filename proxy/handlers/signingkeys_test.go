package handlers

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/proxy/auth"
)

func TestMayManageKeys(t *testing.T) {
	user := func(role string) auth.Principal { return auth.Principal{Type: auth.PrincipalUser, Role: role} }
	agent := auth.Principal{Type: auth.PrincipalAgent}
	key := []byte{1}
	tests := map[string]struct {
		p       auth.Principal
		private []byte
		rotate  bool
		want    bool
	}{
		"owner creates":       {p: user("owner"), want: true},
		"admin rotates":       {p: user("admin"), rotate: true, want: true},
		"admin imports":       {p: user("admin"), private: key, want: true},
		"fail member creates": {p: user("member")},
		"fail member rotates": {p: user("member"), rotate: true},
		"fail member imports": {p: user("member"), private: key},
		"fail unknown role":   {p: user("Owner")},
		"agent creates":       {p: agent, want: true},
		"fail agent rotates":  {p: agent, rotate: true},
		"fail agent imports":  {p: agent, private: key},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, mayManageKeys(tc.p, tc.private, tc.rotate))
		})
	}
}
