package handlers

import (
	"errors"
	"net/http"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

var errWrongPassword = problem.Unauthorized(problem.TypeInvalidCredentials, "the current password is incorrect")

// ChangePassword answers POST /v1/auth/change-password. A wrong current
// password counts towards the lockout like a failed sign-in (so that a
// stolen access token cannot be used to guess the password). On success
// every refresh token of the user is revoked.
func (h *Handlers) ChangePassword(w http.ResponseWriter, r *http.Request) error {
	var in api.ChangePasswordRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.CurrentPassword == nil || in.NewPassword == nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "current_password and new_password are required")
	}
	u, entry, err := h.passwordChange(r, "new_password", *in.NewPassword)
	if err != nil {
		return err
	}
	if u.PasswordHash == "" {
		return problem.BadRequest(problem.TypeInvalidRequest, "no password is set; use POST /v1/auth/set-password")
	}
	if h.now().Before(u.LockedUntil) {
		return h.accountLocked(w, u.LockedUntil)
	}
	err = verifyPassword(r.Context(), u.PasswordHash, *in.CurrentPassword)
	if errors.Is(err, auth.ErrPasswordMismatch) {
		return h.passwordFailed(w, r, u.ID, errWrongPassword)
	}
	if err != nil {
		return err
	}
	hash, err := auth.HashPassword(r.Context(), *in.NewPassword)
	if err != nil {
		return err
	}
	// The enclave checks the current password against the sealed record
	// itself and cuts off the user's earlier tokens.
	if err := h.Minter.ChangePassword(r.Context(), "", u.ID, *in.CurrentPassword, hash); err != nil {
		return sealError(err)
	}
	if err := h.Accounts.ChangePassword(r.Context(), u.ID, hash, entry.Prepare(http.StatusOK)); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.Message{Message: "password changed; every refresh token of the account was revoked"})
}

var errPasswordSet = problem.BadRequest(problem.TypeInvalidRequest, "a password is already set; use POST /v1/auth/change-password")

// SetPassword answers POST /v1/auth/set-password for a user without a
// password (400 when one is set).
func (h *Handlers) SetPassword(w http.ResponseWriter, r *http.Request) error {
	var in api.SetPasswordRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Password == nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "password is required")
	}
	u, entry, err := h.passwordChange(r, "password", *in.Password)
	if err != nil {
		return err
	}
	if u.PasswordHash != "" {
		return errPasswordSet
	}
	hash, err := auth.HashPassword(r.Context(), *in.Password)
	if err != nil {
		return err
	}
	c, err := h.caller(r.Context())
	if err != nil {
		return err
	}
	if err := h.Minter.ChangePassword(r.Context(), c.Token, u.ID, "", hash); err != nil {
		return sealError(err)
	}
	err = h.Accounts.SetPassword(r.Context(), u.ID, hash, entry.Prepare(http.StatusOK))
	if errors.Is(err, store.ErrConflict) {
		return errPasswordSet
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.Message{Message: "password set"})
}

// passwordChange checks the new password in field, then returns the
// signed-in user it is for and the request's audit entry, naming the user.
func (h *Handlers) passwordChange(r *http.Request, field, password string) (store.User, *auditlog.Entry, error) {
	if err := checkNewPassword(field, password); err != nil {
		return store.User{}, nil, err
	}
	u, err := h.currentUser(r)
	if err != nil {
		return store.User{}, nil, err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("user/" + u.ID)
	return u, entry, nil
}
