package proxy

import (
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/s3lite"
	"github.com/opencustody/ocv/internal/testbuild"
	"github.com/opencustody/ocv/proxy/metering"
)

// Config is the proxy's configuration: a YAML file, then OCV_* environment
// overrides, then Validate. The defaults run the simulator stack of
// `make run` with no file at all.
type Config struct {
	Listen        string   `yaml:"listen"`         // OCV_LISTEN
	PublicURL     string   `yaml:"public_url"`     // OCV_PUBLIC_URL; the token issuer
	LegacyIssuers []string `yaml:"legacy_issuers"` // accepted on validation, never minted
	DatabaseURL   string   `yaml:"database_url"`   // OCV_DATABASE_URL
	DBMaxConns    int32    `yaml:"database_max_conns"`
	DataDir       string   `yaml:"data_dir"` // OCV_DATA_DIR

	EnclaveAddr     string `yaml:"enclave_addr"`      // OCV_ENCLAVE_ADDR: unix:///path or vsock://CID:PORT
	EnclavePoolSize int    `yaml:"enclave_pool_size"` // OCV_ENCLAVE_POOL_SIZE
	// ProxyIdentityKey is the file of the proxy's Ed25519 identity key (PEM
	// PKCS#8 or a raw 32-byte seed, mode 0600), with which it proves itself
	// to the enclave; the enclave lists its public key in
	// proxy_identity_pubkeys. Required.
	ProxyIdentityKey string `yaml:"proxy_identity_key"` // OCV_PROXY_IDENTITY_KEY

	// AttestationRoots are PEM files of trusted roots; "aws-nitro" names the
	// built-in AWS Nitro root. Default: the simulator root under DataDir.
	AttestationRoots []string `yaml:"attestation_roots"` // OCV_ATTESTATION_ROOT (comma-separated)
	// AllowedPCR0 lists the accepted enclave image measurements (hex SHA-384).
	AllowedPCR0       []string      `yaml:"allowed_pcr0"` // OCV_ATTESTATION_PCR0 (comma-separated)
	AttestationMaxAge time.Duration `yaml:"attestation_max_age"`

	TLSMode     string   `yaml:"tls_mode"`  // OCV_TLS_MODE: "dev" (local CA) or "acme"
	TLSHosts    []string `yaml:"tls_hosts"` // extra names for the dev certificate
	ACMEDomains []string `yaml:"acme_domains"`
	ACMEEmail   string   `yaml:"acme_email"`
	ACMECA      string   `yaml:"acme_ca"`

	// TokenTTL and AgentTokenTTL are the lifetimes of user and agent access
	// tokens; the verifier refuses longer ones (wire.TokenLifetimes). The
	// enclave reads the same settings from the same variables and must be
	// given the same values (and public_url too: it checks iss).
	TokenTTL      time.Duration `yaml:"token_ttl"`       // OCV_TOKEN_TTL, default 900s
	AgentTokenTTL time.Duration `yaml:"agent_token_ttl"` // OCV_AGENT_TOKEN_TTL, default 7200s
	MaxBodyBytes  int64         `yaml:"max_body_bytes"`  // OCV_MAX_BODY_BYTES, default 1 MiB
	LogLevel      string        `yaml:"log_level"`       // OCV_LOG_LEVEL
	AccessLog     bool          `yaml:"access_log"`      // OCV_ACCESS_LOG
	SealInterval  time.Duration `yaml:"audit_seal_interval"`
	// AuditHeadsDir receives every signed audit head outside PostgreSQL,
	// a file per organization (auditlog.DirSink). Default DataDir/audit-heads.
	// Default DataDir/audit-heads unless AuditHeadsURL is set (then only
	// when set explicitly).
	AuditHeadsDir string `yaml:"audit_heads_dir"` // OCV_AUDIT_HEADS_DIR
	// AuditHeadsURL, s3://bucket/prefix, has every signed head also written
	// to an S3-compatible bucket (auditlog.S3Sink) at AuditHeadsS3Endpoint.
	AuditHeadsURL               string `yaml:"audit_heads_url"`                // OCV_AUDIT_HEADS_URL
	AuditHeadsS3Endpoint        string `yaml:"audit_heads_s3_endpoint"`        // OCV_AUDIT_HEADS_S3_ENDPOINT
	AuditHeadsS3Region          string `yaml:"audit_heads_s3_region"`          // OCV_AUDIT_HEADS_S3_REGION, default us-east-1
	AuditHeadsS3AccessKeyID     string `yaml:"audit_heads_s3_access_key_id"`   // OCV_AUDIT_HEADS_S3_ACCESS_KEY_ID
	AuditHeadsS3SecretAccessKey string `yaml:"-"`                              // OCV_AUDIT_HEADS_S3_SECRET_ACCESS_KEY (secret, never in the file)
	AuditHeadsS3SecretKeyFile   string `yaml:"audit_heads_s3_secret_key_file"` // OCV_AUDIT_HEADS_S3_SECRET_ACCESS_KEY_FILE
	// AdminListen serves /metrics and /debug/pprof; "" disables it. Keep it
	// on loopback or a private interface.
	AdminListen string `yaml:"admin_listen"` // OCV_ADMIN_LISTEN

	RefreshTTL      time.Duration `yaml:"refresh_ttl"`      // OCV_REFRESH_TTL, default 720h (30 days)
	LockoutDuration time.Duration `yaml:"lockout_duration"` // OCV_LOCKOUT_DURATION, default 15m
	// BootstrapAdminEmail names the first platform administrator: at start
	// the user is created (with its own organization) when missing and made
	// super_admin. The password is used only to create the user.
	BootstrapAdminEmail    string `yaml:"bootstrap_admin_email"`    // OCV_BOOTSTRAP_ADMIN_EMAIL
	BootstrapAdminPassword string `yaml:"bootstrap_admin_password"` // OCV_BOOTSTRAP_ADMIN_PASSWORD (secret)

	// TrustedProxies are the CIDRs of reverse proxies in front of OCV:
	// X-Forwarded-For is believed only from a direct peer in one of them.
	// Empty (the default): the header is ignored.
	TrustedProxies []string `yaml:"trusted_proxies"` // OCV_TRUSTED_PROXIES (comma-separated)

	// SMTP delivers mail when SMTPAddr is set; otherwise dev TLS mode writes
	// .eml files under DataDir/mail and other modes only log.
	SMTPAddr         string `yaml:"smtp_addr"`          // OCV_SMTP_ADDR, host:port
	SMTPUsername     string `yaml:"smtp_username"`      // OCV_SMTP_USERNAME
	SMTPPasswordFile string `yaml:"smtp_password_file"` // OCV_SMTP_PASSWORD_FILE (the password itself is never in the config)
	SMTPFrom         string `yaml:"smtp_from"`          // OCV_SMTP_FROM
	// SMTPInsecure allows a server without STARTTLS; only for a loopback host.
	SMTPInsecure bool `yaml:"smtp_insecure"` // OCV_SMTP_INSECURE

	// Webhook delivery. The settings below are TEST ONLY (see
	// proxy/webhookrun.go): never set them in production.
	WebhooksAllowLoopback bool          `yaml:"webhooks_allow_loopback"` // OCV_WEBHOOKS_ALLOW_LOOPBACK, TEST ONLY
	WebhooksRetryBase     time.Duration `yaml:"webhooks_retry_base"`     // OCV_WEBHOOKS_RETRY_BASE, TEST ONLY (default 10s)
	WebhooksRetryMax      int           `yaml:"webhooks_retry_max"`      // OCV_WEBHOOKS_RETRY_MAX, TEST ONLY (default 56: at least 24 h)
	WebhooksPollInterval  time.Duration `yaml:"webhooks_poll_interval"`  // OCV_WEBHOOKS_POLL_INTERVAL, TEST ONLY (default 5s)
	// TxWatchInterval is how often broadcast transactions are checked
	// against their chain (OCV_TXWATCH_INTERVAL; default 5s).
	TxWatchInterval time.Duration `yaml:"tx_watch_interval"`
	WebhooksLease   time.Duration `yaml:"webhooks_lease"` // OCV_WEBHOOKS_LEASE, TEST ONLY (default 1m)
	// Crash injection (proxy/crashhook.go), TEST ONLY: refused at startup
	// unless the binary is built with -tags ocvtest.
	TestCrash crashHooks `yaml:"-"`
	// WebhooksTestHosts maps host names to addresses for the webhook client's
	// resolver ("name=ip,name=ip"): OCV_WEBHOOKS_TEST_HOSTS, TEST ONLY (DNS
	// rebinding tests without DNS).
	WebhooksTestHosts string `yaml:"-"`

	// EgressAllow is the operator's outbound allowlist: "host:port" entries
	// admit another port for that name (its addresses must still be
	// public), "CIDR:port" entries admit addresses on the operator's own
	// network on that port (see internal/egress).
	EgressAllow []string `yaml:"egress_allow"` // OCV_EGRESS_ALLOW (comma-separated)
	// EgressTestAllowLoopback admits loopback outbound destinations on any
	// port (end-to-end tests' RPC nodes, S3, facilitator): OCV_EGRESS_TEST_ALLOW_LOOPBACK,
	// TEST ONLY (honoured only in -tags ocvtest builds).
	EgressTestAllowLoopback bool `yaml:"-"`

	// RateLimit is the global rate limit (see RateLimitConfig).
	RateLimit RateLimitConfig `yaml:"rate_limit"` // OCV_RATE_LIMIT_*
	// SecretCache bounds the cache of sealed secrets (see SecretCacheConfig).
	SecretCache SecretCacheConfig `yaml:"secret_cache"` // OCV_SECRET_CACHE_*
	// Metering holds the tiers, credits and x402 payments (see metering.Config).
	Metering metering.Config `yaml:"metering"` // OCV_TIER_*, OCV_X402_*, OCV_CREDIT_CENTS_PER_REQUEST, OCV_METERING_*
}

