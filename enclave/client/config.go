package client

import (
	"fmt"
	"log/slog"
	"time"

	"github.com/opencustody/ocv/attestation"
	"github.com/opencustody/ocv/enclave/wire"
)

// Defaults for a zero Config field.
const (
	DefaultPoolSize = 4
	// DefaultDialTimeout bounds a dial plus the attested handshake; it is
	// generous because a loaded host (or -race) can take seconds to verify
	// an attestation document, and a failed dial marks the enclave down.
	DefaultDialTimeout = 5 * time.Second
	DefaultCallTimeout = 10 * time.Second
	maxPoolSize        = 256
)

// Config configures a Client. Addr is "unix:///path/to.sock" or
// "vsock://CID:PORT". Validator checks every attestation document and is
// required. Identity is the proxy's identity key, with which every
// connection proves itself to the enclave; it is required. PoolSize is the most connections kept open (DefaultPoolSize
// when 0). DialTimeout bounds a dial plus handshake; CallTimeout bounds a
// whole call, waiting for a connection included.
type Config struct {
	Addr        string
	Validator   attestation.Validator
	Identity    *Identity
	PoolSize    int
	DialTimeout time.Duration
	CallTimeout time.Duration
	Logger      *slog.Logger
}

// withDefaults validates c and fills in defaults.
func (c Config) withDefaults() (Config, wire.Addr, error) {
	addr, err := wire.ParseAddr(c.Addr)
	if err != nil {
		return c, addr, fmt.Errorf("%w: addr: %w", ErrInvalidConfig, err)
	}
	if addr.Network == wire.NetworkVsock && !addr.HasCID {
		return c, addr, fmt.Errorf("%w: addr: vsock address needs a CID", ErrInvalidConfig)
	}
	switch {
	case c.Validator == nil:
		return c, addr, fmt.Errorf("%w: validator is required", ErrInvalidConfig)
	case c.Identity == nil:
		return c, addr, fmt.Errorf("%w: the proxy identity key is required", ErrInvalidConfig)
	case c.PoolSize < 0 || c.PoolSize > maxPoolSize:
		return c, addr, fmt.Errorf("%w: pool_size must be between 0 and %d", ErrInvalidConfig, maxPoolSize)
	case c.DialTimeout < 0 || c.CallTimeout < 0:
		return c, addr, fmt.Errorf("%w: timeouts must not be negative", ErrInvalidConfig)
	}
	if c.PoolSize == 0 {
		c.PoolSize = DefaultPoolSize
	}
	if c.DialTimeout == 0 {
		c.DialTimeout = DefaultDialTimeout
	}
	if c.CallTimeout == 0 {
		c.CallTimeout = DefaultCallTimeout
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c, addr, nil
}

// State is the channel's trust state, for /v1/health/hsm and metrics.
type State struct {
	// Attested is true while the last handshake validated a document and
	// nothing since showed the enclave unreachable.
	Attested bool
	// Reason says why not ("dial: ...", "attestation: ..."); empty when
	// attested.
	Reason string
	// Since is when the state last changed.
	Since time.Time
	// Mode is wire.ModeSimulated or wire.ModeNitro (from the last validated
	// document); empty before the first.
	Mode string
	// Simulated is true when the document chained to a simulator root.
	Simulated bool
}
