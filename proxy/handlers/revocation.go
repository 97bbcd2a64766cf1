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

// AdminDeleteUserEverywhere answers DELETE /v1/admin/users/{user_id}:
// AdminDeleteUser deletes the account (the proxy's cut-off in every
// organization goes with it), then the enclave cuts the user off for good
// (a deleted user gets no new token, so no stamp can precede it). Only
// then is the 204 sent: when the enclave refuses or cannot answer, the
// request fails, and its retry, finding the user gone, has the enclave cut
// it off and answers AdminDeleteUser's 404. A deletion the database
// refuses (the last owner of an organization, 409) touches no token.
func (h *Handlers) AdminDeleteUserEverywhere(w http.ResponseWriter, r *http.Request) error {
	userID, err := pathID(r, "user_id", "user")
	if err != nil || userID == principal(r).ID {
		return h.AdminDeleteUser(w, r) // 400
	}
	c, err := h.caller(r.Context())
	if err != nil {
		return err
	}
	forGood := func() error {
		return h.enclaveCutoff(r.Context(), c.Token, "", userID, wire.CutoffAllOrgs|wire.CutoffDelete)
	}
	if _, err := h.Accounts.UserByID(r.Context(), userID); errors.Is(err, store.ErrNotFound) {
		if err := forGood(); err != nil {
			return err
		}
		return h.AdminDeleteUser(w, r) // 404
	}
	rec := &deferredNoContent{ResponseWriter: w}
	if err := h.AdminDeleteUser(rec, r); err != nil || !rec.noContent {
		return err
	}
	if err := forGood(); err != nil {
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
