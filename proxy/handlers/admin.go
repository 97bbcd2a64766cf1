package handlers

import (
	"net/http"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
)

func toAdminUser(u store.User) api.AdminUser {
	out := api.AdminUser{ID: u.ID, Email: u.Email, CreatedAt: rfc3339(u.CreatedAt)}
	if u.PlatformRole != "" {
		out.PlatformRole = &u.PlatformRole
	}
	return out
}

// AdminListUsers answers GET /v1/admin/users (platform administrators
// only): every user of the platform, in id order.
func (h *Handlers) AdminListUsers(w http.ResponseWriter, r *http.Request) error {
	limit, cursor, err := pageParams(r)
	if err != nil {
		return err
	}
	if err := cursorID(cursor); err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("users")
	users, err := h.Accounts.ListUsers(r.Context(), cursor, limit+1)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, listPage(users, limit, toAdminUser, func(u store.User) string { return u.ID }))
}
