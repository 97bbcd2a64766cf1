package client

import (
	"bytes"
	"context"

	"github.com/opencustody/ocv/enclave/wire"
)

// ExtendAuditHead has the enclave extend an organization's audit chain from
// req's previous head over req's event digests and sign the new head; the
// signature covers SHA-256 of wire.AuditHeadMessage. A chain that does not
// extend the last head the enclave signed gets wire.ErrConflict.
func (c *Client) ExtendAuditHead(ctx context.Context, req wire.ExtendAuditHeadRequest) (wire.ExtendAuditHeadResponse, error) {
	var resp wire.ExtendAuditHeadResponse
	cn, err := c.call(ctx, wire.OpExtendAuditHead, true, &req, &resp)
	if err != nil {
		return wire.ExtendAuditHeadResponse{}, err
	}
	out := resp
	out.Signature = bytes.Clone(resp.Signature)
	c.put(cn)
	return out, nil
}
