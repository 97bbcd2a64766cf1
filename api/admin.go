package api

import "encoding/json"

// AdminUser is a user as the platform administrators' listing shows it.
type AdminUser struct {
	ID           string  `json:"id"`
	Email        string  `json:"email"`
	PlatformRole *string `json:"platform_role"`
	CreatedAt    string  `json:"created_at"`
}

// AdminSetting is one platform setting, stored or at its default.
type AdminSetting struct {
	Key       string          `json:"key"`
	Value     json.RawMessage `json:"value"`
	IsDefault bool            `json:"is_default"`
	UpdatedBy *string         `json:"updated_by"`
	UpdatedAt *string         `json:"updated_at"`
}

// AdminSettingWrite is the body of PUT /v1/admin/settings/{key}.
type AdminSettingWrite struct {
	Value json.RawMessage `json:"value"`
}

// AdminX402Write is the x402 payment configuration an administrator stores
// (PUT /v1/admin/x402, or the value of the platform setting "x402").
// PaymentAddress is an alias of PayTo.
type AdminX402Write struct {
	Enabled           *bool  `json:"enabled"`
	PayTo             string `json:"pay_to"`
	PaymentAddress    string `json:"payment_address,omitempty"`
	Network           string `json:"network"`
	Asset             string `json:"asset"`
	PriceAtomic       string `json:"price_atomic"`
	FacilitatorURL    string `json:"facilitator_url"`
	MaxTimeoutSeconds int64  `json:"max_timeout_seconds"`
}

// AdminX402 is the stored x402 configuration (configured false: the
// defaults of an unconfigured platform).
type AdminX402 struct {
	Enabled           bool    `json:"enabled"`
	PayTo             string  `json:"pay_to"`
	PaymentAddress    string  `json:"payment_address"`
	Network           string  `json:"network"`
	Asset             string  `json:"asset"`
	PriceAtomic       string  `json:"price_atomic"`
	FacilitatorURL    string  `json:"facilitator_url"`
	MaxTimeoutSeconds int64   `json:"max_timeout_seconds"`
	Configured        bool    `json:"configured"`
	UpdatedAt         *string `json:"updated_at"`
}

// OrgLimits is an organization's tier, that tier's limits (-1: unlimited)
// and its current resource counts.
type OrgLimits struct {
	OrgID  string        `json:"org_id"`
	Tier   string        `json:"tier"`
	Limits TierLimits    `json:"limits"`
	Usage  ResourceUsage `json:"usage"`
}

// TierLimits are the limits of a tier (-1: unlimited).
type TierLimits struct {
	Requests           int64 `json:"requests"`
	IntentTransactions int64 `json:"intent_transactions"`
	Wallets            int64 `json:"wallets"`
	Vaults             int64 `json:"vaults"`
	Secrets            int64 `json:"secrets"`
	Agents             int64 `json:"agents"`
}

// ResourceUsage are an organization's capped resource counts.
type ResourceUsage struct {
	Vaults  int64 `json:"vaults"`
	Secrets int64 `json:"secrets"`
	Agents  int64 `json:"agents"`
}

// OrgTierUpdate is the body of PUT /v1/admin/orgs/{org_id}/tier.
type OrgTierUpdate struct {
	Tier *string `json:"tier"`
}
