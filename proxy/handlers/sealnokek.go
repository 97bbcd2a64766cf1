package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
)

// sealRefusedNoKEK answers a Seal that the enclave refused with
// wire.ErrNotFound: it holds no KEK of the caller's organization orgID for
// vaultID. Nothing was sealed (the enclave names KEKs by organization and
// vault, so it never wraps a key under another organization's KEK). The
// enclave cannot tell a vault that is not the caller's from one of the
// caller's whose every KEK was destroyed in the HSM; the store can, scoped
// by the caller's organization:
//
//   - the caller's own vault: 410 kek_destroyed, the vault can take no new
//     value (no oracle: the caller may see its own vault);
//   - a vault of another organization or one that exists nowhere: the same
//     404 for both (store.NotFound("vault")).
func (h *Handlers) sealRefusedNoKEK(ctx context.Context, orgID, vaultID string) error {
	_, err := h.Vaults.GetVault(ctx, orgID, vaultID)
	switch {
	case err == nil:
		return errors.Join(wire.ErrKEKDestroyed, problem.New(http.StatusGone,
			problem.TypeKEKDestroyed, fmt.Sprintf("the key-encryption key of vault %s is gone from the HSM: "+
				"the vault can take no new value, and the values sealed under it can never be read again", vaultID)))
	case errors.Is(err, store.ErrNotFound):
		return store.NotFound("vault")
	default:
		return fmt.Errorf("finding vault: %w", err)
	}
}
