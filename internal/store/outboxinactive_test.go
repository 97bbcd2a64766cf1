package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/outbox"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

// TestOutboxSkipsInactiveWebhooks: a delivery that was already pending
// when its webhook was switched off is never sent: it is marked failed
// with a reason when it comes due (and can be replayed once the webhook is
// active again), and it does not hold back the deliveries of active
// webhooks. A deleted webhook's deliveries go with it.
func TestOutboxSkipsInactiveWebhooks(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	hook := func(name string) store.Webhook {
		t.Helper()
		w, err := s.CreateWebhook(ctx, store.Webhook{OrgID: org, ID: newID(), URL: "https://example.com/" + name,
			Events: []string{name}, IsActive: true, Secret: []byte("whsec_" + name), CreatedBy: newID()}, event(org, "webhook.create"))
		require.NoError(t, err)
		return w
	}
	setActive := func(id string, active bool) {
		t.Helper()
		_, err := s.UpdateWebhook(ctx, org, id, func(w *store.Webhook) error { w.IsActive = active; return nil },
			event(org, "webhook.update"))
		require.NoError(t, err)
	}
	deliveries := func(id string) []store.DeliveryRecord {
		t.Helper()
		recs, err := s.RecentDeliveries(ctx, org, id, 10)
		require.NoError(t, err)
		return recs
	}
	ob := s.Outbox()
	paused, live, gone := hook("policy.created"), hook("policy.deleted"), hook("policy.updated")

	// Queued while every webhook was active, the paused one's first.
	emit(t, s, org, "policy.created")
	emit(t, s, org, "policy.deleted")
	emit(t, s, org, "policy.updated")
	setActive(paused.ID, false)
	require.NoError(t, s.DeleteWebhook(ctx, org, gone.ID, event(org, "webhook.delete")))

	now := time.Now()
	// limit 1: the paused webhook's older delivery must not take the slot.
	ds, err := ob.Claim(ctx, 1, now)
	require.NoError(t, err)
	require.Len(t, ds, 1)
	require.Equal(t, live.ID, ds[0].WebhookID)
	require.NoError(t, ob.Complete(ctx, ds[0].ID, outbox.Result{Status: 200}))
	ds, err = ob.Claim(ctx, 10, now.Add(time.Hour))
	require.NoError(t, err)
	require.Empty(t, ds, "nothing of the paused or the deleted webhook is sent")

	recs := deliveries(paused.ID)
	require.Len(t, recs, 1)
	require.Equal(t, "failed", recs[0].Status)
	require.Zero(t, recs[0].Attempt, "no attempt was made")
	require.NotNil(t, recs[0].LastError)
	require.Equal(t, store.InactiveWebhookError, *recs[0].LastError)
	require.Empty(t, deliveries(gone.ID))

	t.Run("claimed before the switch-off: its retry is not sent", func(t *testing.T) {
		emit(t, s, org, "policy.deleted")
		ds, err := ob.Claim(ctx, 10, time.Now())
		require.NoError(t, err)
		require.Len(t, ds, 1)
		setActive(live.ID, false) // while the attempt is in flight
		next := time.Now().Add(time.Minute)
		require.NoError(t, ob.Reschedule(ctx, ds[0].ID, outbox.Result{Status: 503, Error: "status 503"}, next))
		got, err := ob.Claim(ctx, 10, next)
		require.NoError(t, err)
		require.Empty(t, got)
		recs := deliveries(live.ID)
		require.Equal(t, "failed", recs[0].Status)
		require.Equal(t, store.InactiveWebhookError, *recs[0].LastError)
		setActive(live.ID, true)
	})

	t.Run("replayed once active again, it is sent", func(t *testing.T) {
		setActive(paused.ID, true)
		_, err := s.ReplayDelivery(ctx, org, paused.ID, recs[0].ID, event(org, "webhook.delivery.replay"))
		require.NoError(t, err)
		ds, err := ob.Claim(ctx, 10, time.Now().Add(time.Second))
		require.NoError(t, err)
		require.Len(t, ds, 1)
		require.Equal(t, paused.ID, ds[0].WebhookID)
		require.Equal(t, 1, ds[0].Attempt)
	})
}
