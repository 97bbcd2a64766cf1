package handlers

import (
	"errors"
	"net/http"
	"net/mail"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api/problem"
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

type credentials struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
}

func (c credentials) validate() (email, emailKey, password string, err error) {
	if c.Email == nil || c.Password == nil {
		return "", "", "", problem.BadRequest(problem.TypeInvalidRequest, "email and password are required")
	}
	email = strings.TrimSpace(*c.Email)
	addr, perr := mail.ParseAddress(email)
	if perr != nil || addr.Address != email || len(email) > maxEmailBytes {
		return "", "", "", problem.BadRequest(problem.TypeInvalidRequest, "email is not a valid address")
	}
	return email, strings.ToLower(email), *c.Password, nil
}

type signupResponse struct {
	ID        string `json:"id"`
	UserID    string `json:"user_id"`
	Email     string `json:"email"`
	OrgID     string `json:"org_id"`
	Role      string `json:"role"`
	CreatedAt string `json:"created_at"`
}

// Signup answers POST /v1/auth/signup: it creates the user and an
// organization the user owns.
func (h *Handlers) Signup(w http.ResponseWriter, r *http.Request) error {
	var in credentials
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	email, key, password, err := in.validate()
	if err != nil {
		return err
	}
	if utf8.RuneCountInString(password) < minPasswordChars || len(password) > maxPasswordBytes {
		return problem.BadRequest(problem.TypeInvalidRequest, "password must be at least 8 characters (at most 1024 bytes)")
	}
	hash, err := auth.HashPassword(r.Context(), password)
	if err != nil {
		return err
	}
	userID, orgID := uuid.Must(uuid.NewV7()).String(), uuid.Must(uuid.NewV7()).String()
	entry := auditlog.FromContext(r.Context())
	entry.SetOrg(orgID, auth.PrincipalUser, userID)
	entry.SetResource("user/" + userID)
	ev := entry.Prepare(http.StatusCreated)
	created, err := h.Store.CreateUserWithOrg(r.Context(), store.User{ID: userID, Email: email, PasswordHash: hash},
		key, store.Org{ID: orgID, Name: email}, ev)
	if err != nil {
		// The failure is audited outside any organization.
		entry.SetOrg(auditchain.SystemOrg, "anonymous", "")
		if errors.Is(err, store.ErrConflict) {
			return problem.New(http.StatusConflict, problem.TypeConflict, "an account with this email already exists")
		}
		return err
	}
	entry.Persisted()
	return writeJSON(w, http.StatusCreated, signupResponse{ID: userID, UserID: userID, Email: email, OrgID: orgID,
		Role: "owner", CreatedAt: rfc3339(created)})
}

type tokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
}

var errBadCredentials = problem.Unauthorized(problem.TypeInvalidCredentials, "the email or password is incorrect")

// Token answers POST /v1/auth/token: email and password for an access token.
func (h *Handlers) Token(w http.ResponseWriter, r *http.Request) error {
	var in credentials
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	_, key, password, err := in.validate()
	if err != nil {
		return err
	}
	if len(password) > maxPasswordBytes {
		return errBadCredentials
	}
	u, m, err := h.Store.UserByEmail(r.Context(), key)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	// An unknown user is checked against a dummy hash: same cost, same answer.
	if err := auth.VerifyPassword(r.Context(), u.PasswordHash, password); err != nil {
		if errors.Is(err, auth.ErrPasswordMismatch) {
			return errBadCredentials
		}
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetOrg(m.OrgID, auth.PrincipalUser, u.ID)
	entry.SetResource("user/" + u.ID)
	tok, ttl, err := h.Minter.Mint(r.Context(), auth.Principal{Type: auth.PrincipalUser, ID: u.ID, OrgID: m.OrgID, Role: m.Role})
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, tokenResponse{AccessToken: tok, TokenType: "Bearer", ExpiresIn: int64(ttl.Seconds())})
}

// RevokeToken answers DELETE /v1/auth/token: the presented token stops
// working at once on every replica.
func (h *Handlers) RevokeToken(w http.ResponseWriter, r *http.Request) error {
	p, _ := auth.FromContext(r.Context())
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("token/" + p.TokenID)
	if err := h.Store.RevokeToken(r.Context(), p.TokenID, p.OrgID, p.ExpiresAt, entry.Prepare(http.StatusNoContent)); err != nil {
		return err
	}
	entry.Persisted()
	h.Verifier.Revoked.Add(p.TokenID, p.ExpiresAt)
	w.WriteHeader(http.StatusNoContent)
	return nil
}
