package ops

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/opencustody/ocv/enclave/internal/floors"
	"github.com/opencustody/ocv/enclave/internal/tokens"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// dispatchRevocation runs OpRevokeToken and OpSetCutoff.
func (h *Handler) dispatchRevocation(ctx context.Context, op wire.Op, body, out []byte) ([]byte, error) {
	if op == wire.OpRevokeToken {
		var req wire.RevokeTokenRequest
		if err := req.Decode(body); err != nil {
			return out, err
		}
		exp, err := h.authz.revokeToken(ctx, req.Token)
		if err != nil {
			return out, err
		}
		return (&wire.RevokeTokenResponse{ExpiresAtMs: exp}).Append(out)
	}
	var req wire.SetCutoffRequest
	if err := req.Decode(body); err != nil {
		return out, err
	}
	nb, err := h.authz.setCutoff(ctx, &req)
	if err != nil {
		return out, err
	}
	return (&wire.SetCutoffResponse{NotBeforeMs: nb}).Append(out)
}

// verifySigned verifies token (signature, issuer, lifetime, expiry) at
// the enclave's clock, without the revocation check. A bad token is
// Forbidden; a key-store failure is an outage.
func (a *authorizer) verifySigned(ctx context.Context, token string) (tokens.Claims, error) {
	if token == "" {
		return tokens.Claims{}, forbidden("no token")
	}
	c, err := a.verifier.Verify(ctx, token, a.now())
	switch {
	case errors.Is(err, tokens.ErrExpired):
		return tokens.Claims{}, forbidden("token expired")
	case errors.Is(err, tokens.ErrInvalidToken):
		return tokens.Claims{}, forbidden("token invalid")
	case err != nil:
		return tokens.Claims{}, fmt.Errorf("%w: verifying token: %w", wire.ErrUnavailable, err)
	}
	return c, nil
}

// revokeToken signs token out: its jti is kept revoked until its exp. The
// token is its own authority, so a token already signed out or cut off
// may still revoke itself (a retry converges); any other caller cannot
// name a jti. It returns the exp in Unix milliseconds.
func (a *authorizer) revokeToken(ctx context.Context, token string) (int64, error) {
	c, err := a.verifySigned(ctx, token)
	if err != nil {
		return 0, err
	}
	name := revokedFloor(c.JTI)
	if !floorNamePart(c.JTI) || len(name) > maxFloorName {
		return 0, forbidden("token id cannot be revoked")
	}
	exp := c.ExpiresAt.UnixMilli()
	if a.floors == nil {
		return 0, fmt.Errorf("%w: no revocation store", wire.ErrUnavailable)
	}
	if _, err := a.floors.Load(ctx, name); err == nil {
		return exp, nil // already revoked
	} else if !errors.Is(err, floors.ErrNoFloor) {
		return 0, fmt.Errorf("%w: revoking token: %w", wire.ErrUnavailable, err)
	}
	if err := a.floors.Set(ctx, name, floors.Floor{NotBefore: exp}); err != nil {
		return 0, fmt.Errorf("%w: revoking token: %w", wire.ErrUnavailable, err)
	}
	return exp, nil
}

// CutoffMargin is how far ahead of the enclave's clock a cut-off is set,
// the same margin the proxy's database gives its own cut-offs
// (store.revokeUserTokens, agents' tokens_valid_after): a token minted
// after a cut-off is stamped with it (iat_ms in the future), so the next
// cut-off, even within that second, must lie beyond it. The proxy asks
// the enclave before it writes its own cut-off, so its stamps for new
// tokens are never before this one (clocks agreeing within the time
// between the two).
const CutoffMargin = time.Second

