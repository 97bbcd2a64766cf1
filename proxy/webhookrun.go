package proxy

import (
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/opencustody/ocv/internal/egress"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/testbuild"
	"github.com/opencustody/ocv/proxy/webhooks"
)

// applyWebhookEnv reads the webhook settings from the environment. All
// are TEST-ONLY (a production build refuses to start with any of them set,
// see validateTestOnly): OCV_WEBHOOKS_ALLOW_LOOPBACK lets end-to-end tests
// run a receiver on 127.0.0.1 (in production it would turn every webhook
// into a request forgery against the proxy's own host), and
// OCV_WEBHOOKS_RETRY_BASE, OCV_WEBHOOKS_RETRY_MAX, OCV_WEBHOOKS_POLL_INTERVAL
// and OCV_WEBHOOKS_LEASE make retries, giving up and crash recovery fast, and OCV_WEBHOOKS_TEST_HOSTS
// ("name=ip,...") fixes what names resolve to for the delivery client, so
// that a DNS rebinding test needs no DNS server.
func (c *Config) applyWebhookEnv(lookup func(string) (string, bool)) []error {
	var errs []error
	if v, ok := lookup("OCV_WEBHOOKS_ALLOW_LOOPBACK"); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("OCV_WEBHOOKS_ALLOW_LOOPBACK: %w", err))
		}
		c.WebhooksAllowLoopback = b
	}
	if v, ok := lookup("OCV_WEBHOOKS_TEST_HOSTS"); ok {
		c.WebhooksTestHosts = v
	}
	if v, ok := lookup("OCV_WEBHOOKS_RETRY_MAX"); ok && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("OCV_WEBHOOKS_RETRY_MAX: %w", err))
		}
		c.WebhooksRetryMax = n
	}
	for key, dst := range map[string]*time.Duration{
		"OCV_WEBHOOKS_RETRY_BASE": &c.WebhooksRetryBase, "OCV_WEBHOOKS_POLL_INTERVAL": &c.WebhooksPollInterval,
		"OCV_WEBHOOKS_LEASE": &c.WebhooksLease, "OCV_TXWATCH_INTERVAL": &c.TxWatchInterval,
	} {
		if v, ok := lookup(key); ok && v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", key, err))
			}
			*dst = d
		}
	}
	return errs
}

func (c *Config) validateWebhooks() []error {
	var errs []error
	if _, err := parseTestHosts(c.WebhooksTestHosts); err != nil {
		errs = append(errs, err)
	}
	if c.WebhooksRetryBase < 0 || c.WebhooksRetryBase > time.Hour {
		errs = append(errs, fmt.Errorf("config webhooks_retry_base: must be between 0 (default) and 1h"))
	}
	if c.WebhooksRetryMax < 0 || c.WebhooksRetryMax > 1000 {
		errs = append(errs, fmt.Errorf("config webhooks_retry_max: must be between 0 (default) and 1000"))
	}
	if c.WebhooksPollInterval < 0 || c.WebhooksPollInterval > time.Hour {
		errs = append(errs, fmt.Errorf("config webhooks_poll_interval: must be between 0 (default) and 1h"))
	}
	if c.TxWatchInterval < 0 || c.TxWatchInterval > time.Hour {
		errs = append(errs, fmt.Errorf("config tx_watch_interval: must be between 0 (default) and 1h"))
	}
	if c.WebhooksLease != 0 && (c.WebhooksLease < webhooks.RequestTimeout+5*time.Second || c.WebhooksLease > time.Hour) {
		errs = append(errs, fmt.Errorf("config webhooks_lease: must be 0 (default) or between 15s and 1h"))
	}
	return errs
}

// WebhookOptions are the destination checks for handlers and the worker.
func (c *Config) WebhookOptions() webhooks.Options {
	allow, _ := egress.ParseAllowlist(c.EgressAllow) // checked by validateEgress
	opts := webhooks.Options{AllowLoopback: c.WebhooksAllowLoopback && testbuild.Enabled, Allow: allow}
	if hosts, err := parseTestHosts(c.WebhooksTestHosts); err == nil && len(hosts) > 0 { // checked by validateWebhooks
		opts.Resolver = hosts
	}
	return opts
}

// NewWebhookWorker returns the delivery worker over the PostgreSQL outbox;
// its Run polls every 5 s (spec) and any number of replicas may run it.
func NewWebhookWorker(cfg Config, db *store.Store, log *slog.Logger) (*webhooks.Worker, error) {
	policy := webhooks.DefaultPolicy
	if cfg.WebhooksRetryBase > 0 {
		policy.Base = cfg.WebhooksRetryBase
	}
	if cfg.WebhooksRetryMax > 0 {
		policy.MaxRetries = cfg.WebhooksRetryMax
	}
	outbox := db.Outbox()
	outbox.Lease = cfg.WebhooksLease
	return webhooks.NewWorker(webhooks.WorkerConfig{Outbox: outbox, Options: cfg.WebhookOptions(),
		Policy: policy, PollInterval: cfg.WebhooksPollInterval, Logger: log})
}
