package ops

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
)

// TestCreateKEKAuthority: a KEK is made only for an owner or admin of the
// vault's organization, under that organization's key id.
func TestCreateKEKAuthority(t *testing.T) {
	f := newFixture(t)
	tok := func(org, ptype, sub, role string) string { return f.token(t, claimsFor(org, ptype, sub, role)) }
	tests := map[string]struct {
		req     wire.CreateKEKRequest
		wantErr error
		want    uint32
	}{
		"ok owner creates version 1": {req: wire.CreateKEKRequest{Token: tok("org-a", "user", "u1", "owner"), OrgID: "org-a", VaultID: "v-owner"}, want: 1},
		"ok admin creates version 1": {req: wire.CreateKEKRequest{Token: tok("org-a", "user", "u2", "admin"), OrgID: "org-a", VaultID: "v-admin"}, want: 1},
		"ok admin rotates":           {req: wire.CreateKEKRequest{Token: tok("org-a", "user", "u2", "admin"), OrgID: "org-a", VaultID: "v-owner"}, want: 2},
		"fail no token":              {req: wire.CreateKEKRequest{OrgID: "org-a", VaultID: "v1"}, wantErr: wire.ErrForbidden},
		"fail garbage token":         {req: wire.CreateKEKRequest{Token: "a.b.c", OrgID: "org-a", VaultID: "v1"}, wantErr: wire.ErrForbidden},
		"fail another org":           {req: wire.CreateKEKRequest{Token: tok("org-a", "user", "u1", "owner"), OrgID: "org-b", VaultID: "v1"}, wantErr: wire.ErrForbidden},
		"fail member":                {req: wire.CreateKEKRequest{Token: tok("org-a", "user", "m", "member"), OrgID: "org-a", VaultID: "v1"}, wantErr: wire.ErrForbidden},
		"fail member rotates":        {req: wire.CreateKEKRequest{Token: tok("org-a", "user", "m", "member"), OrgID: "org-a", VaultID: "v-owner"}, wantErr: wire.ErrForbidden},
		"fail no role":               {req: wire.CreateKEKRequest{Token: tok("org-a", "user", "n", ""), OrgID: "org-a", VaultID: "v1"}, wantErr: wire.ErrForbidden},
		"fail agent":                 {req: wire.CreateKEKRequest{Token: tok("org-a", "agent", "ag", ""), OrgID: "org-a", VaultID: "v1"}, wantErr: wire.ErrForbidden},
		"fail empty org":             {req: wire.CreateKEKRequest{Token: tok("org-a", "user", "u1", "owner"), VaultID: "v1"}, wantErr: wire.ErrBadRequest},
		"fail slash in vault":        {req: wire.CreateKEKRequest{Token: tok("org-a", "user", "u1", "owner"), OrgID: "org-a", VaultID: "a/b"}, wantErr: wire.ErrBadRequest},
		"fail slash in org":          {req: wire.CreateKEKRequest{Token: tok("org-a", "user", "u1", "owner"), OrgID: "org-a/x", VaultID: "v1"}, wantErr: wire.ErrBadRequest},
	}
	// Map order is random; the rotation case needs v-owner made first.
	order := []string{"ok owner creates version 1", "ok admin creates version 1", "ok admin rotates"}
	for name := range tests {
		if name[:2] != "ok" {
			order = append(order, name)
		}
	}
	for _, name := range order {
		tc := tests[name]
		t.Run(name, func(t *testing.T) {
			var resp wire.CreateKEKResponse
			err := f.call(t, wire.OpCreateKEK, &tc.req, &resp)
			require.ErrorIs(t, err, tc.wantErr)
			if tc.wantErr == nil {
				require.Equal(t, tc.want, resp.KEKVersion)
			}
		})
	}
	versions, err := f.ks.Versions(t.Context(), "kek/org-a/v-owner")
	require.NoError(t, err)
	require.Equal(t, []uint32{1, 2}, versions, "the key id names the organization")
	versions, err = f.ks.Versions(t.Context(), "kek/org-b/v1")
	require.NoError(t, err)
	require.Empty(t, versions, "nothing was made for the other organization")
}

// TestCreateKEKReasons: each refusal is logged with its own reason.
func TestCreateKEKReasons(t *testing.T) {
	f := newFixture(t)
	tests := map[string]struct{ org, ptype, role, reason string }{
		"other org": {"org-b", "user", "owner", "token of another organization"},
		"agent":     {"org-a", "agent", "", "only a user"},
		"member":    {"org-a", "user", "member", "only an owner or admin"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := f.h.CreateKEK(t.Context(), &wire.CreateKEKRequest{Token: f.token(t, claimsFor(tc.org, tc.ptype, "s", tc.role)), OrgID: "org-a", VaultID: "v"})
			require.ErrorIs(t, err, wire.ErrForbidden)
			require.Contains(t, err.Error(), tc.reason)
		})
	}
}
