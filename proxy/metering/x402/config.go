package x402

import (
	"fmt"
	"math/big"
	"net/url"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// Version is the x402 protocol version served and accepted.
const Version = 1

// SchemeExact is the only payment scheme accepted.
const SchemeExact = "exact"

// Network defaults: USDC on Base (mainnet) and on Base Sepolia.
const (
	NetworkBase        = "base"
	NetworkBaseSepolia = "base-sepolia"
	USDCBase           = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"
	USDCBaseSepolia    = "0x036CbD53842c5426634e7929541eC2318f3dCF7e"
)

// network is what one supported network fixes: its chain id and the
// default asset with its EIP-712 domain name and version.
type network struct {
	chainID      int64
	asset        string
	assetName    string
	assetVersion string
}

var networks = map[string]network{
	NetworkBase:        {chainID: 8453, asset: USDCBase, assetName: "USD Coin", assetVersion: "2"},
	NetworkBaseSepolia: {chainID: 84532, asset: USDCBaseSepolia, assetName: "USDC", assetVersion: "2"},
}

// PaymentConfig configures x402 payments. Payments are disabled while PayTo
// is empty: 402 answers then carry no accepts entry.
type PaymentConfig struct {
	PayTo string `yaml:"pay_to"` // OCV_X402_PAY_TO: 0x address receiving payments
	// PriceAtomic is the price of one request in the asset's atomic units
	// (USDC has 6 decimals: "10000" is 1 cent). Default "10000".
	PriceAtomic    string `yaml:"price_atomic"`    // OCV_X402_PRICE_ATOMIC
	Network        string `yaml:"network"`         // OCV_X402_NETWORK: "base" (default) or "base-sepolia"
	Asset          string `yaml:"asset"`           // OCV_X402_ASSET: token contract; default USDC on Network
	AssetName      string `yaml:"asset_name"`      // EIP-712 domain name; default per network ("USD Coin" on base)
	AssetVersion   string `yaml:"asset_version"`   // EIP-712 domain version; default "2"
	FacilitatorURL string `yaml:"facilitator_url"` // OCV_X402_FACILITATOR_URL: POST {url}/settle
	// MaxTimeoutSeconds is announced to payers and bounds how far ahead an
	// authorization's validBefore may lie (plus ClockSkewSeconds). Default 60.
	MaxTimeoutSeconds int64  `yaml:"max_timeout_seconds"` // OCV_X402_MAX_TIMEOUT_SECONDS
	ClockSkewSeconds  int64  `yaml:"clock_skew_seconds"`  // default 30
	Description       string `yaml:"description"`         // default "OCV API request"
	MimeType          string `yaml:"mime_type"`           // default "application/json"
}

// Enabled reports whether payments can be accepted.
func (c PaymentConfig) Enabled() bool { return c.PayTo != "" }

// WithDefaults returns c with every empty field set to its default.
func (c PaymentConfig) WithDefaults() PaymentConfig {
	if c.Network == "" {
		c.Network = NetworkBase
	}
	n := networks[c.Network]
	if c.Asset == "" {
		c.Asset = n.asset
	}
	if c.AssetName == "" {
		c.AssetName = n.assetName
	}
	if c.AssetVersion == "" {
		c.AssetVersion = n.assetVersion
	}
	if c.PriceAtomic == "" {
		c.PriceAtomic = "10000"
	}
	if c.MaxTimeoutSeconds == 0 {
		c.MaxTimeoutSeconds = 60
	}
	if c.ClockSkewSeconds == 0 {
		c.ClockSkewSeconds = 30
	}
	if c.Description == "" {
		c.Description = "OCV API request"
	}
	if c.MimeType == "" {
		c.MimeType = "application/json"
	}
	return c
}

// Validate checks a configuration that went through WithDefaults.
func (c PaymentConfig) Validate() error {
	if _, ok := networks[c.Network]; !ok {
		return fmt.Errorf("x402 network %q: %w", c.Network, ErrUnsupported)
	}
	if !common.IsHexAddress(c.Asset) {
		return fmt.Errorf("x402 asset: not an address: %w", ErrMalformed)
	}
	if c.PayTo != "" && !common.IsHexAddress(c.PayTo) {
		return fmt.Errorf("x402 pay_to: not an address: %w", ErrMalformed)
	}
	if p, ok := new(big.Int).SetString(c.PriceAtomic, 10); !ok || p.Sign() <= 0 {
		return fmt.Errorf("x402 price_atomic: must be a positive integer: %w", ErrMalformed)
	}
	if c.MaxTimeoutSeconds <= 0 || c.ClockSkewSeconds < 0 {
		return fmt.Errorf("x402 max_timeout_seconds and clock_skew_seconds: must be positive: %w", ErrMalformed)
	}
	if c.PayTo != "" {
		u, err := url.Parse(c.FacilitatorURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return fmt.Errorf("x402 facilitator_url: must be an http(s) URL when pay_to is set: %w", ErrMalformed)
		}
	}
	return nil
}

// ChainID is the EVM chain id of the configured network.
func (c PaymentConfig) ChainID() int64 { return networks[c.Network].chainID }

// price is PriceAtomic as a number (Validate ensured it parses).
func (c PaymentConfig) price() *big.Int {
	p, _ := new(big.Int).SetString(c.PriceAtomic, 10)
	if p == nil {
		return new(big.Int)
	}
	return p
}

// settleURL is the facilitator's settle endpoint.
func (c PaymentConfig) settleURL() string {
	return strings.TrimRight(c.FacilitatorURL, "/") + "/settle"
}
