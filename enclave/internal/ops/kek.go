package ops

import (
	"context"
	"fmt"

	"github.com/opencustody/ocv/enclave/internal/envelope"
	"github.com/opencustody/ocv/enclave/internal/tokens"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// CreateKEK creates the next KEK version of a vault: version 1 when the
// vault has none yet (a vault being created), a later one for a rotation.
// Either needs the access token of a user who is an owner or admin of the
// vault's organization, and the key is made under the id of the
// organization that token names, so a request can only ever create a key
// of the caller's own organization.
func (h *Handler) CreateKEK(ctx context.Context, req *wire.CreateKEKRequest) (*wire.CreateKEKResponse, error) {
	if !envelope.ValidKeyNamePart(req.OrgID) || !envelope.ValidKeyNamePart(req.VaultID) {
		return nil, fmt.Errorf("%w: org and vault ids must be non-empty [A-Za-z0-9._-]", wire.ErrBadRequest)
	}
	c, err := h.authz.verifyToken(ctx, req.Token)
	if err != nil {
		return nil, err
	}
	if err := requireOrgAdmin(c, req.OrgID); err != nil {
		return nil, err
	}
	v, err := h.sealer.CreateKEK(ctx, c.OrgID, req.VaultID)
	if err != nil {
		return nil, err
	}
	return &wire.CreateKEKResponse{KEKVersion: v}, nil
}

// requireOrgAdmin accepts only the claims of a user who is an owner or an
// admin of orgID. Key material of an organization (a vault's KEK, the
// destruction of an agent's retired keys) needs that authority.
func requireOrgAdmin(c tokens.Claims, orgID string) error {
	switch {
	case c.OrgID != orgID:
		return forbidden("token of another organization")
	case c.PrincipalType != policy.PrincipalUser:
		return forbidden("only a user may manage an organization's keys")
	case c.Role != policy.RoleOwner && c.Role != policy.RoleAdmin:
		return forbidden("only an owner or admin may manage an organization's keys")
	}
	return nil
}
