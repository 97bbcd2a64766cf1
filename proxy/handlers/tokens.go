package handlers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

var errBadAPIKey = problem.Unauthorized(problem.TypeInvalidCredentials, "the API key is invalid, expired or deleted")

// APIKeyToken answers POST /v1/auth/api-key-token: a personal API key for
// an access token of its owner (no refresh token: the key is the long-lived
// credential).
func (h *Handlers) APIKeyToken(w http.ResponseWriter, r *http.Request) error {
	var in api.APIKeyTokenRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.APIKey == nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "api_key is required")
	}
	if h.Verifier == nil || h.Verifier.APIKeys == nil {
		return errBadAPIKey
	}
	k, err := h.Verifier.APIKeys.Resolve(r.Context(), *in.APIKey)
	if errors.Is(err, auth.ErrInvalidToken) {
		return errBadAPIKey
	}
	if err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetOrg(k.OrgID, auth.PrincipalUser, k.UserID)
	entry.SetResource("api_key/" + k.ID)
	minted, err := h.Minter.APIKey(r.Context(), k, *in.APIKey)
	if errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrNoRecord) {
		return errBadAPIKey
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, bearerToken(minted.Token, minted.TTL))
}

var errBadRefresh = problem.Unauthorized(problem.TypeInvalidToken,
	"the refresh token is invalid, expired, revoked or already used")

// Refresh answers POST /v1/auth/refresh: a refresh token for a new access
// token and a new refresh token. Each refresh token works once; presenting
// a spent one again revokes every refresh token of its family (the chain of
// rotations since one sign-in), since one of the two holders is a thief.
func (h *Handlers) Refresh(w http.ResponseWriter, r *http.Request) error {
	var in api.RefreshRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.RefreshToken == nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "refresh_token is required")
	}
	if !auth.WellFormed(auth.RefreshPrefix, *in.RefreshToken) || h.Identity.RefreshTTL <= 0 {
		return errBadRefresh
	}
	next, row, err := h.newRefreshToken()
	if err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	var access string
	var ttl time.Duration
	issue := func(ctx context.Context, g store.RefreshGrant) (*auditchain.Event, error) {
		entry.SetOrg(g.OrgID, auth.PrincipalUser, g.UserID)
		entry.SetResource("refresh_family/" + g.FamilyID)
		rec := refreshRecord(store.RefreshToken{OrgID: g.OrgID, UserID: g.UserID, FamilyID: g.FamilyID, Hash: row.Hash,
			ExpiresAt: row.ExpiresAt})
		minted, err := h.Minter.Refresh(ctx, g.UserID, g.OrgID, g.FamilyID, *in.RefreshToken, rec)
		if errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrNoRecord) {
			err = store.ErrNotFound // the enclave refused it: as unknown
		}
		access, ttl = minted.Token, minted.TTL
		return entry.Prepare(http.StatusOK), err
	}
	onReuse := func(g store.RefreshGrant) []*auditchain.Event {
		entry.SetOrg(g.OrgID, "anonymous", "")
		entry.SetResource("refresh_family/" + g.FamilyID)
		ev := entry.Prepare(http.StatusUnauthorized)
		revoked := *ev
		revoked.Action = "auth.refresh.family_revoked"
		return []*auditchain.Event{ev, &revoked}
	}
	err = h.Accounts.RotateRefreshToken(r.Context(), auth.HashOpaque(*in.RefreshToken), row, issue, onReuse)
	switch {
	case errors.Is(err, store.ErrReused):
		return errBadRefresh
	case errors.Is(err, store.ErrNotFound):
		return errBadRefresh
	case err != nil:
		return err
	}
	resp := bearerToken(access, ttl)
	resp.RefreshToken = next
	return writeJSON(w, http.StatusOK, resp)
}
