package proxy

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/opencustody/ocv/proxy/metering"
	"github.com/opencustody/ocv/proxy/ratelimit"
)

// RateLimitConfig shapes the global rate limit (spec order step 2): token
// buckets per client IP and per bearer credential, in memory on each
// replica. A rate of 0 turns that dimension off.
//
// Sizing: the limit is per replica, so with N replicas a client can reach
// N times these values across the cluster; for a cluster-wide budget L set
// L/N. It is a flood guard, not a commercial quota (that is metering's
// job): size the per-credential rate above the busiest legitimate client's
// peak on one replica, and the per-IP rate above the sum of the clients
// sharing one address (NAT). The defaults sit above what one replica
// serves (about 4,000 cheap reads/s from one token in `make bench`, 16
// workers on loopback), so they never throttle the benchmark.
type RateLimitConfig struct {
	IPRate    float64 `yaml:"ip_rate"`    // OCV_RATE_LIMIT_IP_RATE, requests/s per client IP, default 10000
	IPBurst   int     `yaml:"ip_burst"`   // OCV_RATE_LIMIT_IP_BURST, default 20000
	CredRate  float64 `yaml:"cred_rate"`  // OCV_RATE_LIMIT_CRED_RATE, requests/s per credential, default 10000
	CredBurst int     `yaml:"cred_burst"` // OCV_RATE_LIMIT_CRED_BURST, default 20000
}

// DefaultRateLimit is the default global rate limit.
func DefaultRateLimit() RateLimitConfig {
	return RateLimitConfig{IPRate: 10_000, IPBurst: 20_000, CredRate: 10_000, CredBurst: 20_000}
}

func (c RateLimitConfig) limiter() ratelimit.Config {
	return ratelimit.Config{
		PerIP:         ratelimit.Limit{Rate: c.IPRate, Burst: c.IPBurst},
		PerCredential: ratelimit.Limit{Rate: c.CredRate, Burst: c.CredBurst},
	}
}

// applyLimitsEnv reads the rate limit and metering settings (OCV_RATE_LIMIT_*,
// OCV_TIER_*, OCV_X402_*, OCV_CREDIT_CENTS_PER_REQUEST, OCV_METERING_*).
func (c *Config) applyLimitsEnv(lookup func(string) (string, bool)) []error {
	var errs []error
	float := func(dst *float64, key string) {
		if v, ok := lookup(key); ok && strings.TrimSpace(v) != "" {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", key, err))
			}
			*dst = f
		}
	}
	integer := func(dst *int, key string) {
		if v, ok := lookup(key); ok && strings.TrimSpace(v) != "" {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", key, err))
			}
			*dst = n
		}
	}
	float(&c.RateLimit.IPRate, "OCV_RATE_LIMIT_IP_RATE")
	integer(&c.RateLimit.IPBurst, "OCV_RATE_LIMIT_IP_BURST")
	float(&c.RateLimit.CredRate, "OCV_RATE_LIMIT_CRED_RATE")
	integer(&c.RateLimit.CredBurst, "OCV_RATE_LIMIT_CRED_BURST")
	getenv := func(k string) string { v, _ := lookup(k); return v }
	if err := c.Metering.ApplyEnv(getenv); err != nil {
		errs = append(errs, err)
	}
	return errs
}

// validateLimits checks the rate limit and the metering configuration.
func (c *Config) validateLimits() []error {
	var errs []error
	if c.RateLimit.IPRate < 0 || c.RateLimit.CredRate < 0 || c.RateLimit.IPBurst < 0 || c.RateLimit.CredBurst < 0 {
		errs = append(errs, fmt.Errorf("config rate_limit: rates and bursts must not be negative"))
	}
	if err := c.meteringConfig().Validate(); err != nil {
		errs = append(errs, fmt.Errorf("config metering: %w", err))
	}
	return errs
}

// meteringConfig is the metering block with defaults and the public URL.
func (c *Config) meteringConfig() metering.Config {
	m := c.Metering
	m.PublicURL = c.PublicURL
	return m.WithDefaults()
}
