package metering

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/opencustody/ocv/proxy/metering/x402"
)

// Config configures metering: a block of the proxy's Config (YAML key
// "metering"), then the OCV_* environment overrides of ApplyEnv.
type Config struct {
	Tiers       Tiers         `yaml:"tiers"`         // OCV_TIER_<TIER>_<FIELD> (see Tiers.ApplyEnv)
	LeaseBlock  int64         `yaml:"lease_block"`   // OCV_METERING_LEASE_BLOCK, default 50
	LeaseMaxAge time.Duration `yaml:"lease_max_age"` // OCV_METERING_LEASE_MAX_AGE, default 30s
	// CacheTTL bounds how stale a cached tier or credit balance may be.
	CacheTTL time.Duration `yaml:"cache_ttl"` // OCV_METERING_CACHE_TTL, default 30s
	// CreditCentsPerRequest is what one call over quota costs in prepaid
	// credits; 0 means the default, a negative value turns credits off.
	CreditCentsPerRequest int64 `yaml:"credit_cents_per_request"` // OCV_CREDIT_CENTS_PER_REQUEST, default 1
	// PublicURL is the API's external base URL, the prefix of the
	// "resource" of payment requirements (set from the proxy's public_url).
	PublicURL string             `yaml:"-"`
	Payment   x402.PaymentConfig `yaml:"x402"` // OCV_X402_*
}

// ApplyEnv overrides c from environment variables read through getenv.
func (c *Config) ApplyEnv(getenv func(string) string) error {
	if c.Tiers == nil {
		c.Tiers = DefaultTiers()
	}
	if err := c.Tiers.ApplyEnv(getenv); err != nil {
		return err
	}
	str := func(dst *string, key string) {
		if v := strings.TrimSpace(getenv(key)); v != "" {
			*dst = v
		}
	}
	num := func(dst *int64, key string) error {
		if v := strings.TrimSpace(getenv(key)); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return fmt.Errorf("reading %s: %w", key, ErrInvalidConfig)
			}
			*dst = n
		}
		return nil
	}
	dur := func(dst *time.Duration, key string) error {
		if v := strings.TrimSpace(getenv(key)); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				return fmt.Errorf("reading %s: %w", key, ErrInvalidConfig)
			}
			*dst = d
		}
		return nil
	}
	str(&c.Payment.PayTo, "OCV_X402_PAY_TO")
	str(&c.Payment.PriceAtomic, "OCV_X402_PRICE_ATOMIC")
	str(&c.Payment.Network, "OCV_X402_NETWORK")
	str(&c.Payment.Asset, "OCV_X402_ASSET")
	str(&c.Payment.FacilitatorURL, "OCV_X402_FACILITATOR_URL")
	for _, err := range []error{
		num(&c.LeaseBlock, "OCV_METERING_LEASE_BLOCK"),
		num(&c.CreditCentsPerRequest, "OCV_CREDIT_CENTS_PER_REQUEST"),
		num(&c.Payment.MaxTimeoutSeconds, "OCV_X402_MAX_TIMEOUT_SECONDS"),
		dur(&c.LeaseMaxAge, "OCV_METERING_LEASE_MAX_AGE"),
		dur(&c.CacheTTL, "OCV_METERING_CACHE_TTL"),
	} {
		if err != nil {
			return err
		}
	}
	return nil
}

// WithDefaults returns c with unset fields at their defaults. A negative
// CreditCentsPerRequest (explicitly "none") becomes 0.
func (c Config) WithDefaults() Config {
	if c.Tiers == nil {
		c.Tiers = DefaultTiers()
	}
	if c.LeaseBlock == 0 {
		c.LeaseBlock = DefaultBlock
	}
	if c.LeaseMaxAge == 0 {
		c.LeaseMaxAge = DefaultLeaseMaxAge
	}
	if c.CacheTTL == 0 {
		c.CacheTTL = 30 * time.Second
	}
	switch {
	case c.CreditCentsPerRequest == 0:
		c.CreditCentsPerRequest = 1
	case c.CreditCentsPerRequest < 0:
		c.CreditCentsPerRequest = 0
	}
	c.Payment = c.Payment.WithDefaults()
	return c
}

// Validate checks a configuration that went through WithDefaults.
func (c Config) Validate() error {
	if err := c.Tiers.Validate(); err != nil {
		return err
	}
	if c.LeaseBlock < 1 || c.LeaseMaxAge <= 0 || c.CacheTTL <= 0 {
		return fmt.Errorf("lease_block, lease_max_age and cache_ttl must be positive: %w", ErrInvalidConfig)
	}
	if err := c.Payment.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return nil
}