// DefaultConfig is the simulator configuration.
func DefaultConfig() Config {
	return Config{
		Listen: "127.0.0.1:8443", DataDir: ".ocv", EnclaveAddr: "unix://.ocv/enclave.sock", EnclavePoolSize: 32,
		DBMaxConns: 32, AttestationMaxAge: 5 * time.Minute, TLSMode: "dev", TokenTTL: wire.DefaultUserTokenTTL, AgentTokenTTL: wire.DefaultAgentTokenTTL,
		MaxBodyBytes: 1 << 20, LogLevel: "info", AccessLog: true, SealInterval: time.Second, AdminListen: "127.0.0.1:9464",
		RefreshTTL: 30 * 24 * time.Hour, LockoutDuration: 15 * time.Minute,
		RateLimit: DefaultRateLimit(), SecretCache: DefaultSecretCache(), Metering: metering.Config{Tiers: metering.DefaultTiers()},
	}
}

// LoadConfig reads path (optional) and the environment.
func LoadConfig(path string) (Config, error) {
	c := DefaultConfig()
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return c, fmt.Errorf("reading config: %w", err)
		}
		if err := yaml.Unmarshal(b, &c); err != nil {
			return c, fmt.Errorf("parsing config %s: %w", path, err)
		}
	}
	if err := c.applyEnv(os.LookupEnv); err != nil {
		return c, err
	}
	if c.PublicURL == "" {
		c.PublicURL = "https://" + c.Listen
	}
	if len(c.AttestationRoots) == 0 {
		c.AttestationRoots = []string{filepath.Join(c.DataDir, "attestation", "root.pem")}
	}
	if c.AuditHeadsS3Region == "" {
		c.AuditHeadsS3Region = "us-east-1"
	}
	if c.AuditHeadsS3SecretAccessKey == "" && c.AuditHeadsS3SecretKeyFile != "" {
		b, err := os.ReadFile(c.AuditHeadsS3SecretKeyFile)
		if err != nil {
			return c, fmt.Errorf("reading audit_heads_s3_secret_key_file: %w", err)
		}
		c.AuditHeadsS3SecretAccessKey = strings.TrimSpace(string(b))
	}
	if c.AuditHeadsDir == "" && c.AuditHeadsURL == "" {
		c.AuditHeadsDir = filepath.Join(c.DataDir, "audit-heads")
	}
	return c, c.Validate()
}

