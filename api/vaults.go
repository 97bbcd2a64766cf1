package api

// VaultCreate is the body of POST /v1/vaults. Name is a pointer so that a
// missing name is told apart from an empty one.
type VaultCreate struct {
	Name        *string `json:"name"`
	Description string  `json:"description"`
}

// Vault is a vault as the API answers it.
type Vault struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
	KEKVersion  uint32 `json:"kek_version"`
	CreatedAt   string `json:"created_at"`
	UpdatedAt   string `json:"updated_at"`
}
