package handlers

import (
	"errors"
	"net/http"
	"strings"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
)

// AcceptShare answers POST /v1/shares/{id}/accept (recipient only).
func (h *Handlers) AcceptShare(w http.ResponseWriter, r *http.Request) error {
	return h.setShareStatus(w, r, store.ShareAccepted, h.isRecipient)
}

// DeclineShare answers POST /v1/shares/{id}/decline (recipient only); a
// declined share can no longer be opened.
func (h *Handlers) DeclineShare(w http.ResponseWriter, r *http.Request) error {
	return h.setShareStatus(w, r, store.ShareDeclined, h.isRecipient)
}

// RevokeShare answers DELETE /v1/share/{id} (creator only).
func (h *Handlers) RevokeShare(w http.ResponseWriter, r *http.Request) error {
	return h.setShareStatus(w, r, store.ShareRevoked, func(r *http.Request) (func(store.Share) bool, error) {
		p := principal(r)
		return func(s store.Share) bool {
			return s.OrgID == p.OrgID && s.CreatorType == p.Type && s.CreatorID == p.ID
		}, nil
	})
}

// isRecipient returns the test of whether the caller receives a share.
func (h *Handlers) isRecipient(r *http.Request) (func(store.Share) bool, error) {
	p := principal(r)
	var emailKey string
	if p.Type == auth.PrincipalUser {
		u, err := h.Accounts.UserByID(r.Context(), p.ID)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return nil, err
		}
		emailKey = strings.ToLower(u.Email)
	}
	return func(s store.Share) bool {
		if s.RecipientID != nil && *s.RecipientID == p.ID {
			return s.RecipientType == p.Type || (s.RecipientType == "creator" && p.Type == auth.PrincipalUser)
		}
		return s.RecipientType == "external_email" && s.RecipientEmail != nil && emailKey != "" &&
			strings.ToLower(*s.RecipientEmail) == emailKey
	}, nil
}

func (h *Handlers) setShareStatus(w http.ResponseWriter, r *http.Request, status string,
	who func(*http.Request) (func(store.Share) bool, error)) error {
	id, entry, err := auditedID(r, "id", "share", "share/")
	if err != nil {
		return err
	}
	allowed, err := who(r)
	if err != nil {
		return err
	}
	okStatus := http.StatusOK
	if status == store.ShareRevoked {
		okStatus = http.StatusNoContent
	}
	out, err := h.Shares.SetShareStatus(r.Context(), id, status, allowed, func(store.Share) *auditchain.Event {
		return entry.Prepare(okStatus)
	})
	if errors.Is(err, store.ErrConflict) {
		return problem.New(http.StatusConflict, problem.TypeConflict, "the share is already revoked or declined")
	}
	if err != nil || okStatus == http.StatusNoContent {
		return noContent(w, err)
	}
	return writeJSON(w, okStatus, toShare(out))
}
