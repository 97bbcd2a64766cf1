package api

import "time"

// ShareCreate is the body of POST /v1/secrets/{secret_id}/share; a client
// leaves the optional fields it does not set out.
type ShareCreate struct {
	RecipientType  *string    `json:"recipient_type"`
	Email          *string    `json:"email,omitempty"`
	RecipientID    *string    `json:"recipient_id,omitempty"`
	ExpiresAt      *time.Time `json:"expires_at"`
	MaxAccessCount *int       `json:"max_access_count,omitempty"`
	Passphrase     *string    `json:"passphrase,omitempty"`
	IPAllowlist    []string   `json:"ip_allowlist,omitempty"`
}

// Share is a share as its creator and its recipient see it.
type Share struct {
	ID             string   `json:"id"`
	SecretID       string   `json:"secret_id"`
	VaultID        string   `json:"vault_id"`
	Path           string   `json:"path"`
	CreatorType    string   `json:"creator_type"`
	CreatorID      string   `json:"creator_id"`
	RecipientType  string   `json:"recipient_type"`
	RecipientID    *string  `json:"recipient_id"`
	Email          *string  `json:"email"`
	ExpiresAt      string   `json:"expires_at"`
	MaxAccessCount int      `json:"max_access_count"`
	Remaining      int      `json:"remaining_access_count"`
	HasPassphrase  bool     `json:"has_passphrase"`
	IPAllowlist    []string `json:"ip_allowlist"`
	Status         string   `json:"status"`
	URL            string   `json:"url"`
	CreatedAt      string   `json:"created_at"`
}

// ShareOpened is the answer of GET /v1/share/{id}: the shared value.
type ShareOpened struct {
	ShareID   string `json:"share_id"`
	SecretID  string `json:"secret_id"`
	Path      string `json:"path"`
	Type      string `json:"type"`
	Version   uint32 `json:"version"`
	Value     string `json:"value"`
	Encoding  string `json:"encoding"` // "utf8" or "base64", as api.Secret
	Remaining int    `json:"remaining_access_count"`
	ExpiresAt string `json:"expires_at"`
}
