package edgetls

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"log/slog"
	"net/url"
	"sync/atomic"

	"github.com/caddyserver/certmagic"
)

// LetsEncryptProductionCA is the default ACME directory of ACMEConfig.CA.
const LetsEncryptProductionCA = certmagic.LetsEncryptProductionCA

// ACMEConfig configures production certificates obtained over ACME.
type ACMEConfig struct {
	// Domains are the DNS names to manage certificates for (required).
	Domains []string
	// Email is the ACME account contact (optional, recommended: the CA
	// warns about expiry problems there).
	Email string
	// CA is the ACME directory URL; empty means LetsEncryptProductionCA.
	CA string
	// TestCA is the directory used for retries after a failure, to spare
	// the production CA's rate limits. Empty means Let's Encrypt staging
	// when CA is Let's Encrypt production, and no separate test CA otherwise.
	TestCA string
	// RootsPEM, if set, replaces the system roots when connecting to the
	// ACME server (a test CA such as pebble).
	RootsPEM []byte
	// AgreeTerms accepts the CA's subscriber agreement; it must be true.
	AgreeTerms bool
	// AltHTTPPort and AltTLSALPNPort are the ports the HTTP-01 and
	// TLS-ALPN-01 solvers listen on when they must start their own
	// listener (default 80 and 443; set them when those are forwarded).
	AltHTTPPort, AltTLSALPNPort int
	// DisableHTTPChallenge and DisableTLSALPNChallenge turn a challenge
	// type off; at least one must stay on.
	DisableHTTPChallenge, DisableTLSALPNChallenge bool
}

// Validate reports the first unusable field, wrapping ErrInvalidConfig.
func (c ACMEConfig) Validate() error {
	if len(c.Domains) == 0 {
		return fmt.Errorf("%w: domains: at least one is required", ErrInvalidConfig)
	}
	for _, d := range c.Domains {
		if !certmagic.SubjectQualifiesForCert(d) {
			return fmt.Errorf("%w: domains: %q cannot have a certificate", ErrInvalidConfig, d)
		}
	}
	if !c.AgreeTerms {
		return fmt.Errorf("%w: agree_terms: the CA's subscriber agreement must be accepted", ErrInvalidConfig)
	}
	for field, u := range map[string]string{"ca": c.CA, "test_ca": c.TestCA} {
		if u == "" {
			continue
		}
		if parsed, err := url.Parse(u); err != nil || parsed.Scheme != "https" || parsed.Host == "" {
			return fmt.Errorf("%w: %s: not an https URL", ErrInvalidConfig, field)
		}
	}
	if len(c.RootsPEM) > 0 && !x509.NewCertPool().AppendCertsFromPEM(c.RootsPEM) {
		return fmt.Errorf("%w: roots_pem: no certificate found", ErrInvalidConfig)
	}
	for field, p := range map[string]int{"alt_http_port": c.AltHTTPPort, "alt_tlsalpn_port": c.AltTLSALPNPort} {
		if p < 0 || p > 65535 {
			return fmt.Errorf("%w: %s: out of range", ErrInvalidConfig, field)
		}
	}
	if c.DisableHTTPChallenge && c.DisableTLSALPNChallenge {
		return fmt.Errorf("%w: both HTTP-01 and TLS-ALPN-01 are disabled", ErrInvalidConfig)
	}
	return nil
}

// ACME manages certificates for cfg.Domains with certmagic: it loads them
// from storage or obtains them now (HTTP-01 or TLS-ALPN-01, certmagic
// starting a temporary solver listener when the port is free), and renews
// them in the background until ctx ends. It returns a server configuration
// that serves those certificates and answers TLS-ALPN-01 challenges,
// including ones started by another replica sharing storage.
//
// It blocks until every domain has a certificate and returns an error if
// one cannot be obtained. storage is shared by all replicas (PGStorage in
// production). A nil logger means slog.Default().
func ACME(ctx context.Context, cfg ACMEConfig, storage certmagic.Storage, logger *slog.Logger) (*tls.Config, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if storage == nil {
		return nil, fmt.Errorf("%w: storage is nil", ErrInvalidConfig)
	}
	if logger == nil {
		logger = slog.Default()
	}
	zl := newZapLogger(logger)

	var roots *x509.CertPool
	if len(cfg.RootsPEM) > 0 {
		roots = x509.NewCertPool()
		roots.AppendCertsFromPEM(cfg.RootsPEM)
	}
	ca := cfg.CA
	if ca == "" {
		ca = LetsEncryptProductionCA
	}

	var magic atomic.Pointer[certmagic.Config]
	cache := certmagic.NewCache(certmagic.CacheOptions{
		GetConfigForCert: func(certmagic.Certificate) (*certmagic.Config, error) {
			return magic.Load(), nil
		},
		Logger: zl,
	})
	m := certmagic.New(cache, certmagic.Config{Storage: storage, Logger: zl})
	m.Issuers = []certmagic.Issuer{certmagic.NewACMEIssuer(m, certmagic.ACMEIssuer{
		CA:                      ca,
		TestCA:                  cfg.TestCA,
		Email:                   cfg.Email,
		Agreed:                  cfg.AgreeTerms,
		TrustedRoots:            roots,
		AltHTTPPort:             cfg.AltHTTPPort,
		AltTLSALPNPort:          cfg.AltTLSALPNPort,
		DisableHTTPChallenge:    cfg.DisableHTTPChallenge,
		DisableTLSALPNChallenge: cfg.DisableTLSALPNChallenge,
		Logger:                  zl,
	})}
	magic.Store(m)

	if err := m.ManageSync(ctx, cfg.Domains); err != nil {
		cache.Stop()
		return nil, fmt.Errorf("managing certificates: %w", err)
	}
	context.AfterFunc(ctx, cache.Stop)

	tlsCfg := m.TLSConfig()
	// h2 and http/1.1 for clients; certmagic's acme-tls/1 stays for
	// TLS-ALPN-01 validation.
	tlsCfg.NextProtos = append([]string{"h2", "http/1.1"}, tlsCfg.NextProtos...)
	harden(tlsCfg)
	return tlsCfg, nil
}
