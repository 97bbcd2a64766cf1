package handlers

import (
	"errors"
	"net/http"
	"net/mail"
	"strings"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

// Password rules: at least 8 characters (the spec's set-password minimum),
// at most 1024 bytes so that hashing stays bounded.
const (
	minPasswordChars = 8
	maxPasswordBytes = 1024
	maxEmailBytes    = 254
)

// validateCredentials checks an email and password pair: both present, the
// email a plain address. It returns the email, its lowercase key and the
// password.
func validateCredentials(emailIn, passwordIn *string) (email, emailKey, password string, err error) {
	if emailIn == nil || passwordIn == nil {
		return "", "", "", problem.BadRequest(problem.TypeInvalidRequest, "email and password are required")
	}
	email = strings.TrimSpace(*emailIn)
	addr, perr := mail.ParseAddress(email)
	if perr != nil || addr.Address != email || len(email) > maxEmailBytes {
		return "", "", "", problem.BadRequest(problem.TypeInvalidRequest, "email is not a valid address")
	}
	return email, strings.ToLower(email), *passwordIn, nil
}

// Signup answers POST /v1/auth/signup: it creates the user and an
// organization the user owns.
func (h *Handlers) Signup(w http.ResponseWriter, r *http.Request) error {
	var in api.SignupRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	email, key, password, err := validateCredentials(in.Email, in.Password)
	if err != nil {
		return err
	}
	if err := checkNewPassword("password", password); err != nil {
		return err
	}
	hash, err := auth.HashPassword(r.Context(), password)
	if err != nil {
		return err
	}
	userID, orgID := uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()
	// The enclave seals the new organization and its owner first: a user
	// row without sealed records could never sign in.
	if err := h.Minter.Signup(r.Context(), userID, email, hash, "", orgID); err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetOrg(orgID, auth.PrincipalUser, userID)
	entry.SetResource("user/" + userID)
	ev := entry.Prepare(http.StatusCreated)
	created, err := h.Accounts.CreateUserWithOrg(r.Context(), store.User{ID: userID, Email: email, PasswordHash: hash},
		key, store.Org{ID: orgID, Name: email}, ev)
	if err != nil {
		// The failure is audited outside any organization.
		entry.SetOrg(auditchain.SystemOrg, "anonymous", "")
		if errors.Is(err, store.ErrConflict) {
			return problem.New(http.StatusConflict, problem.TypeConflict, "an account with this email already exists")
		}
		return err
	}
	return writeJSON(w, http.StatusCreated, api.SignupResponse{ID: userID, UserID: userID, Email: email, OrgID: orgID,
		Role: "owner", CreatedAt: rfc3339(created)})
}

var errBadCredentials = problem.Unauthorized(problem.TypeInvalidCredentials, "the email or password is incorrect")

// Token answers POST /v1/auth/token: email and password for an access
// token and a refresh token. A known user's failed checks are counted and
// audited in its organization; the MaxFailedLogins-th locks the account.
func (h *Handlers) Token(w http.ResponseWriter, r *http.Request) error {
	var in api.TokenRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	_, key, password, err := validateCredentials(in.Email, in.Password)
	if err != nil {
		return err
	}
	u, m, err := h.Accounts.UserByEmail(r.Context(), key)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	if u.ID != "" {
		entry.SetOrg(m.OrgID, "anonymous", "")
		entry.SetResource("user/" + u.ID)
	}
	if h.now().Before(u.LockedUntil) {
		return h.accountLocked(w, u.LockedUntil)
	}
	if u.ID == "" {
		// An unknown user costs one derivation too: same cost, same answer.
		_ = verifyPassword(r.Context(), "", password)
		return errBadCredentials
	}
	// The enclave checks the password against the sealed user record and
	// mints the token from the sealed records.
	var rt *store.RefreshToken
	var refresh string
	var next *wire.IdentityRecord
	if h.Identity.RefreshTTL > 0 {
		tok, row, err := h.newRefreshToken()
		if err != nil {
			return err
		}
		row.OrgID, row.UserID, row.FamilyID = m.OrgID, u.ID, newID()
		refresh, rt, next = tok, &row, refreshRecord(row)
	}
	minted, err := h.Minter.Password(r.Context(), u.ID, m.OrgID, password, next)
	if errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrNoRecord) {
		return h.passwordFailed(w, r, u.ID, errBadCredentials)
	}
	if err != nil {
		return err
	}
	entry.SetOrg(m.OrgID, auth.PrincipalUser, u.ID)
	resp := bearerToken(minted.Token, minted.TTL)
	resp.RefreshToken = refresh
	err = h.Accounts.CompleteSignIn(r.Context(), u.ID, rt, entry.Prepare(http.StatusOK))
	if errors.Is(err, store.ErrLocked) {
		// Concurrent failures locked the account while this check ran.
		entry.SetOrg(m.OrgID, "anonymous", "")
		locked, err := h.Accounts.UserByID(r.Context(), u.ID)
		if err != nil {
			return err
		}
		return h.accountLocked(w, locked.LockedUntil)
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, resp)
}

// RevokeToken answers DELETE /v1/auth/token: the presented token stops
// working at once on every replica. An optional body
// {"refresh_token": "..."} also revokes that refresh token's family when it
// belongs to the caller (anything else is ignored, as RFC 7009 does).
func (h *Handlers) RevokeToken(w http.ResponseWriter, r *http.Request) error {
	p, _ := auth.FromContext(r.Context())
	if p.APIKeyID != "" {
		return problem.BadRequest(problem.TypeInvalidRequest,
			"an API key is not a session; delete it with DELETE /v1/auth/api-keys/{key_id}")
	}
	var in api.RevokeRequest
	if _, err := decodeOptionalJSON(r, &in); err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("token/" + p.TokenID)
	var err error
	if in.RefreshToken != nil && auth.WellFormed(auth.RefreshPrefix, *in.RefreshToken) {
		_, err = h.Accounts.RevokeSession(r.Context(), p.TokenID, p.OrgID, p.ExpiresAt, auth.HashOpaque(*in.RefreshToken), p.ID,
			entry.Prepare(http.StatusNoContent))
	} else {
		err = h.Accounts.RevokeToken(r.Context(), p.TokenID, p.OrgID, p.ExpiresAt, entry.Prepare(http.StatusNoContent))
	}
	if err != nil {
		return err
	}
	h.Verifier.Revoked.Add(p.TokenID, p.ExpiresAt)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
