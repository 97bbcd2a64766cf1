package webhooks_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/webhooks"
)

// The PostgreSQL store implements the interface this package owns. The guard
// lives here, on the consumer's side, so that the store imports nothing
// from the proxy.
var _ webhooks.Outbox = (*store.Outbox)(nil)

// TestLeaseOutlastsRequest holds DefaultLease to its contract: a claim
// outlives the longest delivery, or a slow one could be claimed twice.
func TestLeaseOutlastsRequest(t *testing.T) {
	require.Greater(t, webhooks.DefaultLease, webhooks.RequestTimeout)
}
