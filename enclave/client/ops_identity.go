package client

import (
	"bytes"
	"context"
	"fmt"

	"github.com/opencustody/ocv/enclave/wire"
)

// MintToken has the enclave check a credential against the sealed records
// it must match and mint an access token from those records. It is never
// retried automatically: a refresh rotation happens at most once.
func (c *Client) MintToken(ctx context.Context, req wire.MintTokenRequest) (wire.MintTokenResponse, error) {
	var resp wire.MintTokenResponse
	cn, err := c.call(ctx, wire.OpMintToken, false, &req, &resp)
	if err != nil {
		return wire.MintTokenResponse{}, err
	}
	out := wire.MintTokenResponse{Token: resp.Token, KID: resp.KID, ExpiresAt: resp.ExpiresAt, IssuedAtMs: resp.IssuedAtMs,
		RefreshMAC: bytes.Clone(resp.RefreshMAC)}
	c.put(cn)
	if len(req.NextRefresh) != 0 && len(out.RefreshMAC) != wire.IdentityMACLen {
		return wire.MintTokenResponse{}, fmt.Errorf("%w: refresh record mac of %d bytes", wire.ErrInternal, len(out.RefreshMAC))
	}
	return out, nil
}

// SealIdentity has the enclave seal new identity records once it has
// checked the authority for them; it returns one MAC per record. It is
// never retried automatically (a retry of a sealed version is a conflict).
func (c *Client) SealIdentity(ctx context.Context, req wire.SealIdentityRequest) ([][]byte, error) {
	var resp wire.SealIdentityResponse
	cn, err := c.call(ctx, wire.OpSealIdentity, false, &req, &resp)
	if err != nil {
		return nil, err
	}
	macs := make([][]byte, len(resp.MACs))
	for i, m := range resp.MACs {
		macs[i] = bytes.Clone(m)
	}
	c.put(cn)
	if len(macs) != len(req.Records) {
		return nil, fmt.Errorf("%w: %d macs for %d records", wire.ErrInternal, len(macs), len(req.Records))
	}
	for _, m := range macs {
		if len(m) != wire.IdentityMACLen {
			return nil, fmt.Errorf("%w: identity mac of %d bytes", wire.ErrInternal, len(m))
		}
	}
	return macs, nil
}
