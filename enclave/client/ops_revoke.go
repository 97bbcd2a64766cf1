package client

import (
	"context"

	"github.com/opencustody/ocv/enclave/wire"
)

// RevokeToken has the enclave sign out the access token token (valid, its
// own authority): its jti is refused until its exp, which is returned in
// Unix milliseconds. Revoking a revoked token again succeeds, so a lost
// channel is retried.
func (c *Client) RevokeToken(ctx context.Context, token string) (int64, error) {
	var resp wire.RevokeTokenResponse
	cn, err := c.call(ctx, wire.OpRevokeToken, true, &wire.RevokeTokenRequest{Token: token}, &resp)
	if err != nil {
		return 0, err
	}
	c.put(cn)
	return resp.ExpiresAtMs, nil
}

// SetCutoff has the enclave refuse the access tokens of req.PrincipalID
// issued before now (for ever with wire.CutoffDelete), with the authority
// of req.Token (see wire.SetCutoffRequest), and returns the cut-off in
// force in Unix milliseconds. A cut-off never moves back, so a lost
// channel is retried.
func (c *Client) SetCutoff(ctx context.Context, req wire.SetCutoffRequest) (int64, error) {
	var resp wire.SetCutoffResponse
	cn, err := c.call(ctx, wire.OpSetCutoff, true, &req, &resp)
	if err != nil {
		return 0, err
	}
	c.put(cn)
	return resp.NotBeforeMs, nil
}
