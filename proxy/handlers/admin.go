package handlers

import (
	"net/http"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/internal/store"
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
	return listByID(w, r, "users", h.Accounts.ListUsers, toAdminUser, func(u store.User) string { return u.ID })
}
