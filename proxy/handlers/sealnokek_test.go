package handlers

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/httperr"
)

// vaultsByOrg is a VaultStore that knows which organization holds which
// vault (GetVault only).
type vaultsByOrg struct {
	VaultStore
	owner map[string]string // vault id -> org id
	err   error
}

func (v vaultsByOrg) GetVault(_ context.Context, orgID, id string) (store.Vault, error) {
	if v.err != nil {
		return store.Vault{}, v.err
	}
	if v.owner[id] != orgID {
		return store.Vault{}, store.NotFound("vault")
	}
	return store.Vault{ID: id, OrgID: orgID}, nil
}

func TestSealRefusedNoKEK(t *testing.T) {
	const mine, theirs, vault = "org-mine", "org-theirs", "vault-1"
	down := errors.New("connection refused")
	tests := map[string]struct {
		org, vault string
		err        error
		status     int
		typ        string
		wantErr    error
	}{
		"own vault, KEK destroyed": {org: mine, vault: vault, status: http.StatusGone, typ: problem.TypeKEKDestroyed,
			wantErr: wire.ErrKEKDestroyed},
		// Not an oracle: another organization's vault answers exactly like
		// a vault that exists nowhere.
		"fail vault of another organization": {org: theirs, vault: vault, status: http.StatusNotFound,
			typ: problem.TypeNotFound, wantErr: store.ErrNotFound},
		"fail vault that exists nowhere": {org: mine, vault: "vault-none", status: http.StatusNotFound,
			typ: problem.TypeNotFound, wantErr: store.ErrNotFound},
		"fail store down": {org: mine, vault: vault, err: down, status: http.StatusInternalServerError,
			typ: problem.TypeInternal, wantErr: down},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			h := &Handlers{Deps: Deps{Vaults: vaultsByOrg{owner: map[string]string{vault: mine}, err: tc.err}}}
			err := h.sealRefusedNoKEK(context.Background(), tc.org, tc.vault)
			require.ErrorIs(t, err, tc.wantErr)
			p := httperr.Problem(err)
			require.Equal(t, tc.status, p.Status)
			require.Equal(t, tc.typ, p.Type)
		})
	}
	t.Run("same answer for another organization's vault and no vault", func(t *testing.T) {
		h := &Handlers{Deps: Deps{Vaults: vaultsByOrg{owner: map[string]string{vault: mine}}}}
		a := httperr.Problem(h.sealRefusedNoKEK(context.Background(), theirs, vault))
		b := httperr.Problem(h.sealRefusedNoKEK(context.Background(), theirs, "vault-none"))
		require.Equal(t, a, b)
	})
}