// setCutoff cuts off the tokens of req.PrincipalID issued before now plus
// CutoffMargin (or for ever, with wire.CutoffDelete), with the authority of req.Token
// (cutoffAllowed). A cut-off never moves back. It returns the cut-off in
// force.
func (a *authorizer) setCutoff(ctx context.Context, req *wire.SetCutoffRequest) (int64, error) {
	allOrgs, del, agent := req.Flags&wire.CutoffAllOrgs != 0, req.Flags&wire.CutoffDelete != 0, req.Flags&wire.CutoffAgent != 0
	wholeOrg := req.Flags&wire.CutoffOrg != 0
	org := req.OrgID
	switch {
	case wholeOrg && (allOrgs || agent || req.PrincipalID != wire.OrgCutoffPrincipal):
		return 0, fmt.Errorf("%w: an organization's cut-off names the organization only", wire.ErrBadRequest)
	case !wholeOrg && req.PrincipalID == wire.OrgCutoffPrincipal:
		return 0, fmt.Errorf("%w: principal id cannot name a cut-off", wire.ErrBadRequest)
	case !floorNamePart(req.PrincipalID):
		return 0, fmt.Errorf("%w: principal id cannot name a cut-off", wire.ErrBadRequest)
	case allOrgs && (org != "" || agent):
		return 0, fmt.Errorf("%w: a cut-off in every organization is for a user, without an org id", wire.ErrBadRequest)
	case allOrgs:
		org = allOrgsFloor
	case !floorNamePart(org) || org == allOrgsFloor:
		return 0, fmt.Errorf("%w: org id cannot name a cut-off", wire.ErrBadRequest)
	}
	name := cutoffFloor(org, req.PrincipalID)
	if len(name) > maxFloorName {
		return 0, fmt.Errorf("%w: ids too long for a cut-off", wire.ErrBadRequest)
	}
	c, err := a.verifyToken(ctx, req.Token)
	if err != nil {
		return 0, err
	}
	if wholeOrg {
		// Only a platform administrator deletes organizations (with the
		// last member of one); the cut-off is for good.
		if c.PrincipalType != policy.PrincipalUser || c.PlatformRole != "admin" && c.PlatformRole != "super_admin" {
			return 0, forbidden("an organization's cut-off by someone not a platform administrator")
		}
		del = true
	} else if err := cutoffAllowed(c, req.OrgID, req.PrincipalID, allOrgs, del, agent); err != nil {
		return 0, err
	}
	nb := int64(math.MaxInt64)
	if !del {
		nb = a.now().Add(CutoffMargin).UnixMilli()
	}
	return a.raiseCutoff(ctx, name, nb)
}

// cutoffAllowed is the authority to cut off a principal: only a human may;
// an owner or admin of the organization for its members and agents (a
// member's removal is a cut-off, not a deletion: it may be invited again);
// a user for itself (not a deletion); a platform administrator for a user
// in every organization.
func cutoffAllowed(c tokens.Claims, org, id string, allOrgs, del, agent bool) error {
	if c.PrincipalType != policy.PrincipalUser {
		return forbidden("only a human may cut off tokens")
	}
	self := c.Subject == id && !agent
	if allOrgs {
		if c.PlatformRole == "admin" || c.PlatformRole == "super_admin" || self && !del {
			return nil
		}
		return forbidden("a cut-off in every organization by neither the user nor a platform administrator")
	}
	switch {
	case c.OrgID != org:
		return forbidden("a cut-off in another organization")
	case del && !agent:
		return forbidden("a member is cut off, never deleted, in one organization")
	case c.Role.BypassesPolicies(): // owner or admin
		return nil
	case self && !del:
		return nil
	}
	return forbidden("a cut-off of another principal by a member")
}

// raiseCutoff makes nb the cut-off of name unless it already is later,
// and returns the one in force. Another enclave writing at the same time
// could put back an earlier one; the value read back is written again
// once when that happened.
func (a *authorizer) raiseCutoff(ctx context.Context, name string, nb int64) (int64, error) {
	if a.floors == nil {
		return 0, fmt.Errorf("%w: no revocation store", wire.ErrUnavailable)
	}
	for range 2 {
		cur, err := a.floors.Load(ctx, name)
		if err != nil && !errors.Is(err, floors.ErrNoFloor) {
			return 0, fmt.Errorf("%w: reading cut-off: %w", wire.ErrUnavailable, err)
		}
		if err == nil && cur.NotBefore >= nb {
			return cur.NotBefore, nil
		}
		cur.NotBefore = nb
		if err := a.floors.Set(ctx, name, cur); err != nil {
			return 0, fmt.Errorf("%w: writing cut-off: %w", wire.ErrUnavailable, err)
		}
	}
	cur, err := a.floors.Load(ctx, name)
	if err != nil {
		return 0, fmt.Errorf("%w: reading cut-off: %w", wire.ErrUnavailable, err)
	}
	if cur.NotBefore < nb {
		return 0, fmt.Errorf("%w: cut-off %s did not hold", wire.ErrUnavailable, name)
	}
	return cur.NotBefore, nil
}
