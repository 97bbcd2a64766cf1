package handlers

import (
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"sort"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// MaxSettingBytes bounds the JSON value of one platform setting.
const MaxSettingBytes = 16 << 10

// settingKeyRE is the syntax of a platform setting key.
var settingKeyRE = regexp.MustCompile(`^[a-z0-9_.]{1,64}$`)

func toAdminSetting(st store.Setting) api.AdminSetting {
	by, at := st.UpdatedBy, rfc3339(st.UpdatedAt)
	return api.AdminSetting{Key: st.Key, Value: st.Value, UpdatedBy: &by, UpdatedAt: &at}
}

func defaultSetting(key string) api.AdminSetting {
	v := knownSettings[key].def
	if v == nil {
		v = json.RawMessage(`null`)
	}
	return api.AdminSetting{Key: key, Value: v, IsDefault: true}
}

// settingKey reads and checks the {key} path value: syntax, then allowlist.
func settingKey(r *http.Request) (string, error) {
	key := r.PathValue("key")
	if !settingKeyRE.MatchString(key) {
		return "", badField("key", "must be 1 to 64 characters of a-z, 0-9, '_' and '.'")
	}
	if _, ok := knownSettings[key]; !ok {
		return "", badField("key", "is not a known platform setting")
	}
	return key, nil
}

// AdminListSettings answers GET /v1/admin/settings: every known platform
// setting, stored or at its default, in key order.
func (h *Handlers) AdminListSettings(w http.ResponseWriter, r *http.Request) error {
	auditlog.FromContext(r.Context()).SetResource("settings")
	stored, err := h.Admin.ListSettings(r.Context())
	if err != nil {
		return err
	}
	byKey := map[string]store.Setting{}
	for _, st := range stored {
		byKey[st.Key] = st
	}
	keys := make([]string, 0, len(knownSettings))
	for k := range knownSettings {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := api.List[api.AdminSetting]{Items: []api.AdminSetting{}}
	for _, k := range keys {
		if st, ok := byKey[k]; ok {
			out.Items = append(out.Items, toAdminSetting(st))
		} else {
			out.Items = append(out.Items, defaultSetting(k))
		}
	}
	return writeJSON(w, http.StatusOK, out)
}

// AdminGetSetting answers GET /v1/admin/settings/{key}.
func (h *Handlers) AdminGetSetting(w http.ResponseWriter, r *http.Request) error {
	key, err := settingKey(r)
	if err != nil {
		return err
	}
	auditlog.FromContext(r.Context()).SetResource("settings/" + key)
	st, err := h.Admin.Setting(r.Context(), key)
	if errors.Is(err, store.ErrNotFound) {
		return writeJSON(w, http.StatusOK, defaultSetting(key))
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toAdminSetting(st))
}

// AdminPutSetting answers PUT /v1/admin/settings/{key}: {"value": ...}, a
// JSON value of at most MaxSettingBytes that the key's check accepts.
func (h *Handlers) AdminPutSetting(w http.ResponseWriter, r *http.Request) error {
	key, err := settingKey(r)
	if err != nil {
		return err
	}
	var in api.AdminSettingWrite
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	value, err := checkSettingValue(key, in.Value)
	if err != nil {
		return err
	}
	return h.putSetting(w, r, key, value, func(st store.Setting) any { return toAdminSetting(st) })
}

// putSetting stores a checked value, audited, and answers with view(stored).
func (h *Handlers) putSetting(w http.ResponseWriter, r *http.Request, key string, value json.RawMessage,
	view func(store.Setting) any) error {
	if key == x402SettingKey {
		if err := h.checkX402Outbound(value); err != nil {
			return err
		}
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("settings/" + key)
	st, err := h.Admin.PutSetting(r.Context(), key, value, principal(r).ID, entry.Prepare(http.StatusOK))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, view(st))
}
