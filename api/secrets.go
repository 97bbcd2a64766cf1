package api

import (
	"encoding/json"
	"time"
)

// SecretWrite is the body of PUT /v1/vaults/{vault_id}/secrets/{path}.
// Type and Value are pointers so that missing fields are told apart from
// empty ones; a client leaves out the optional fields it does not set.
//
// Encoding says how Value is written: "utf8" (the default: Value is the
// text) or "base64" (Value is standard padded base64 of arbitrary bytes,
// sealed as they are).
type SecretWrite struct {
	Type      *string           `json:"type"`
	Value     *string           `json:"value"`
	Encoding  *string           `json:"encoding,omitempty"`
	Metadata  map[string]string `json:"metadata,omitempty"`
	ExpiresAt *time.Time        `json:"expires_at,omitempty"`
}

// Secret is a secret as the API answers it: its metadata, with the
// decrypted value on a read only (the schemas Secret and SecretInfo).
// Encoding comes with Value: "utf8" when Value is the stored bytes as text,
// "base64" when it is their standard padded base64 (bytes that are not
// valid UTF-8, or a read that asked for base64).
type Secret struct {
	ID        string          `json:"id"`
	VaultID   string          `json:"vault_id"`
	Path      string          `json:"path"`
	Type      string          `json:"type"`
	Value     *string         `json:"value,omitempty"`
	Encoding  string          `json:"encoding,omitempty"`
	Metadata  json.RawMessage `json:"metadata"`
	Version   uint32          `json:"version"`
	ExpiresAt *string         `json:"expires_at"`
	CreatedAt string          `json:"created_at"`
	UpdatedAt string          `json:"updated_at"`
}
