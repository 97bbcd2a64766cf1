package handlers

import (
	"errors"
	"net/http"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
)

// ownerOnly refuses a change that grants or removes the owner role unless
// the caller is an owner.
func ownerOnly(callerRole string, cur store.Member, role string) error {
	if callerRole != "owner" && (cur.Role == "owner" || role == "owner") {
		return problem.New(http.StatusForbidden, problem.TypeForbidden, "only owners may grant, remove or change the owner role")
	}
	return nil
}

// memberWriteError answers the refusal to leave an organization without
// an owner with lastOwner (409).
func memberWriteError(err error, lastOwner string) error {
	if errors.Is(err, store.ErrLastOwner) {
		return problem.New(http.StatusConflict, problem.TypeConflict, lastOwner)
	}
	return err
}

// UpdateMember answers PATCH /v1/org/members/{user_id}: owners and admins
// change a member's role; only an owner may grant or remove owner, and the
// last owner is never demoted (409). A real change cuts off the member's
// access tokens in the organization at once (they carry the old role; a new
// sign-in gets the new one), in the enclave too; API keys see the new role
// within the key cache's lifetime.
func (h *Handlers) UpdateMember(w http.ResponseWriter, r *http.Request) error {
	userID, entry, err := auditedID(r, "user_id", "user", "org/member/")
	if err != nil {
		return err
	}
	if err := orgAdmin(r, "change member roles"); err != nil {
		return err
	}
	var in api.MemberRoleUpdate
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.Role == nil || !OrgRoles[*in.Role] {
		return badField("role", "is required and must be one of owner, admin, member (exact lowercase)")
	}
	p := principal(r)
	after, err := h.memberCutoffFirst(r, userID, in.Role)
	if err != nil {
		return err
	}
	m, err := h.Orgs.UpdateMemberRole(r.Context(), p.OrgID, userID, *in.Role, func(cur store.Member) error {
		if err := ownerOnly(p.Role, cur, *in.Role); err != nil {
			return err
		}
		return h.sealMember(r, userID, *in.Role, false) // the enclave checks the caller's authority too
	}, entry.Prepare(http.StatusOK))
	if err != nil {
		h.restoreOwner(r, userID, err)
		return memberWriteError(err, "the organization's last owner cannot be demoted; make another member owner first")
	}
	if err := after(); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toMember(m))
}

// memberCutoffFirst has the enclave cut off the tokens of member userID
// before its role changes to *role (nil: before its removal), when the
// change is one the caller may make (checked again in the change's
// transaction). It runs before that transaction starts, so the cut-off the
// database then records, which new tokens are stamped with, is never
// before the enclave's (enclave/internal/ops.CutoffMargin). No real change
// needs no cut-off; an unknown member is left to the change (404).
//
// A caller changing its own membership (an owner stepping down) is cut off
// by after, once the change is made: the change itself is sealed with the
// caller's token, which a cut-off first would already refuse. The enclave
// mints no token older than its own cut-off, so the order costs nothing.
func (h *Handlers) memberCutoffFirst(r *http.Request, userID string, role *string) (after func() error, err error) {
	none := func() error { return nil }
	p := principal(r)
	cur, _, err := h.Shares.MemberRole(r.Context(), p.OrgID, userID)
	if errors.Is(err, store.ErrNotFound) {
		return none, nil
	}
	if err != nil {
		return none, err
	}
	next := ""
	if role != nil {
		next = *role
	}
	if err := ownerOnly(p.Role, store.Member{Role: cur}, next); err != nil || cur == next {
		return none, err
	}
	if cur == "owner" {
		if last, err := h.lastOwner(r, p.OrgID); err != nil || last {
			return none, err // the change answers 409
		}
	}
	cutoff := func() error { return h.callerCutoff(r, p.OrgID, userID, 0) }
	if userID == p.ID {
		return cutoff, nil
	}
	return none, cutoff()
}

// lastOwner reports whether orgID has at most one owner (a change that
// leaves it none is refused).
func (h *Handlers) lastOwner(r *http.Request, orgID string) (bool, error) {
	const page = 500
	owners, after := 0, ""
	for {
		ms, err := h.Accounts.ListMembers(r.Context(), orgID, after, page)
		if err != nil {
			return false, err
		}
		for _, m := range ms {
			if m.Role == "owner" {
				owners++
			}
		}
		if len(ms) < page || owners > 1 {
			return owners <= 1, nil
		}
		after = ms[len(ms)-1].UserID
	}
}

// RemoveMember answers DELETE /v1/org/members/{user_id}: owners and admins
// remove a member (only an owner removes an owner; never the last owner,
// 409). Its API keys, refresh tokens and policies in the organization go
// with it, and the vaults whose policy sets changed are sealed again. The
// user account stays; its access tokens for the organization stop working
// at once, in the proxy (a user cut-off, see store.RevokeUserTokens) and in
// the enclave.
func (h *Handlers) RemoveMember(w http.ResponseWriter, r *http.Request) error {
	userID, entry, err := auditedID(r, "user_id", "user", "org/member/")
	if err != nil {
		return err
	}
	if err := orgAdmin(r, "remove members"); err != nil {
		return err
	}
	p := principal(r)
	after, err := h.memberCutoffFirst(r, userID, nil)
	if err != nil {
		return err
	}
	out, err := h.Orgs.RemoveMember(r.Context(), p.OrgID, userID, func(cur store.Member) error {
		if err := ownerOnly(p.Role, cur, ""); err != nil {
			return err
		}
		return h.sealMember(r, userID, cur.Role, true)
	}, entry.Prepare(http.StatusNoContent))
	if err != nil {
		h.restoreOwner(r, userID, err)
		return memberWriteError(err, "the organization's last owner cannot be removed; make another member owner first")
	}
	h.forgetAPIKeys(out.APIKeyIDs...)
	for _, ch := range out.Changes {
		h.sealPolicySet(r, ch)
	}
	if err := after(); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
