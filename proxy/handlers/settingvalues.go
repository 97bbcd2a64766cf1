package handlers

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/opencustody/ocv/proxy/metering"
)

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
