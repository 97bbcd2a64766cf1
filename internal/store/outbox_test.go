package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/outbox"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// emit records one event in its own transaction, as a change would.
func emit(t *testing.T, s *store.Store, org, name string) {
	t.Helper()
	ctx := context.Background()
	tx, err := s.Pool().Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = store.EmitEvent(ctx, tx, org, name, map[string]string{"k": "v"})
	require.NoError(t, err)
	require.NoError(t, tx.Commit(ctx))
}

func TestOutbox(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	hook, err := s.CreateWebhook(ctx, store.Webhook{OrgID: org, ID: newID(), URL: "https://example.com/h",
		Events: []string{"policy.created"}, IsActive: true, Secret: []byte("whsec_x"), CreatedBy: newID()}, event(org, "webhook.create"))
	require.NoError(t, err)
	_, err = s.CreateWebhook(ctx, store.Webhook{OrgID: org, ID: newID(), URL: "https://example.com/off",
		Events: []string{"policy.created"}, IsActive: false, Secret: []byte("whsec_y"), CreatedBy: newID()}, event(org, "webhook.create"))
	require.NoError(t, err)
	ob := s.Outbox()

	t.Run("rolled back change emits nothing", func(t *testing.T) {
		tx, err := s.Pool().Begin(ctx)
		require.NoError(t, err)
		_, err = store.EmitEvent(ctx, tx, org, "policy.created", nil)
		require.NoError(t, err)
		require.NoError(t, tx.Rollback(ctx))
		ds, err := ob.Claim(ctx, 10, time.Now())
		require.NoError(t, err)
		require.Empty(t, ds)
	})

	emit(t, s, org, "policy.created")
	emit(t, s, org, "policy.deleted") // not subscribed
	t.Run("one delivery per active subscribed webhook, claimed once", func(t *testing.T) {
		now := time.Now()
		var mu sync.Mutex
		var got []outbox.Delivery
		var wg sync.WaitGroup
		for range 5 {
			wg.Go(func() {
				ds, err := ob.Claim(ctx, 10, now)
				require.NoError(t, err)
				mu.Lock()
				got = append(got, ds...)
				mu.Unlock()
			})
		}
		wg.Wait()
		require.Len(t, got, 1)
		d := got[0]
		require.Equal(t, hook.ID, d.WebhookID)
		require.Equal(t, "policy.created", d.Event)
		require.Equal(t, 1, d.Attempt)
		require.Equal(t, []byte("whsec_x"), d.Secret)
		require.JSONEq(t, `{"k":"v"}`, string(d.Data))

		// Leased: not claimable again until the lease expires.
		ds, err := ob.Claim(ctx, 10, now.Add(time.Second))
		require.NoError(t, err)
		require.Empty(t, ds)
		// A worker killed mid-delivery: after the lease another claim gets it.
		ds, err = ob.Claim(ctx, 10, now.Add(outbox.DefaultLease+time.Second))
		require.NoError(t, err)
		require.Len(t, ds, 1)
		require.Equal(t, 2, ds[0].Attempt)

		next := now.Add(outbox.DefaultLease + time.Minute)
		require.NoError(t, ob.Reschedule(ctx, d.ID, outbox.Result{Status: 500, Error: "status 500"}, next))
		ds, err = ob.Claim(ctx, 10, next.Add(-time.Second))
		require.NoError(t, err)
		require.Empty(t, ds, "not due before next")
		ds, err = ob.Claim(ctx, 10, next)
		require.NoError(t, err)
		require.Len(t, ds, 1)
		require.Equal(t, 3, ds[0].Attempt)
		require.NoError(t, ob.Complete(ctx, d.ID, outbox.Result{Status: 200}))
		ds, err = ob.Claim(ctx, 10, next.Add(time.Hour))
		require.NoError(t, err)
		require.Empty(t, ds)

		recs, err := s.RecentDeliveries(ctx, org, hook.ID, 10)
		require.NoError(t, err)
		require.Len(t, recs, 1)
		require.Equal(t, "delivered", recs[0].Status)
		require.Equal(t, 3, recs[0].Attempt)
		require.Contains(t, string(recs[0].History), `"status": 500`)
	})

	t.Run("unknown id", func(t *testing.T) {
		require.ErrorIs(t, ob.Fail(ctx, newID(), outbox.Result{}), store.ErrNotFound)
	})
}
