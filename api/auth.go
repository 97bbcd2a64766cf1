package api

import "time"

// SignupRequest is the body of POST /v1/auth/signup. Both fields are
// required (a nil pointer is an absent field).
type SignupRequest struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
}

// TokenRequest is the body of POST /v1/auth/token: the same credentials as
// SignupRequest, for a sign-in.
type TokenRequest struct {
	Email    *string `json:"email"`
	Password *string `json:"password"`
}

// SignupResponse is the answer of POST /v1/auth/signup: the new user and the
// organization it owns.
type SignupResponse struct {
	ID        string `json:"id"`
	UserID    string `json:"user_id"`
	Email     string `json:"email"`
	OrgID     string `json:"org_id"`
	Role      string `json:"role"`
	CreatedAt string `json:"created_at"`
}

// TokenResponse is an access token answer (sign-in, refresh, API-key and
// agent tokens).
type TokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
	// RefreshToken is set by password sign-in and refresh only.
	RefreshToken string `json:"refresh_token,omitempty"`
}

// APIKeyTokenRequest is the body of POST /v1/auth/api-key-token.
type APIKeyTokenRequest struct {
	APIKey *string `json:"api_key"`
}

// RefreshRequest is the body of POST /v1/auth/refresh.
type RefreshRequest struct {
	RefreshToken *string `json:"refresh_token"`
}

// RevokeRequest is the optional body of DELETE /v1/auth/token.
type RevokeRequest struct {
	RefreshToken *string `json:"refresh_token"`
}

// ChangePasswordRequest is the body of POST /v1/auth/change-password.
type ChangePasswordRequest struct {
	CurrentPassword *string `json:"current_password"`
	NewPassword     *string `json:"new_password"`
}

// SetPasswordRequest is the body of POST /v1/auth/set-password.
type SetPasswordRequest struct {
	Password *string `json:"password"`
}

// Message is an answer that only says what happened.
type Message struct {
	Message string `json:"message"`
}

// APIKeyCreate is the body of POST /v1/auth/api-keys.
type APIKeyCreate struct {
	Name      *string    `json:"name"`
	ExpiresAt *time.Time `json:"expires_at"`
}

// APIKey is a personal API key as listings show it: never the key, never
// its hash.
type APIKey struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Prefix    string  `json:"prefix"`
	LastFour  string  `json:"last_four"`
	ExpiresAt *string `json:"expires_at"`
	CreatedAt string  `json:"created_at"`
}

// APIKeyCreated is the answer of POST /v1/auth/api-keys: the only time the
// key is shown.
type APIKeyCreated struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	Key       string  `json:"key"`
	Prefix    string  `json:"prefix"`
	LastFour  string  `json:"last_four"`
	ExpiresAt *string `json:"expires_at"`
	CreatedAt string  `json:"created_at"`
}

// UserSettings are the caller's security settings (GET /v1/auth/settings).
type UserSettings struct {
	RequirePasskeyForVaults bool `json:"require_passkey_for_vaults"`
}

// UserSettingsPatch is the body of PATCH /v1/auth/settings.
type UserSettingsPatch struct {
	RequirePasskeyForVaults *bool `json:"require_passkey_for_vaults"`
}
