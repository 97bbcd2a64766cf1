package chainrpc

import (
	"time"

	"github.com/opencustody/ocv/internal/egress"
)

// Defaults applied by NewPool to zero Config fields.
const (
	DefaultTimeout = 10 * time.Second
	DefaultRetries = 2
)

// retryBackoff is the pause before retry n (1-based) is n*retryBackoff.
const retryBackoff = 100 * time.Millisecond

// Config tunes every Client of a Pool.
type Config struct {
	// Timeout bounds each attempt of each call (default 10s).
	Timeout time.Duration
	// Retries is how many times a read is retried after a network error or
	// timeout (default 2; negative disables retries). Sends are never retried.
	Retries int
	// Egress is the outbound policy every connection to a node goes
	// through (checked at connect time, so an rpc_url whose name later
	// resolves to a private or metadata address is refused). nil applies
	// the strict default policy: public addresses on ports 443 and 80.
	Egress *egress.Policy
}

// withDefaults returns c with zero fields replaced by the defaults.
func (c Config) withDefaults() Config {
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	switch {
	case c.Retries == 0:
		c.Retries = DefaultRetries
	case c.Retries < 0:
		c.Retries = 0
	}
	return c
}
