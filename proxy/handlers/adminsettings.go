package handlers

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"sort"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/metering"
)

// MaxSettingBytes bounds the JSON value of one platform setting.
const MaxSettingBytes = 16 << 10

// settingKeyRE is the syntax of a platform setting key.
var settingKeyRE = regexp.MustCompile(`^[a-z0-9_.]{1,64}$`)

// knownSetting is one key of the platform settings allowlist: its default
// and the check of a new value.
type knownSetting struct {
	def   json.RawMessage
	check func(json.RawMessage) error
}

// knownSettings is the allowlist of platform settings (documented in
// api/openapi.yaml, AdminSetting). Any other key answers 400.
var knownSettings = map[string]knownSetting{
	"signup_enabled":    {def: json.RawMessage(`true`), check: boolSetting},
	"mcp_reveal_values": {def: json.RawMessage(`false`), check: boolSetting},
	"default_tier":      {def: json.RawMessage(`"free"`), check: tierSetting},
	"x402":              {def: nil, check: nil}, // checked and normalised by parseX402
}

func boolSetting(v json.RawMessage) error {
	_, err := settingBool(v)
	return err
}

// settingBool reads a boolean setting: true or false, or (the catalogue
// sends setting values as strings) "true" or "false".
func settingBool(v json.RawMessage) (bool, error) {
	var b bool
	if err := strictUnmarshal(v, &b); err == nil {
		return b, nil
	}
	var s string
	if err := strictUnmarshal(v, &s); err == nil && (s == "true" || s == "false") {
		return s == "true", nil
	}
	return false, badField("value", "must be true or false")
}

func tierSetting(v json.RawMessage) error {
	var s string
	if err := strictUnmarshal(v, &s); err != nil || !isTier(s) {
		return badField("value", "must be one of free, pro, team, business, enterprise")
	}
	return nil
}

// isTier reports whether s is a tier name, exact lowercase.
func isTier(s string) bool {
	t, err := metering.ParseTier(s)
	return err == nil && string(t) == s
}

// strictUnmarshal decodes v into dst refusing unknown fields.
func strictUnmarshal(v json.RawMessage, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(v))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("trailing data")
	}
	return nil
}

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

// checkSettingValue checks and compacts a new value of key.
func checkSettingValue(key string, v json.RawMessage) (json.RawMessage, error) {
	if len(v) == 0 || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
		return nil, badField("value", "is required")
	}
	if len(v) > MaxSettingBytes {
		return nil, badField("value", "must be at most 16384 bytes of JSON")
	}
	if key == x402SettingKey {
		c, err := parseX402(v)
		if err != nil {
			return nil, err
		}
		return json.Marshal(c)
	}
	if err := knownSettings[key].check(v); err != nil {
		return nil, err
	}
	if b, err := settingBool(v); err == nil { // store booleans as JSON booleans
		v, _ = json.Marshal(b)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, v); err != nil {
		return nil, badField("value", "must be JSON")
	}
	return buf.Bytes(), nil
}

// putSetting stores a checked value, audited, and answers with view(stored).
func (h *Handlers) putSetting(w http.ResponseWriter, r *http.Request, key string, value json.RawMessage,
	view func(store.Setting) any) error {
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("settings/" + key)
	st, err := h.Admin.PutSetting(r.Context(), key, value, principal(r).ID, entry.Prepare(http.StatusOK))
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, view(st))
}
