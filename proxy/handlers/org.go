package handlers

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
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
	expires := h.now().Add(InviteTTL).UTC().Truncate(time.Second)
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