func (c *Config) applyEnv(lookup func(string) (string, bool)) error {
	str := func(dst *string, key string) {
		if v, ok := lookup(key); ok && v != "" {
			*dst = v
		}
	}
	list := func(dst *[]string, key string) {
		if v, ok := lookup(key); ok && v != "" {
			*dst = strings.Split(v, ",")
		}
	}
	var errs []error
	dur := func(dst *time.Duration, key string) {
		if v, ok := lookup(key); ok && v != "" {
			d, err := time.ParseDuration(v)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", key, err))
			}
			*dst = d
		}
	}
	num := func(key string, set func(int64)) {
		if v, ok := lookup(key); ok && v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s: %w", key, err))
			}
			set(n)
		}
	}
	str(&c.Listen, "OCV_LISTEN")
	str(&c.PublicURL, "OCV_PUBLIC_URL")
	str(&c.DatabaseURL, "OCV_DATABASE_URL")
	str(&c.DataDir, "OCV_DATA_DIR")
	str(&c.AuditHeadsDir, "OCV_AUDIT_HEADS_DIR")
	str(&c.AuditHeadsURL, "OCV_AUDIT_HEADS_URL")
	str(&c.AuditHeadsS3Endpoint, "OCV_AUDIT_HEADS_S3_ENDPOINT")
	str(&c.AuditHeadsS3Region, "OCV_AUDIT_HEADS_S3_REGION")
	str(&c.AuditHeadsS3AccessKeyID, "OCV_AUDIT_HEADS_S3_ACCESS_KEY_ID")
	str(&c.AuditHeadsS3SecretAccessKey, "OCV_AUDIT_HEADS_S3_SECRET_ACCESS_KEY")
	str(&c.AuditHeadsS3SecretKeyFile, "OCV_AUDIT_HEADS_S3_SECRET_ACCESS_KEY_FILE")
	str(&c.EnclaveAddr, "OCV_ENCLAVE_ADDR")
	str(&c.ProxyIdentityKey, "OCV_PROXY_IDENTITY_KEY")
	list(&c.AttestationRoots, "OCV_ATTESTATION_ROOT")
	list(&c.AllowedPCR0, "OCV_ATTESTATION_PCR0")
	str(&c.TLSMode, "OCV_TLS_MODE")
	list(&c.TLSHosts, "OCV_TLS_HOSTS")
	list(&c.ACMEDomains, "OCV_ACME_DOMAINS")
	str(&c.ACMEEmail, "OCV_ACME_EMAIL")
	str(&c.ACMECA, "OCV_ACME_CA")
	dur(&c.TokenTTL, "OCV_TOKEN_TTL")
	dur(&c.AgentTokenTTL, "OCV_AGENT_TOKEN_TTL")
	str(&c.LogLevel, "OCV_LOG_LEVEL")
	dur(&c.RefreshTTL, "OCV_REFRESH_TTL")
	dur(&c.LockoutDuration, "OCV_LOCKOUT_DURATION")
	str(&c.BootstrapAdminEmail, "OCV_BOOTSTRAP_ADMIN_EMAIL")
	str(&c.BootstrapAdminPassword, "OCV_BOOTSTRAP_ADMIN_PASSWORD")
	list(&c.TrustedProxies, "OCV_TRUSTED_PROXIES")
	str(&c.SMTPAddr, "OCV_SMTP_ADDR")
	str(&c.SMTPUsername, "OCV_SMTP_USERNAME")
	str(&c.SMTPPasswordFile, "OCV_SMTP_PASSWORD_FILE")
	str(&c.SMTPFrom, "OCV_SMTP_FROM")
	if v, ok := lookup("OCV_SMTP_INSECURE"); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("OCV_SMTP_INSECURE: %w", err))
		}
		c.SMTPInsecure = b
	}
	errs = append(errs, c.applyWebhookEnv(lookup)...)
	errs = append(errs, c.applyEgressEnv(lookup)...)
	errs = append(errs, c.applyLimitsEnv(lookup)...)
	errs = append(errs, c.applySecretCacheEnv(lookup)...)
	c.TestCrash.applyEnv(lookup)
	if v, ok := lookup("OCV_ADMIN_LISTEN"); ok {
		c.AdminListen = v
	}
	num("OCV_MAX_BODY_BYTES", func(n int64) { c.MaxBodyBytes = n })
	num("OCV_ENCLAVE_POOL_SIZE", func(n int64) { c.EnclavePoolSize = int(n) })
	num("OCV_DATABASE_MAX_CONNS", func(n int64) { c.DBMaxConns = int32(n) })
	if v, ok := lookup("OCV_ACCESS_LOG"); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("OCV_ACCESS_LOG: %w", err))
		}
		c.AccessLog = b
	}
	return errors.Join(errs...)
}

