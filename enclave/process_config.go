package enclave

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/opencustody/ocv/enclave/wire"
)

// Attester kinds.
const (
	AttesterSim   = "sim"
	AttesterNitro = "nitro"
)

// ProcessConfig is the ocv-enclave binary's configuration: defaults, then
// an optional YAML file, then OCV_ENCLAVE_* environment variables. It holds
// no secret: the PIN stays in its file.
type ProcessConfig struct {
	// Listen is the channel address (OCV_ENCLAVE_LISTEN).
	Listen string `yaml:"listen"`
	// PKCS11 selects the HSM.
	PKCS11 PKCS11Config `yaml:"pkcs11"`
	// Attester selects the attestation source.
	Attester AttesterConfig `yaml:"attester"`
	// DEKCacheSize is the number of unwrapped data keys cached; 0 disables
	// (OCV_ENCLAVE_DEK_CACHE_SIZE).
	DEKCacheSize int `yaml:"dek_cache_size"`
	// LogLevel is debug, info, warn or error (OCV_ENCLAVE_LOG_LEVEL).
	LogLevel string `yaml:"log_level"`
	// RequireCallerToken (OCV_ENCLAVE_REQUIRE_CALLER_TOKEN, default true)
	// makes Open and Seal without a caller token Forbidden. false is
	// transitional, for a proxy that does not send tokens yet, and is
	// refused with the nitro attester (see Config).
	RequireCallerToken bool `yaml:"require_caller_token"`

	// The token rules, the same settings under the same names as the
	// proxy's: give both processes the same values. The enclave refuses
	// every access token whose iss is neither PublicURL nor one of
	// LegacyIssuers, and every token living longer than TokenTTL (users) or
	// AgentTokenTTL (agents) plus wire.TokenClockSkew.
	//
	// PublicURL is the proxy's public URL, the iss of the tokens it mints
	// (OCV_PUBLIC_URL; default https://127.0.0.1:8443, the proxy's default).
	PublicURL string `yaml:"public_url"`
	// LegacyIssuers are earlier issuers, still accepted.
	LegacyIssuers []string `yaml:"legacy_issuers"`
	// TokenTTL is the lifetime of a user's token (OCV_TOKEN_TTL, default 900s).
	TokenTTL time.Duration `yaml:"token_ttl"`
	// AgentTokenTTL is the lifetime of an agent's token (OCV_AGENT_TOKEN_TTL,
	// default 7200s).
	AgentTokenTTL time.Duration `yaml:"agent_token_ttl"`

	// ProxyIdentityPubkeys are the proxy identity public keys
	// ("ed25519:" + base64; OCV_PROXY_IDENTITY_PUBKEYS, comma-separated):
	// the enclave serves only a peer that proves one in the handshake. At
	// least one is required; list two while rotating.
	ProxyIdentityPubkeys []string `yaml:"proxy_identity_pubkeys"`
	// FloorRefresh is how long an anti-rollback floor read from the HSM is
	// trusted before it is read again (OCV_FLOOR_REFRESH, default 1s, at
	// most 1m): with several enclaves on one HSM token, a set superseded
	// on one may be accepted by another for up to that long.
	FloorRefresh time.Duration `yaml:"floor_refresh"`
}

// DefaultPublicURL is the proxy's default public URL (https:// and its
// default listen address), the default issuer.
const DefaultPublicURL = "https://127.0.0.1:8443"

// PKCS11Config selects a PKCS#11 module and token.
type PKCS11Config struct {
	ModulePath string `yaml:"module_path"` // OCV_ENCLAVE_PKCS11_MODULE
	TokenLabel string `yaml:"token_label"` // OCV_ENCLAVE_TOKEN_LABEL
	PINFile    string `yaml:"pin_file"`    // OCV_ENCLAVE_PIN_FILE
	PoolSize   int    `yaml:"pool_size"`   // OCV_ENCLAVE_PKCS11_POOL_SIZE; 0: the module's default
}

// AttesterConfig selects the attester: "sim" (documents signed by a local
// CA kept in Dir) or "nitro" (the Nitro Security Module).
type AttesterConfig struct {
	Kind string `yaml:"kind"` // OCV_ENCLAVE_ATTESTER
	Dir  string `yaml:"dir"`  // OCV_ENCLAVE_ATTESTATION_DIR; sim only, ignored by nitro
}

// DefaultProcessConfig runs the simulator from a fresh checkout.
func DefaultProcessConfig() ProcessConfig {
	return ProcessConfig{
		Listen: "unix://.ocv/enclave.sock",
		PKCS11: PKCS11Config{
			ModulePath: "/usr/lib/softhsm/libsofthsm2.so",
			TokenLabel: "ocv",
			PINFile:    ".ocv/softhsm/pin",
		},
		Attester:           AttesterConfig{Kind: AttesterSim, Dir: ".ocv/attestation"},
		DEKCacheSize:       DefaultDEKCacheSize,
		LogLevel:           "info",
		RequireCallerToken: true,
		PublicURL:          DefaultPublicURL,
		TokenTTL:           wire.DefaultUserTokenTTL,
		AgentTokenTTL:      wire.DefaultAgentTokenTTL,
		FloorRefresh:       DefaultFloorRefresh,
	}
}

// LoadProcessConfig builds the configuration: defaults, then the YAML file
// at path (if path is not empty; unknown keys are refused), then the
// environment through lookup (os.LookupEnv in main). It validates the
// result.
func LoadProcessConfig(path string, lookup func(string) (string, bool)) (ProcessConfig, error) {
	cfg := DefaultProcessConfig()
	if path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return cfg, fmt.Errorf("reading config file: %w", err)
		}
		dec := yaml.NewDecoder(bytes.NewReader(raw))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil && !errors.Is(err, io.EOF) {
			return cfg, fmt.Errorf("%w: parsing %s: %w", ErrInvalidConfig, path, err)
		}
	}
	if err := cfg.applyEnv(lookup); err != nil {
		return cfg, err
	}
	return cfg, cfg.Validate()
}

