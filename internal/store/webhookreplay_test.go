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

// deadLetters emits n events to hook's organization and fails every
// delivery they make, as a worker would once the retry window is spent.
func deadLetters(t *testing.T, s *store.Store, org string, n int) []outbox.Delivery {
	t.Helper()
	ctx := context.Background()
	for range n {
		emit(t, s, org, "policy.created")
	}
	ds, err := s.Outbox().Claim(ctx, 100, time.Now().Add(time.Minute))
	require.NoError(t, err)
	require.Len(t, ds, n)
	for _, d := range ds {
		require.NoError(t, s.Outbox().Fail(ctx, d.ID, outbox.Result{Status: 503, Error: "unexpected status 503"}))
	}
	return ds
}

func TestReplayDeliveries(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	other, _ := seedOrg(t, s)
	newHook := func(org string, active bool) store.Webhook {
		h, err := s.CreateWebhook(ctx, store.Webhook{OrgID: org, ID: newID(), URL: "https://example.com/h",
			Events: []string{"policy.created"}, IsActive: active, Secret: []byte("whsec_x"), CreatedBy: newID()}, nil)
		require.NoError(t, err)
		return h
	}
	hook := newHook(org, true)
	ds := deadLetters(t, s, org, 3)

	t.Run("list: newest first, by status, paged", func(t *testing.T) {
		all, err := s.ListDeliveries(ctx, org, hook.ID, "", nil, 10)
		require.NoError(t, err)
		require.Len(t, all, 3)
		failed, err := s.ListDeliveries(ctx, org, hook.ID, "failed", nil, 10)
		require.NoError(t, err)
		require.Len(t, failed, 3)
		require.Equal(t, 503, *failed[0].LastStatus)
		none, err := s.ListDeliveries(ctx, org, hook.ID, "delivered", nil, 10)
		require.NoError(t, err)
		require.Empty(t, none)
		var paged []string
		var after *store.DeliveryCursor
		for {
			page, err := s.ListDeliveries(ctx, org, hook.ID, "", after, 1)
			require.NoError(t, err)
			if len(page) == 0 {
				break
			}
			paged = append(paged, page[0].ID)
			after = &store.DeliveryCursor{CreatedAt: page[0].CreatedAt, ID: page[0].ID}
		}
		require.Equal(t, []string{all[0].ID, all[1].ID, all[2].ID}, paged)
		for i := 1; i < len(all); i++ {
			require.False(t, all[i].CreatedAt.After(all[i-1].CreatedAt), "newest first")
		}
		_, err = s.ListDeliveries(ctx, other, hook.ID, "", nil, 10)
		require.ErrorIs(t, err, store.ErrNotFound, "another organization's webhook is missing")
	})

	t.Run("refusals", func(t *testing.T) {
		tests := map[string]struct {
			org, hook, delivery string
			want                error
		}{
			"another organization": {other, hook.ID, ds[0].ID, store.ErrNotFound},
			"missing webhook":      {org, newID(), ds[0].ID, store.ErrNotFound},
			"missing delivery":     {org, hook.ID, newID(), store.ErrNotFound},
		}
		for name, tc := range tests {
			t.Run(name, func(t *testing.T) {
				_, err := s.ReplayDelivery(ctx, tc.org, tc.hook, tc.delivery, event(tc.org, "webhook.delivery.replayed"))
				require.ErrorIs(t, err, tc.want)
				if tc.hook == hook.ID && tc.org == org {
					return // the range replay has no delivery id
				}
				_, err = s.ReplayFailedDeliveries(ctx, tc.org, tc.hook, time.Now().Add(-time.Hour), time.Now().Add(time.Hour), 10, nil)
				require.ErrorIs(t, err, tc.want)
			})
		}
	})

	t.Run("one delivery: new attempt series, same event", func(t *testing.T) {
		d, err := s.ReplayDelivery(ctx, org, hook.ID, ds[0].ID, event(org, "webhook.delivery.replayed"))
		require.NoError(t, err)
		require.Equal(t, "pending", d.Status)
		require.Zero(t, d.Attempt)
		require.Equal(t, 1, d.Replays)
		require.NotNil(t, d.ReplayedAt)
		require.Equal(t, ds[0].EventID, d.EventID)
		_, err = s.ReplayDelivery(ctx, org, hook.ID, ds[0].ID, nil)
		require.ErrorIs(t, err, store.ErrDeliveryQueued, "a queued delivery is not replayed twice")
		got, err := s.Outbox().Claim(ctx, 10, time.Now().Add(time.Minute))
		require.NoError(t, err)
		require.Len(t, got, 1)
		require.Equal(t, 1, got[0].Attempt)
		require.Equal(t, ds[0].EventID, got[0].EventID)
		require.Equal(t, ds[0].Data, got[0].Data)
		require.NoError(t, s.Outbox().Complete(ctx, got[0].ID, outbox.Result{Status: 200}))
	})

	t.Run("range: bounded, says whether more remain", func(t *testing.T) {
		from, to := time.Now().Add(-time.Hour), time.Now().Add(time.Hour)
		res, err := s.ReplayFailedDeliveries(ctx, org, hook.ID, from, to, 1, event(org, "webhook.deliveries.replayed"))
		require.NoError(t, err)
		require.Equal(t, store.ReplayResult{Queued: 1, More: true}, res)
		res, err = s.ReplayFailedDeliveries(ctx, org, hook.ID, from, to, 1, nil)
		require.NoError(t, err)
		require.Equal(t, store.ReplayResult{Queued: 1, More: false}, res)
		res, err = s.ReplayFailedDeliveries(ctx, org, hook.ID, from, to, 1, nil)
		require.NoError(t, err)
		require.Equal(t, store.ReplayResult{}, res, "delivered and queued deliveries are not replayed by range")
		res, err = s.ReplayFailedDeliveries(ctx, org, hook.ID, to, to.Add(time.Hour), 10, nil)
		require.NoError(t, err)
		require.Zero(t, res.Queued, "outside the range")
	})

	t.Run("inactive webhook", func(t *testing.T) {
		off := newHook(org, false)
		_, err := s.ReplayFailedDeliveries(ctx, org, off.ID, time.Now().Add(-time.Hour), time.Now(), 10, nil)
		require.ErrorIs(t, err, store.ErrWebhookInactive)
		require.ErrorIs(t, err, store.ErrConflict)
	})
}
