package ops

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
)

// DestroySigningKey destroys retired versions of an agent's key for one
// chain in the key store: every version below req.Below, which must exist
// (a rotation destroys only what an existing newer version replaced), or,
// when req.Below is 0, every version (the key was deleted). It needs the
// token of a user who is an owner or admin of the organization, and it
// only ever addresses that organization's keys. A version already gone is
// not an error, so a retry after a partial failure finishes the job.
func (h *Handler) DestroySigningKey(ctx context.Context, req *wire.DestroySigningKeyRequest) (*wire.DestroySigningKeyResponse, error) {
	if _, ok := chainAlgorithms[req.Chain]; !ok {
		return nil, fmt.Errorf("%w: no signing keys for chain %q", wire.ErrBadRequest, req.Chain)
	}
	if _, err := signingKeyID(req.OrgID, req.AgentID, req.Chain); err != nil {
		return nil, err
	}
	c, err := h.authz.verifyToken(ctx, req.Token)
	if err != nil {
		return nil, err
	}
	if err := requireOrgAdmin(c, req.OrgID); err != nil {
		return nil, err
	}
	id, err := signingKeyID(c.OrgID, req.AgentID, req.Chain)
	if err != nil {
		return nil, err
	}
	versions, err := h.ks.Versions(ctx, id)
	if err != nil {
		return nil, fmt.Errorf("listing signing key versions: %w", err)
	}
	if req.Below != 0 && !slices.Contains(versions, req.Below) {
		return nil, fmt.Errorf("%w: the replacing key version does not exist", wire.ErrNotFound)
	}
	var n uint32
	for _, v := range versions {
		if req.Below != 0 && v >= req.Below {
			continue
		}
		err := h.ks.DestroyKey(ctx, keyvault.KeyRef{ID: id, Version: v})
		if errors.Is(err, keyvault.ErrKeyNotFound) {
			continue // destroyed meanwhile by another request
		}
		if err != nil {
			return nil, fmt.Errorf("destroying signing key version %d: %w", v, err)
		}
		n++
	}
	return &wire.DestroySigningKeyResponse{Destroyed: n}, nil
}
