package handlers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
)

// invitationStore is the storage of invitations' acceptance
// (internal/store/invites.go).
type invitationStore interface {
	InviteBlocked(ctx context.Context, orgID, emailKey string) (bool, error)
	InviteeUserID(ctx context.Context, emailKey string) (id string, exists bool, err error)
	InviteByHash(ctx context.Context, hash []byte) (store.PendingInvite, error)
	AcceptInvite(ctx context.Context, inv store.PendingInvite, passwordHash string, ev *auditchain.Event) error
}

var errInviteConflict = problem.New(http.StatusConflict, problem.TypeConflict, "this address is already a member or has a pending invitation")

var errNoInvitations = problem.New(http.StatusServiceUnavailable, problem.TypeInternal, "invitations are not available")

// sealInvitation has the enclave seal, with the inviter's token (an owner
// or admin, as every membership), what accepting the invitation needs: the
// invitee's membership with its role; for an address without an account
// whose user record is not sealed yet, that user (no password yet); and an
// API key record of the invitee whose verifier is the SHA-256 of the
// invitation token, expiring with the invitation. The token is thereby a
// credential the enclave itself checks: only its holder has the enclave
// mint the invitee's first token, which sets the first password
// (AcceptInvitation); the proxy's org_members row, written at acceptance,
// is what makes the membership usable for sign-in.
func (h *Handlers) sealInvitation(r *http.Request, inviteID, userID, email, role string, hash []byte, expires time.Time, exists bool) error {
	p := principal(r)
	c, err := h.caller(r.Context())
	if err != nil {
		return err
	}
	recs := []*wire.IdentityRecord{{Kind: wire.IdentityMember, OrgID: p.OrgID, UserID: userID, Role: role, Status: wire.StatusActive},
		{Kind: wire.IdentityAPIKey, OrgID: p.OrgID, UserID: userID, ID: inviteID, Verifiers: [][32]byte{[32]byte(hash)},
			ExpiresMs: expires.UnixMilli()}}
	if !exists {
		_, _, err := h.Minter.Current(r.Context(), "id/user/"+userID)
		if errors.Is(err, auth.ErrNoRecord) {
			recs = append([]*wire.IdentityRecord{{Kind: wire.IdentityUser, UserID: userID, Email: email, Status: wire.StatusActive}}, recs...)
		} else if err != nil {
			return err
		}
	}
	return sealError(h.Minter.Seal(r.Context(), c.Token, "", nil, recs...))
}

// errInvitationUnknown answers a token that names no pending invitation
// (unknown, malformed or spent): one answer for all.
var errInvitationUnknown = problem.NotFound("invitation")

// invitationAccept is the body of POST /v1/org/invitations/accept.
type invitationAccept struct {
	Token    *string `json:"token"`
	Password *string `json:"password"`
}

// invitationAccepted is its answer.
type invitationAccepted struct {
	OrgID  string `json:"org_id"`
	UserID string `json:"user_id"`
	Email  string `json:"email"`
	Role   string `json:"role"`
}

// AcceptInvitation answers POST /v1/org/invitations/accept (public: the
// token from the mail is the credential). The invitee becomes a member
// with the invitation's role: a new address is created as a user with the
// password given (the password rules apply); an existing account gives its
// current password, which the enclave checks. The token is spent (single
// use: a second acceptance is 404), an expired one is 410 `gone`. The
// enclave checks the token itself (the sealed invitation key, see
// sealInvitation) and mints the invitee's first token with it; once the
// membership is stored that key is retired. A retry after a failure in
// between converges: a password already sealed is checked, not set.
func (h *Handlers) AcceptInvitation(w http.ResponseWriter, r *http.Request) error {
	invites, ok := h.Accounts.(invitationStore)
	if !ok {
		return errNoInvitations
	}
	var in invitationAccept
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Token == nil || in.Password == nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "token and password are required")
	}
	if len(*in.Password) > maxPasswordBytes {
		return badField("password", "must be at most 1024 bytes")
	}
	if !auth.WellFormed(auth.InvitePrefix, *in.Token) {
		return errInvitationUnknown
	}
	inv, err := invites.InviteByHash(r.Context(), auth.HashOpaque(*in.Token))
	if errors.Is(err, store.ErrNotFound) || (err == nil && (inv.Accepted || inv.UserID == "")) {
		return errInvitationUnknown
	}
	if err != nil {
		return err
	}
	now := h.now()
	if !now.Before(inv.ExpiresAt) {
		return problem.New(http.StatusGone, problem.TypeGone, "the invitation has expired; ask for a new one")
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetOrg(inv.OrgID, "anonymous", "")
	entry.SetResource("invite/" + inv.ID)
	// The enclave mints the invitee's token with the invitation token (its
	// sealed key record): it checks the token itself.
	minted, err := h.Minter.APIKey(r.Context(), auth.APIKey{ID: inv.ID, UserID: inv.UserID, OrgID: inv.OrgID}, *in.Token)
	if errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrNoRecord) {
		return errInvitationUnknown
	}
	if err != nil {
		return err
	}
	cur, _, err := h.Minter.Current(r.Context(), "id/user/"+inv.UserID)
	if err != nil {
		return err
	}
	u, err := h.Accounts.UserByID(r.Context(), inv.UserID)
	newUser := errors.Is(err, store.ErrNotFound)
	if err != nil && !newUser {
		return err
	}
	if !newUser && now.Before(u.LockedUntil) {
		return h.accountLocked(w, u.LockedUntil)
	}
	hash := ""
	if newUser {
		if err := checkNewPassword("password", *in.Password); err != nil {
			return err
		}
		if hash, err = auth.HashPassword(r.Context(), *in.Password); err != nil {
			return err
		}
	}
	if cur.PasswordVerifier == "" {
		// A first password, with the invitee's own token.
		if err := sealError(h.Minter.ChangePassword(r.Context(), minted.Token, inv.UserID, "", hash)); err != nil {
			return err
		}
	}
	// The enclave checks the password against the sealed user record (an
	// existing account's, or the one just set), with the membership
	// sealed at invitation.
	minted, err = h.Minter.Password(r.Context(), inv.UserID, inv.OrgID, *in.Password, nil)
	if errors.Is(err, auth.ErrInvalidToken) || errors.Is(err, auth.ErrNoRecord) {
		if !newUser { // counted towards the account's lockout like a sign-in
			return h.passwordFailed(w, r, inv.UserID, errBadCredentials)
		}
		return errBadCredentials
	}
	if err != nil {
		return err
	}
	entry.SetOrg(inv.OrgID, auth.PrincipalUser, inv.UserID)
	err = invites.AcceptInvite(r.Context(), inv, hash, entry.Prepare(http.StatusCreated))
	if errors.Is(err, store.ErrNotFound) {
		return errInvitationUnknown
	}
	if errors.Is(err, store.ErrConflict) {
		return problem.New(http.StatusConflict, problem.TypeConflict, "the invitee is a member already")
	}
	if err != nil {
		return err
	}
	// Spent in the enclave too: the invitation key record expires now (it
	// would at the invitation's expiry anyway).
	_ = h.Minter.RetireAPIKey(context.WithoutCancel(r.Context()), minted.Token, inv.OrgID, inv.ID)
	return writeJSON(w, http.StatusCreated, invitationAccepted{OrgID: inv.OrgID, UserID: inv.UserID, Email: inv.Email, Role: inv.Role})
}
