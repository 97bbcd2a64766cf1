package handlers

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
)

// Revocation in the enclave. Every sign-out and cut-off the proxy records
// is also made in the enclave, with the caller's own token as authority,
// so that a token the proxy refuses opens nothing in the enclave either
// (docs/threat-model.md, "Revocation in the enclave"). The enclave step
// comes first, before the database transaction starts: when the enclave
// refuses or cannot answer, the request fails and nothing changed in the
// database, and a retry makes the cut-off again (a cut-off never moves
// back). The database's own cut-off, which new tokens are stamped with, is
// then never before the enclave's. A change the database then refuses
// leaves at most an early cut-off in the enclave: the principal signs in
// again.

// SignOut answers DELETE /v1/auth/token: the enclave signs the presented
// token out first (RevokeToken there is idempotent), then RevokeToken
// records it for every replica. An API key is no session: RevokeToken
// answers it.
func (h *Handlers) SignOut(w http.ResponseWriter, r *http.Request) error {
	if principal(r).APIKeyID == "" {
		if _, err := h.Enclave.RevokeToken(r.Context(), auth.BearerFrom(r.Context())); err != nil {
			return fmt.Errorf("signing the token out in the enclave: %w", err)
		}
	}
	return h.RevokeToken(w, r)
}

// enclaveCutoff has the enclave refuse the tokens of principalID in orgID
// issued until now (flags: wire.Cutoff*), with the authority of token.
func (h *Handlers) enclaveCutoff(ctx context.Context, token, orgID, principalID string, flags uint32) error {
	_, err := h.Enclave.SetCutoff(ctx, wire.SetCutoffRequest{OrgID: orgID, PrincipalID: principalID, Flags: flags, Token: token})
	if err != nil {
		return fmt.Errorf("cutting off tokens in the enclave: %w", err)
	}
	return nil
}

// callerCutoff is enclaveCutoff with the request's caller as authority.
func (h *Handlers) callerCutoff(r *http.Request, orgID, principalID string, flags uint32) error {
	c, err := h.caller(r.Context())
	if err != nil {
		return err
	}
	return h.enclaveCutoff(r.Context(), c.Token, orgID, principalID, flags)
}

// AdminDeleteUserEverywhere answers DELETE /v1/admin/users/{user_id}: the
// enclave first cuts off the user's tokens in every organization, then
// AdminDeleteUser deletes the account, then the enclave makes the cut-off
// permanent. A user already gone (a retry after the last step failed) gets
// the permanent cut-off and AdminDeleteUser's 404. The checks that need
// no database write run before the enclave is asked.
func (h *Handlers) AdminDeleteUserEverywhere(w http.ResponseWriter, r *http.Request) error {
	userID, err := pathID(r, "user_id", "user")
	if err != nil || userID == principal(r).ID {
		return h.AdminDeleteUser(w, r) // 400
	}
	c, err := h.caller(r.Context())
	if err != nil {
		return err
	}
	u, err := h.Accounts.UserByID(r.Context(), userID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		if err := h.enclaveCutoff(r.Context(), c.Token, "", userID, wire.CutoffAllOrgs|wire.CutoffDelete); err != nil {
			return err
		}
		return h.AdminDeleteUser(w, r)
	case err != nil:
		return err
	case u.PlatformRole != "" && principal(r).PlatformRole != "super_admin":
		return h.AdminDeleteUser(w, r) // 403
	}
	if err := h.enclaveCutoff(r.Context(), c.Token, "", userID, wire.CutoffAllOrgs); err != nil {
		return err
	}
	rec := &deferredNoContent{ResponseWriter: w}
	if err := h.AdminDeleteUser(rec, r); err != nil || !rec.noContent {
		return err
	}
	if err := h.enclaveCutoff(r.Context(), c.Token, "", userID, wire.CutoffAllOrgs|wire.CutoffDelete); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deferredNoContent holds back a 204 so that a later step may still fail
// the request; anything else goes through.
type deferredNoContent struct {
	http.ResponseWriter
	noContent bool
}

func (d *deferredNoContent) WriteHeader(status int) {
	if status == http.StatusNoContent {
		d.noContent = true
		return
	}
	d.ResponseWriter.WriteHeader(status)
}
