package handlers

import (
	"net/http"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
)

// refreshRecord is the identity record of a refresh token row: the
// enclave seals it with the token it mints, and checks the next refresh
// against it.
func refreshRecord(row store.RefreshToken) *wire.IdentityRecord {
	var v [32]byte
	copy(v[:], row.Hash)
	return &wire.IdentityRecord{Kind: wire.IdentityRefresh, OrgID: row.OrgID, UserID: row.UserID, ID: row.FamilyID,
		Verifiers: [][32]byte{v}, ExpiresMs: row.ExpiresAt.UnixMilli()}
}

// errIdentityRefused answers a change the enclave refused to seal.
var errIdentityRefused = problem.New(http.StatusForbidden, problem.TypeForbidden,
	"the change is not authorised")

// sealError maps the enclave's refusal to seal to 403.
func sealError(err error) error {
	if err == auth.ErrSealRefused {
		return errIdentityRefused
	}
	return err
}
