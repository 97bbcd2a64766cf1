package enclave

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/opencustody/ocv/enclave/wire"
)

// DefaultDEKCacheSize is the DEK cache size the process config defaults to.
const DefaultDEKCacheSize = 4096

// maxDEKCacheSize bounds the cache (about 200 bytes per entry).
const maxDEKCacheSize = 1 << 20

// DefaultFloorRefresh is how long the process config trusts a cached
// anti-rollback floor.
const DefaultFloorRefresh = time.Second

// maxFloorRefresh bounds FloorRefresh: for that long after a set is
// superseded on another enclave on the same HSM, this one may still accept
// it.
const maxFloorRefresh = time.Minute

// Config configures a Server.
//
// Listen is "unix:///path/to.sock" (simulator) or "vsock://CID:PORT" (the
// CID may be empty to accept on any). DEKCacheSize is the number of
// unwrapped data keys kept in enclave memory; 0 disables the cache. Mode is
// wire.ModeSimulated or wire.ModeNitro and is what Health reports.
//
// RequireCallerToken makes every Open and Seal carry the caller's access
// token (else Forbidden), which the enclave checks with the vault's MAC'd
// policy set before it touches a key. False is TRANSITIONAL, until the
// proxy sends tokens: a request without a token then goes through
// unchecked (one with a token is still checked). It is never for
// production: Validate refuses it in nitro mode, and the process config
// (ProcessConfig) defaults it to true.
//
// Issuer is the iss of the access tokens the proxy mints (its public URL);
// LegacyIssuers are earlier ones, still accepted. TokenLifetimes bound a
// token's lifetime (exp - iat) per principal type. The enclave applies all
// three to every token it is shown; they must match the proxy's settings.
//
// ProxyIdentityKeys are the proxy identity public keys: a connection is
// served only once its peer proved one of them in the handshake
// (wire.PeerProof). At least one is required in every mode; more than one
// lets a key rotate.
//
// FloorRefresh is how long an anti-rollback floor read from the HSM (the
// newest sealed policy or guardrail set) is trusted before it is read
// again; 0 means DefaultFloorRefresh. Another enclave on the same HSM token
// that seals a newer set is followed within that time.
type Config struct {
	Listen             string
	DEKCacheSize       int
	Mode               string
	RequireCallerToken bool
	Issuer             string
	LegacyIssuers      []string
	TokenLifetimes     wire.TokenLifetimes
	ProxyIdentityKeys  []ed25519.PublicKey
	FloorRefresh       time.Duration
}

// Validate checks c; errors name the field.
func (c Config) Validate() error {
	if _, err := wire.ParseAddr(c.Listen); err != nil {
		return fmt.Errorf("%w: listen: %w", ErrInvalidConfig, err)
	}
	if c.DEKCacheSize < 0 || c.DEKCacheSize > maxDEKCacheSize {
		return fmt.Errorf("%w: dek_cache_size must be between 0 and %d", ErrInvalidConfig, maxDEKCacheSize)
	}
	if c.Mode != wire.ModeSimulated && c.Mode != wire.ModeNitro {
		return fmt.Errorf("%w: mode must be %q or %q", ErrInvalidConfig, wire.ModeSimulated, wire.ModeNitro)
	}
	if c.Mode == wire.ModeNitro && !c.RequireCallerToken {
		return fmt.Errorf("%w: require_caller_token must be true in nitro mode", ErrInvalidConfig)
	}
	if err := validIssuer(c.Issuer); err != nil {
		return fmt.Errorf("%w: public_url %w", ErrInvalidConfig, err)
	}
	for _, iss := range c.LegacyIssuers {
		if iss == "" {
			return fmt.Errorf("%w: legacy_issuers must not hold an empty issuer", ErrInvalidConfig)
		}
	}
	if c.FloorRefresh < 0 || c.FloorRefresh > maxFloorRefresh {
		return fmt.Errorf("%w: floor_refresh must be between 0 (the default, %s) and %s", ErrInvalidConfig, DefaultFloorRefresh, maxFloorRefresh)
	}
	if err := c.TokenLifetimes.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	if len(c.ProxyIdentityKeys) == 0 {
		return fmt.Errorf("%w: proxy_identity_pubkeys: at least one proxy identity key is required (fail closed)", ErrInvalidConfig)
	}
	for _, k := range c.ProxyIdentityKeys {
		if len(k) != ed25519.PublicKeySize {
			return fmt.Errorf("%w: proxy_identity_pubkeys: a key is not an Ed25519 public key", ErrInvalidConfig)
		}
	}
	return nil
}

// validIssuer accepts an https:// URL with a host, as the proxy's
// public_url must be.
func validIssuer(s string) error {
	if u, err := url.Parse(s); err != nil || u.Scheme != "https" || u.Host == "" {
		return errors.New("must be an https:// URL")
	}
	return nil
}
