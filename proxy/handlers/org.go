package handlers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/mail"
)

// OrgRoles are the organization roles, exact lowercase strings.
var OrgRoles = map[string]bool{"owner": true, "admin": true, "member": true}

func toMember(m store.Member) api.OrgMember {
	return api.OrgMember{ID: m.UserID, Email: m.Email, Role: m.Role, JoinedAt: rfc3339(m.JoinedAt)}
}

// ListMembers answers GET /v1/org/members: the caller's organization's
// members in id order.
func (h *Handlers) ListMembers(w http.ResponseWriter, r *http.Request) error {
	orgID := principal(r).OrgID
	return listByID(w, r, "org/members", func(ctx context.Context, after string, limit int) ([]store.Member, error) {
		return h.Accounts.ListMembers(ctx, orgID, after, limit)
	}, toMember, func(m store.Member) string { return m.UserID })
}

// InviteMember answers POST /v1/org/invite (owners and admins; only an
// owner may invite an owner). The invitation token is shown once, in the
// answer, for the inviter to pass on; the mail sender gets it too and never
// logs it. The invitee's records are sealed now, with the inviter's
// authority (sealInvitation); AcceptInvitation spends the token.
func (h *Handlers) InviteMember(w http.ResponseWriter, r *http.Request) error {
	p := principal(r)
	if p.Role != "owner" && p.Role != "admin" {
		return problem.New(http.StatusForbidden, problem.TypeForbidden, "only owners and admins may invite members")
	}
	var in api.InviteRequest
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Email == nil || in.Role == nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "email and role are required")
	}
	if !OrgRoles[*in.Role] {
		return problem.BadRequest(problem.TypeInvalidRequest, "role must be one of owner, admin, member (exact lowercase)")
	}
	email, key, _, err := validateCredentials(in.Email, new(string))
	if err != nil {
		return err
	}
	if *in.Role == "owner" && p.Role != "owner" {
		return problem.New(http.StatusForbidden, problem.TypeForbidden, "only owners may invite owners")
	}
	invites, ok := h.Accounts.(invitationStore)
	if !ok {
		return errNoInvitations
	}
	token, hash, err := auth.NewOpaque(auth.InvitePrefix)
	if err != nil {
		return err
	}
	id := newID()
	// A member or pending invitee is refused before anything is sealed
	// (its sealed membership must not change).
	if blocked, err := invites.InviteBlocked(r.Context(), p.OrgID, key); err != nil {
		return err
	} else if blocked {
		return errInviteConflict
	}
	userID, exists, err := invites.InviteeUserID(r.Context(), key)
	if err != nil {
		return err
	}
	if userID == "" {
		userID = uuid.Must(uuid.NewV7()).String()
	}
	expires := time.Now().Add(InviteTTL).UTC().Truncate(time.Second)
	if err := h.sealInvitation(r, id, userID, email, *in.Role, hash, expires, exists); err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("invite/" + id)
	inv, err := h.Accounts.CreateInvite(r.Context(), store.Invite{OrgID: p.OrgID, ID: id, Email: email, Role: *in.Role,
		InvitedBy: p.ID, UserID: userID, Hash: hash, ExpiresAt: expires}, key,
		entry.Prepare(http.StatusCreated))
	if errors.Is(err, store.ErrConflict) {
		return errInviteConflict
	}
	if err != nil {
		return err
	}
	notified := false
	if h.Mailer != nil {
		notified = h.Mailer.SendInvite(r.Context(), mail.Invite{ID: inv.ID, OrgID: inv.OrgID, Email: inv.Email, Role: inv.Role,
			InvitedBy: inv.InvitedBy, ExpiresAt: inv.ExpiresAt, Token: token}) == nil
	}
	return writeJSON(w, http.StatusCreated, api.Invite{ID: inv.ID, Email: inv.Email, Role: inv.Role, InvitedBy: inv.InvitedBy,
		Token: token, Notified: notified, ExpiresAt: rfc3339(inv.ExpiresAt), CreatedAt: rfc3339(inv.CreatedAt)})
}

// invitationStore is the storage of invitations' acceptance
// (internal/store/invites.go).
type invitationStore interface {
	InviteBlocked(ctx context.Context, orgID, emailKey string) (bool, error)
	InviteeUserID(ctx context.Context, emailKey string) (id string, exists bool, err error)
	InviteByHash(ctx context.Context, hash []byte) (store.PendingInvite, error)
	AcceptInvite(ctx context.Context, inv store.PendingInvite, passwordHash string, now time.Time, ev *auditchain.Event) error
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
	now := time.Now()
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
		return accountLocked(w, u.LockedUntil)
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
	err = invites.AcceptInvite(r.Context(), inv, hash, now, entry.Prepare(http.StatusCreated))
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
