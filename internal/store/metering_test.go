package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

func TestUsagePeriod(t *testing.T) {
	ts := time.Date(2026, 1, 31, 23, 30, 0, 0, time.FixedZone("x", -2*3600))
	require.Equal(t, "2026-02", store.UsagePeriod(ts), "the period is the UTC month")
}

func TestLeaseUsage(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	const period = "2026-11"

	tests := []struct {
		name        string
		n, limit    int64
		wantUsed    int64
		wantGranted bool
	}{
		{"first lease creates the row", 40, 100, 40, true},
		{"second lease adds", 50, 100, 90, true},
		{"lease past the limit is refused whole", 20, 100, 90, false},
		{"lease up to the limit exactly", 10, 100, 100, true},
		{"at the limit nothing more", 1, 100, 100, false},
	}
	for _, tc := range tests { // ordered: each step builds on the previous
		used, granted, err := s.LeaseUsage(ctx, org, period, tc.n, tc.limit)
		require.NoError(t, err, tc.name)
		require.Equal(t, tc.wantUsed, used, tc.name)
		require.Equal(t, tc.wantGranted, granted, tc.name)
	}

	require.NoError(t, s.ReturnUsage(ctx, org, period, 30))
	used, err := s.Usage(ctx, org, period)
	require.NoError(t, err)
	require.EqualValues(t, 70, used)
	require.NoError(t, s.ReturnUsage(ctx, org, period, 1000), "returning too much floors at zero")
	used, err = s.Usage(ctx, org, period)
	require.NoError(t, err)
	require.Zero(t, used)

	// A first lease bigger than the limit inserts nothing.
	used, granted, err := s.LeaseUsage(ctx, org, "2026-12", 5, 3)
	require.NoError(t, err)
	require.False(t, granted)
	require.Zero(t, used)

	_, _, err = s.LeaseUsage(ctx, newID(), period, 1, 10)
	require.ErrorIs(t, err, store.ErrNotFound)
	_, _, err = s.LeaseUsage(ctx, org, period, 0, 10)
	require.ErrorIs(t, err, store.ErrLimit)
}

func TestLeaseUsageConcurrentNeverOvershoots(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var granted int64
	for range 20 {
		wg.Go(func() {
			for range 10 {
				_, ok, err := s.LeaseUsage(ctx, org, "2026-11", 7, 500)
				assert.NoError(t, err)
				if ok {
					mu.Lock()
					granted += 7
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	used, err := s.Usage(ctx, org, "2026-11")
	require.NoError(t, err)
	require.Equal(t, granted, used, "every granted unit is in the table, no other")
	require.LessOrEqual(t, used, int64(500))
	require.Greater(t, used, int64(500-7), "leases stop only when the next would pass the limit")
}

func TestUsageHistoryAndBilling(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	for _, p := range []string{"2026-09", "2026-11", "2026-10"} {
		_, _, err := s.LeaseUsage(ctx, org, p, 5, 100)
		require.NoError(t, err)
	}
	h, err := s.UsageHistory(ctx, org, 2)
	require.NoError(t, err)
	require.Equal(t, []store.PeriodUsage{{Period: "2026-11", Used: 5}, {Period: "2026-10", Used: 5}}, h)

	b, err := s.OrgBilling(ctx, org)
	require.NoError(t, err)
	require.Equal(t, store.OrgBilling{Tier: "free"}, b)
	require.NoError(t, s.SetOrgTier(ctx, org, "pro"))
	_, err = s.AddCredit(ctx, org, 250)
	require.NoError(t, err)
	b, err = s.OrgBilling(ctx, org)
	require.NoError(t, err)
	require.Equal(t, store.OrgBilling{Tier: "pro", CreditCents: 250, HasCredits: true}, b)

	_, err = s.OrgBilling(ctx, newID())
	require.ErrorIs(t, err, store.ErrNotFound)
	require.ErrorIs(t, s.SetOrgTier(ctx, newID(), "pro"), store.ErrNotFound)
}

func TestCredits(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)

	bal, ok, err := s.SpendCredit(ctx, org, 1)
	require.NoError(t, err)
	require.False(t, ok, "no credit account")
	require.Zero(t, bal)

	bal, err = s.AddCredit(ctx, org, 100)
	require.NoError(t, err)
	require.EqualValues(t, 100, bal)

	// 150 concurrent spends of 1 cent: exactly 100 succeed, balance 0.
	var wg sync.WaitGroup
	var mu sync.Mutex
	spent := 0
	for range 15 {
		wg.Go(func() {
			for range 10 {
				_, ok, err := s.SpendCredit(ctx, org, 1)
				assert.NoError(t, err)
				if ok {
					mu.Lock()
					spent++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	require.Equal(t, 100, spent)
	bal, ok, err = s.SpendCredit(ctx, org, 1)
	require.NoError(t, err)
	require.False(t, ok)
	require.Zero(t, bal)

	_, err = s.AddCredit(ctx, org, 0)
	require.ErrorIs(t, err, store.ErrLimit)
	_, _, err = s.SpendCredit(ctx, org, -5)
	require.ErrorIs(t, err, store.ErrLimit)
	_, err = s.AddCredit(ctx, newID(), 5)
	require.ErrorIs(t, err, store.ErrNotFound)
}

func TestPaymentNonces(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	const nonce = "0x" + "ab" + "00000000000000000000000000000000000000000000000000000000000000"

	require.NoError(t, s.UsePaymentNonce(ctx, nonce, org, "0xpayer"))
	require.ErrorIs(t, s.UsePaymentNonce(ctx, nonce, org, "0xpayer"), store.ErrReused)
	require.ErrorIs(t, s.UsePaymentNonce(ctx, nonce, "", "0xother"), store.ErrReused,
		"a nonce is spent for everyone, not per organization")
	require.NoError(t, s.UsePaymentNonce(ctx, nonce+"1", "", "0xpayer"), "anonymous payments are recorded too")

	n, err := s.PurgePaymentNonces(ctx, time.Hour)
	require.NoError(t, err)
	require.Zero(t, n, "recent nonces stay")
	// The age is judged on the database's now(): a nonce recorded two hours
	// ago by the database's clock goes, whatever this process's clock says.
	_, err = s.Pool().Exec(ctx, `UPDATE payment_nonces SET created_at = now() - interval '2 hours' WHERE nonce = $1`, nonce)
	require.NoError(t, err)
	n, err = s.PurgePaymentNonces(ctx, time.Hour)
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "only the old nonce goes")
	n, err = s.PurgePaymentNonces(ctx, 0)
	require.NoError(t, err)
	require.EqualValues(t, 1, n)
}
