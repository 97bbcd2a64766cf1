package client

import (
	"context"

	"github.com/opencustody/ocv/enclave/wire"
)

// DestroySigningKey has the enclave destroy retired versions of an agent's
// signing key in the HSM (every version below req.Below, or every version
// when it is 0) and returns how many it destroyed. req.Token must be an
// owner's or admin's of req.OrgID (wire.ErrForbidden otherwise). Retrying
// is harmless: a version already gone is skipped.
func (c *Client) DestroySigningKey(ctx context.Context, req wire.DestroySigningKeyRequest) (uint32, error) {
	var resp wire.DestroySigningKeyResponse
	cn, err := c.call(ctx, wire.OpDestroySigningKey, true, &req, &resp)
	if err != nil {
		return 0, err
	}
	c.put(cn)
	return resp.Destroyed, nil
}
