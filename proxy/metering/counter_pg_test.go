package metering_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
	"github.com/opencustody/ocv/proxy/metering"
)

func seedPGOrg(t *testing.T, s *store.Store) string {
	t.Helper()
	org := uuid.Must(uuid.NewV7()).String()
	_, err := s.CreateUserWithOrg(context.Background(),
		store.User{ID: uuid.Must(uuid.NewV7()).String(), Email: org + "@example.com", PasswordHash: "h"},
		org+"@example.com", store.Org{ID: org, Name: "o"},
		&auditchain.Event{OrgID: org, OccurredAt: time.Now().UTC(), RequestID: "req", ActorType: "user",
			ActorID: "u", Action: "auth.signup", Resource: "r", Outcome: auditchain.OutcomeSuccess, Status: 200})
	require.NoError(t, err)
	return org
}

// TestCounterConcurrentReplicas: two counters (two replicas) share one
// table; 50 goroutines make 40 calls each against the Free quota of 1,000.
// Exactly 1,000 are allowed and, once reconciled, the table says 1,000.
func TestCounterConcurrentReplicas(t *testing.T) {
	s := storetest.New(t)
	org := seedPGOrg(t, s)
	ctx := context.Background()
	replicas := []*metering.Counter{
		metering.NewCounter(s, metering.CounterConfig{}),
		metering.NewCounter(s, metering.CounterConfig{}),
	}
	var allowed, refused atomic.Int64
	var wg sync.WaitGroup
	for g := range 50 {
		c := replicas[g%2]
		wg.Go(func() {
			for range 40 {
				d, err := c.Take(ctx, org, metering.TierFree)
				if !assert.NoError(t, err) {
					return
				}
				if d.Allowed {
					allowed.Add(1)
				} else {
					refused.Add(1)
				}
			}
		})
	}
	wg.Wait()
	require.EqualValues(t, 1000, allowed.Load())
	require.EqualValues(t, 1000, refused.Load())
	for _, c := range replicas {
		require.NoError(t, c.Close(ctx))
	}
	used, err := s.Usage(ctx, org, store.UsagePeriod(time.Now()))
	require.NoError(t, err)
	require.EqualValues(t, 1000, used)
}

// TestCounterReturnsUnusedOnClose: leased but unserved calls go back.
func TestCounterReturnsUnusedOnClose(t *testing.T) {
	s := storetest.New(t)
	org := seedPGOrg(t, s)
	ctx := context.Background()
	c := metering.NewCounter(s, metering.CounterConfig{Block: 50})
	for range 7 {
		d, err := c.Take(ctx, org, metering.TierPro)
		require.NoError(t, err)
		require.True(t, d.Allowed)
	}
	period := store.UsagePeriod(time.Now())
	used, err := s.Usage(ctx, org, period)
	require.NoError(t, err)
	require.EqualValues(t, 50, used, "a crash now would over-count by the unused block, never under-count")
	require.NoError(t, c.Close(ctx))
	used, err = s.Usage(ctx, org, period)
	require.NoError(t, err)
	require.EqualValues(t, 7, used)
}