// Validate checks every field and names the ones that are wrong.
func (c *Config) Validate() error {
	var errs []error
	bad := func(field, why string) { errs = append(errs, fmt.Errorf("config %s: %s", field, why)) }
	if _, _, err := net.SplitHostPort(c.Listen); err != nil {
		bad("listen", "must be host:port")
	}
	if u, err := url.Parse(c.PublicURL); err != nil || u.Scheme != "https" || u.Host == "" {
		bad("public_url", "must be an https:// URL")
	}
	if c.DatabaseURL == "" {
		bad("database_url", "is required (OCV_DATABASE_URL); `make run` starts a private cluster and sets it")
	}
	if !strings.HasPrefix(c.EnclaveAddr, "unix://") && !strings.HasPrefix(c.EnclaveAddr, "vsock://") {
		bad("enclave_addr", "must be unix:///path or vsock://CID:PORT")
	}
	if c.ProxyIdentityKey == "" {
		bad("proxy_identity_key", "is required (OCV_PROXY_IDENTITY_KEY): the enclave serves only a proxy that proves its identity; `ocv-enclave keygen-proxy-identity` makes one")
	}
	if c.EnclavePoolSize < 1 || c.EnclavePoolSize > 1024 {
		bad("enclave_pool_size", "must be 1 to 1024")
	}
	if len(c.AllowedPCR0) == 0 {
		bad("allowed_pcr0", "at least one enclave measurement is required (fail closed); in simulator mode: sha384sum bin/ocv-enclave")
	}
	for _, p := range c.AllowedPCR0 {
		if b, err := hex.DecodeString(strings.TrimSpace(p)); err != nil || len(b) != 48 {
			bad("allowed_pcr0", "each value must be 48 bytes, hex-encoded")
		}
	}
	switch c.TLSMode {
	case "dev":
	case "acme":
		if len(c.ACMEDomains) == 0 {
			bad("acme_domains", "at least one domain is required in acme mode")
		}
	default:
		bad("tls_mode", `must be "dev" or "acme"`)
	}
	if c.TokenTTL < time.Minute || c.TokenTTL > 24*time.Hour {
		bad("token_ttl", "must be between 1m and 24h")
	}
	if c.AgentTokenTTL < time.Minute || c.AgentTokenTTL > 24*time.Hour {
		bad("agent_token_ttl", "must be between 1m and 24h")
	}
	if c.MaxBodyBytes < 1024 || c.MaxBodyBytes > 64<<20 {
		bad("max_body_bytes", "must be between 1 KiB and 64 MiB")
	}
	if c.DBMaxConns < 2 {
		bad("database_max_conns", "must be at least 2")
	}
	if c.AdminListen != "" {
		if _, _, err := net.SplitHostPort(c.AdminListen); err != nil {
			bad("admin_listen", "must be host:port or empty")
		}
	}
	if c.SealInterval <= 0 {
		bad("audit_seal_interval", "must be positive")
	}
	errs = append(errs, c.validateIdentity()...)
	errs = append(errs, c.validateWebhooks()...)
	errs = append(errs, c.validateEgress()...)
	errs = append(errs, c.validateTestOnly(testbuild.Enabled)...)
	errs = append(errs, c.validateLimits()...)
	errs = append(errs, c.validateSecretCache()...)
	errs = append(errs, c.validateNetwork()...)
	if c.AuditHeadsURL != "" {
		if _, _, err := s3lite.ParseURL(c.AuditHeadsURL); err != nil {
			bad("audit_heads_url", err.Error())
		} else if _, err := s3lite.New(c.AuditHeadsS3()); err != nil {
			bad("audit_heads_s3_*", err.Error())
		}
	}
	return errors.Join(errs...)
}

// AuditHeadsS3 is the client configuration of the audit heads bucket.
func (c *Config) AuditHeadsS3() s3lite.Config {
	return s3lite.Config{Endpoint: c.AuditHeadsS3Endpoint, Region: c.AuditHeadsS3Region,
		AccessKeyID: c.AuditHeadsS3AccessKeyID, SecretAccessKey: c.AuditHeadsS3SecretAccessKey,
		HTTPClient: c.auditHeadsEgress().Client(30 * time.Second)}
}

// Masked returns the configuration as YAML with secrets (the database
// password, the bootstrap admin password) masked, for --print-config.
func (c Config) Masked() string {
	m := c
	if u, err := url.Parse(c.DatabaseURL); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
			m.DatabaseURL = u.String()
		}
	}
	if m.BootstrapAdminPassword != "" {
		m.BootstrapAdminPassword = "xxxxx"
	}
	b, _ := yaml.Marshal(m)
	return string(b)
}
