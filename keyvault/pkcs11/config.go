package pkcs11

import (
	"bytes"
	"fmt"
	"os"
	"runtime"
)

// Pool size bounds. The default follows the CPU count: SoftHSM scales to
// about two sessions per core, hardware HSMs cap sessions per application.
const (
	minDefaultPoolSize = 2
	maxDefaultPoolSize = 64
	// MaxPoolSize is the largest PoolSize Validate accepts.
	MaxPoolSize = 256
	// maxTokenLabel is the size of CK_TOKEN_INFO.label.
	maxTokenLabel = 32
)

// Config selects a PKCS#11 module, a token on it and the user PIN.
//
// Exactly one of PIN and PINFile is set. PINFile is read by New; one trailing
// newline is ignored. PoolSize is the number of sessions kept open; 0 means
// 2*runtime.GOMAXPROCS(0), bounded to [2, 64].
type Config struct {
	ModulePath string
	TokenLabel string
	PIN        string
	PINFile    string
	PoolSize   int
}

// Validate checks c without touching the module or the PIN file.
func (c Config) Validate() error {
	switch {
	case c.ModulePath == "":
		return fmt.Errorf("%w: module_path is required", ErrInvalidConfig)
	case c.TokenLabel == "":
		return fmt.Errorf("%w: token_label is required", ErrInvalidConfig)
	case len(c.TokenLabel) > maxTokenLabel:
		return fmt.Errorf("%w: token_label is longer than %d bytes", ErrInvalidConfig, maxTokenLabel)
	case c.PIN != "" && c.PINFile != "":
		return fmt.Errorf("%w: pin and pin_file are mutually exclusive", ErrInvalidConfig)
	case c.PIN == "" && c.PINFile == "":
		return fmt.Errorf("%w: one of pin and pin_file is required", ErrInvalidConfig)
	case c.PoolSize < 0 || c.PoolSize > MaxPoolSize:
		return fmt.Errorf("%w: pool_size must be between 0 and %d", ErrInvalidConfig, MaxPoolSize)
	}
	return nil
}

// poolSize is the effective session count.
func (c Config) poolSize() int {
	if c.PoolSize > 0 {
		return c.PoolSize
	}
	return min(max(2*runtime.GOMAXPROCS(0), minDefaultPoolSize), maxDefaultPoolSize)
}

// pin returns the user PIN, reading PINFile when it is set. The PIN never
// appears in an error.
func (c Config) pin() (string, error) {
	if c.PINFile == "" {
		return c.PIN, nil
	}
	b, err := os.ReadFile(c.PINFile)
	if err != nil {
		return "", fmt.Errorf("reading pin_file: %w", err)
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) == 0 {
		return "", fmt.Errorf("%w: pin_file is empty", ErrInvalidConfig)
	}
	return string(b), nil
}
