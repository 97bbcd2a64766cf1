package proxy

import (
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"

	"github.com/opencustody/ocv/internal/egress"
	"github.com/opencustody/ocv/internal/testbuild"
)

// applyEgressEnv reads OCV_EGRESS_ALLOW (comma-separated host:port and
// CIDR:port entries) and OCV_EGRESS_TEST_ALLOW_LOOPBACK (TEST ONLY).
func (c *Config) applyEgressEnv(lookup func(string) (string, bool)) []error {
	var errs []error
	if v, ok := lookup("OCV_EGRESS_ALLOW"); ok && v != "" {
		c.EgressAllow = strings.Split(v, ",")
	}
	if v, ok := lookup("OCV_EGRESS_TEST_ALLOW_LOOPBACK"); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("OCV_EGRESS_TEST_ALLOW_LOOPBACK: %w", err))
		}
		c.EgressTestAllowLoopback = b
	}
	return errs
}

// validateEgress checks the allowlist and judges the operator's outbound
// destinations (SMTP relay, S3 endpoint, x402 facilitator) at start, so
// that a refused one is a startup error rather than a failure at first use.
func (c *Config) validateEgress() []error {
	var errs []error
	if _, err := egress.ParseAllowlist(c.EgressAllow); err != nil {
		return append(errs, fmt.Errorf("config egress_allow: %w", err))
	}
	p := c.Egress()
	hint := " (an address on your own network needs an egress_allow / OCV_EGRESS_ALLOW CIDR:port entry)"
	if c.SMTPAddr != "" {
		if sp, err := p.WithHostPort(c.SMTPAddr); err == nil {
			if err := sp.CheckHostPort(c.SMTPAddr); err != nil {
				errs = append(errs, fmt.Errorf("config smtp_addr: %w%s", err, hint))
			}
		}
	}
	if c.AuditHeadsURL != "" && c.AuditHeadsS3Endpoint != "" {
		if err := c.auditHeadsEgress().CheckURL(c.AuditHeadsS3Endpoint); err != nil {
			errs = append(errs, fmt.Errorf("config audit_heads_s3_endpoint: %w%s", err, hint))
		}
	}
	if f := c.Metering.Payment.FacilitatorURL; f != "" {
		if err := p.CheckURL(f); err != nil {
			errs = append(errs, fmt.Errorf("config x402 facilitator_url: %w", err))
		}
	}
	return errs
}

// Egress is the outbound connection policy of every connection the proxy
// opens to a destination it did not choose itself: webhooks, chain RPC
// nodes, the x402 facilitator, SMTP and the S3 audit heads bucket.
func (c *Config) Egress() *egress.Policy {
	allow, _ := egress.ParseAllowlist(c.EgressAllow) // checked by validateEgress
	cfg := egress.Config{Allow: allow, AllowLoopback: c.EgressTestAllowLoopback && testbuild.Enabled}
	if hosts, err := parseTestHosts(c.WebhooksTestHosts); testbuild.Enabled && err == nil && len(hosts) > 0 {
		// TEST ONLY: the fixed answers of OCV_WEBHOOKS_TEST_HOSTS play a
		// rebinding DNS server for every outbound client.
		cfg.Resolver = hosts
	}
	return egress.New(cfg)
}

// auditHeadsEgress is Egress with the S3 endpoint's own port admitted.
func (c *Config) auditHeadsEgress() *egress.Policy {
	p := c.Egress()
	u, err := url.Parse(c.AuditHeadsS3Endpoint)
	if err != nil || u.Port() == "" {
		return p
	}
	if sp, err := p.WithHostPort(net.JoinHostPort(u.Hostname(), u.Port())); err == nil {
		return sp
	}
	return p
}

// testOnlySetting is a setting that exists only in test builds.
type testOnlySetting struct {
	env, field string
	set        func(c *Config) bool
}

// testOnlySettings are every setting documented as TEST ONLY. A production
// binary (built without -tags ocvtest) refuses to start with any of them
// set, from the environment or the file.
var testOnlySettings = []testOnlySetting{
	{"OCV_EGRESS_TEST_ALLOW_LOOPBACK", "egress_test_allow_loopback", func(c *Config) bool { return c.EgressTestAllowLoopback }},
	{"OCV_WEBHOOKS_ALLOW_LOOPBACK", "webhooks_allow_loopback", func(c *Config) bool { return c.WebhooksAllowLoopback }},
	{"OCV_WEBHOOKS_TEST_HOSTS", "webhooks_test_hosts", func(c *Config) bool { return c.WebhooksTestHosts != "" }},
	{"OCV_WEBHOOKS_RETRY_BASE", "webhooks_retry_base", func(c *Config) bool { return c.WebhooksRetryBase != 0 }},
	{"OCV_WEBHOOKS_RETRY_MAX", "webhooks_retry_max", func(c *Config) bool { return c.WebhooksRetryMax != 0 }},
	{"OCV_WEBHOOKS_POLL_INTERVAL", "webhooks_poll_interval", func(c *Config) bool { return c.WebhooksPollInterval != 0 }},
	{"OCV_WEBHOOKS_LEASE", "webhooks_lease", func(c *Config) bool { return c.WebhooksLease != 0 }},
	// The crash hooks (proxy/crashhook.go): a production binary never
	// kills itself on a request.
	{envCrashAfterCommit, "test_crash_after_commit", func(c *Config) bool { return c.TestCrash.AfterCommit != "" }},
	{envCrashBeforeCommit, "test_crash_before_commit", func(c *Config) bool { return c.TestCrash.BeforeCommit != "" }},
}

// validateTestOnly refuses test-only settings unless testBuild.
func (c *Config) validateTestOnly(testBuild bool) []error {
	if testBuild {
		return nil
	}
	var errs []error
	for _, s := range testOnlySettings {
		if s.set(c) {
			errs = append(errs, fmt.Errorf("%s (%s) is a TEST ONLY setting and this binary is a production build (no -tags ocvtest): remove it", s.env, s.field))
		}
	}
	return errs
}