func (c *ProcessConfig) applyEnv(lookup func(string) (string, bool)) error {
	str := map[string]*string{
		"OCV_ENCLAVE_LISTEN":          &c.Listen,
		"OCV_ENCLAVE_PKCS11_MODULE":   &c.PKCS11.ModulePath,
		"OCV_ENCLAVE_TOKEN_LABEL":     &c.PKCS11.TokenLabel,
		"OCV_ENCLAVE_PIN_FILE":        &c.PKCS11.PINFile,
		"OCV_ENCLAVE_ATTESTER":        &c.Attester.Kind,
		"OCV_ENCLAVE_ATTESTATION_DIR": &c.Attester.Dir,
		"OCV_ENCLAVE_LOG_LEVEL":       &c.LogLevel,
		"OCV_PUBLIC_URL":              &c.PublicURL, // the proxy's name: one value for both
	}
	for name, dst := range str {
		if v, ok := lookup(name); ok {
			*dst = v
		}
	}
	ints := map[string]*int{
		"OCV_ENCLAVE_DEK_CACHE_SIZE":   &c.DEKCacheSize,
		"OCV_ENCLAVE_PKCS11_POOL_SIZE": &c.PKCS11.PoolSize,
	}
	for name, dst := range ints {
		if v, ok := lookup(name); ok {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%w: %s is not an integer", ErrInvalidConfig, name)
			}
			*dst = n
		}
	}
	durations := map[string]*time.Duration{
		"OCV_TOKEN_TTL":       &c.TokenTTL, // the proxy's names: one value for both
		"OCV_AGENT_TOKEN_TTL": &c.AgentTokenTTL,
		"OCV_FLOOR_REFRESH":   &c.FloorRefresh,
	}
	for name, dst := range durations {
		if v, ok := lookup(name); ok {
			d, err := time.ParseDuration(strings.TrimSpace(v))
			if err != nil {
				return fmt.Errorf("%w: %s is not a duration (900s, 2h, 1s)", ErrInvalidConfig, name)
			}
			*dst = d
		}
	}
	if v, ok := lookup("OCV_PROXY_IDENTITY_PUBKEYS"); ok {
		c.ProxyIdentityPubkeys = splitPeerKeyList(v)
	}
	if v, ok := lookup("OCV_ENCLAVE_REQUIRE_CALLER_TOKEN"); ok {
		b, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			return fmt.Errorf("%w: OCV_ENCLAVE_REQUIRE_CALLER_TOKEN is not a boolean", ErrInvalidConfig)
		}
		c.RequireCallerToken = b
	}
	return nil
}

// Validate checks the configuration; errors name the field.
func (c ProcessConfig) Validate() error {
	if _, err := c.proxyIdentityKeys(); err != nil {
		return err
	}
	if err := c.Server().Validate(); err != nil {
		return err
	}
	switch {
	case c.PKCS11.ModulePath == "":
		return fmt.Errorf("%w: pkcs11.module_path is required", ErrInvalidConfig)
	case c.PKCS11.TokenLabel == "" || len(c.PKCS11.TokenLabel) > 32:
		return fmt.Errorf("%w: pkcs11.token_label must be 1 to 32 bytes", ErrInvalidConfig)
	case c.PKCS11.PINFile == "":
		return fmt.Errorf("%w: pkcs11.pin_file is required", ErrInvalidConfig)
	case c.PKCS11.PoolSize < 0 || c.PKCS11.PoolSize > 256:
		return fmt.Errorf("%w: pkcs11.pool_size must be between 0 and 256", ErrInvalidConfig)
	case c.Attester.Kind != AttesterSim && c.Attester.Kind != AttesterNitro:
		return fmt.Errorf("%w: attester.kind must be %q or %q", ErrInvalidConfig, AttesterSim, AttesterNitro)
	case c.FloorRefresh <= 0:
		return fmt.Errorf("%w: floor_refresh must be a positive duration (default %s)", ErrInvalidConfig, DefaultFloorRefresh)
	case c.Attester.Kind == AttesterSim && c.Attester.Dir == "":
		return fmt.Errorf("%w: attester.dir is required for the sim attester", ErrInvalidConfig)
	}
	if _, err := c.SlogLevel(); err != nil {
		return err
	}
	return nil
}

// Server is the Server configuration this process configuration implies:
// the sim attester means simulated mode.
func (c ProcessConfig) Server() Config {
	mode := wire.ModeSimulated
	if c.Attester.Kind == AttesterNitro {
		mode = wire.ModeNitro
	}
	return Config{Listen: c.Listen, DEKCacheSize: c.DEKCacheSize, Mode: mode, RequireCallerToken: c.RequireCallerToken,
		Issuer: c.PublicURL, LegacyIssuers: c.LegacyIssuers,
		TokenLifetimes:    wire.TokenLifetimes{User: c.TokenTTL, Agent: c.AgentTokenTTL},
		ProxyIdentityKeys: c.validProxyIdentityKeys(), FloorRefresh: c.FloorRefresh}
}

// SlogLevel parses LogLevel.
func (c ProcessConfig) SlogLevel() (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil || !validLevel(c.LogLevel) {
		return l, fmt.Errorf("%w: log_level must be debug, info, warn or error", ErrInvalidConfig)
	}
	return l, nil
}

func validLevel(s string) bool {
	switch strings.ToLower(s) {
	case "debug", "info", "warn", "error":
		return true
	}
	return false
}
