package handlers

import (
	"net/http"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// GetSettings answers GET /v1/auth/settings: the caller's security settings.
func (h *Handlers) GetSettings(w http.ResponseWriter, r *http.Request) error {
	p := principal(r)
	auditlog.FromContext(r.Context()).SetResource("user/" + p.ID + "/settings")
	s, err := h.Accounts.Settings(r.Context(), p.ID)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.UserSettings{RequirePasskeyForVaults: s.RequirePasskeyForVaults})
}

// UpdateSettings answers PATCH /v1/auth/settings. Requiring a passkey for
// vault reads needs a registered passkey; passkeys are not implemented yet,
// so turning it on answers 400 until they are.
func (h *Handlers) UpdateSettings(w http.ResponseWriter, r *http.Request) error {
	var in api.UserSettingsPatch
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.RequirePasskeyForVaults == nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "require_passkey_for_vaults is required")
	}
	p := principal(r)
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("user/" + p.ID + "/settings")
	if *in.RequirePasskeyForVaults {
		return problem.BadRequest(problem.TypeInvalidRequest,
			"register a passkey first: require_passkey_for_vaults needs at least one registered passkey")
	}
	s := store.UserSettings{RequirePasskeyForVaults: *in.RequirePasskeyForVaults}
	if err := h.Accounts.SaveSettings(r.Context(), p.ID, s, entry.Prepare(http.StatusOK)); err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, api.UserSettings{RequirePasskeyForVaults: s.RequirePasskeyForVaults})
}
