package store_test

import (
	"context"
	"math/big"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

func TestReserveTxFee(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	a := seedAgent(t, s, org)
	day := time.Date(2026, 11, 24, 12, 0, 0, 0, time.UTC)
	none := store.TxLimits{MaxPerDay: -1, MaxPerDayChain: -1}

	steps := []struct {
		name      string
		chain     string
		value     int64
		fee       int64
		release   bool
		wantFees  string // fees before the step (reservations only)
		wantSpent string
	}{
		{name: "first of the day", chain: "base", value: 5, fee: 100, wantFees: "0", wantSpent: "0"},
		{name: "second sees the first fee", chain: "base", value: 0, fee: 250, wantFees: "100", wantSpent: "5"},
		{name: "another chain starts at zero", chain: "ethereum", value: 1, fee: 7, wantFees: "0", wantSpent: "0"},
		{name: "release gives the fee back", chain: "base", value: 0, fee: 250, release: true},
		{name: "after the release", chain: "base", value: 0, fee: 1, wantFees: "100", wantSpent: "5"},
	}
	for _, st := range steps {
		if st.release {
			require.NoError(t, s.ReleaseTxFee(ctx, org, a.ID, st.chain, day, big.NewInt(st.value), big.NewInt(st.fee)), st.name)
			continue
		}
		before, denied, err := s.ReserveTxFee(ctx, org, a.ID, st.chain, day, big.NewInt(st.value), big.NewInt(st.fee), none)
		require.NoError(t, err, st.name)
		require.Empty(t, denied, st.name)
		require.Equal(t, st.wantFees, before.FeesTodayChain.String(), st.name)
		require.Equal(t, st.wantSpent, before.SpentTodayChain.String(), st.name)
	}

	// A refused reservation counts no fee.
	_, denied, err := s.ReserveTxFee(ctx, org, a.ID, "base", day, big.NewInt(1), big.NewInt(1000),
		store.TxLimits{MaxPerDay: -1, MaxPerDayChain: -1, DailyValue: big.NewInt(5)})
	require.NoError(t, err)
	require.Equal(t, store.DeniedDailyValue, denied)
	before, _, err := s.ReserveTx(ctx, org, a.ID, "base", day, big.NewInt(0), none)
	require.NoError(t, err)
	require.Equal(t, "101", before.FeesTodayChain.String(), "ReserveTx counts no fee and the refusal none either")

	// A fee budget refuses what would go over it, and counts nothing then.
	budget := store.TxLimits{MaxPerDay: -1, MaxPerDayChain: -1, FeeBudget: big.NewInt(110)}
	_, denied, err = s.ReserveTxFee(ctx, org, a.ID, "base", day, big.NewInt(0), big.NewInt(10), budget)
	require.NoError(t, err)
	require.Equal(t, store.DeniedFeeBudget, denied, "101 + 10 > 110")
	before, denied, err = s.ReserveTxFee(ctx, org, a.ID, "base", day, big.NewInt(0), big.NewInt(9), budget)
	require.NoError(t, err)
	require.Empty(t, denied, "101 + 9 fits 110")
	require.Equal(t, "101", before.FeesTodayChain.String())
	_, denied, err = s.ReserveTxFee(ctx, org, a.ID, "ethereum", day, big.NewInt(0), big.NewInt(111), budget)
	require.NoError(t, err)
	require.Equal(t, store.DeniedFeeBudget, denied, "a first fee over the budget")

	// A release never takes a counter below zero.
	require.NoError(t, s.ReleaseTxFee(ctx, org, a.ID, "ethereum", day, big.NewInt(0), big.NewInt(1_000_000)))
	before, _, err = s.ReserveTxFee(ctx, org, a.ID, "ethereum", day, big.NewInt(0), big.NewInt(0), none)
	require.NoError(t, err)
	require.Equal(t, "0", before.FeesTodayChain.String())

	// Negative or missing amounts are refused.
	_, _, err = s.ReserveTxFee(ctx, org, a.ID, "base", day, big.NewInt(0), big.NewInt(-1), none)
	require.Error(t, err)
	_, _, err = s.ReserveTxFee(ctx, org, a.ID, "base", day, nil, big.NewInt(0), none)
	require.Error(t, err)
	require.Error(t, s.ReleaseTxFee(ctx, org, a.ID, "base", day, big.NewInt(0), nil))
}

// Concurrent reservations each see every fee reserved before them: the
// largest "before" plus its own fee is the total.
func TestReserveTxFeeConcurrent(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	a := seedAgent(t, s, org)
	day := time.Now()
	none := store.TxLimits{MaxPerDay: -1, MaxPerDayChain: -1}

	var mu sync.Mutex
	seen := map[string]bool{}
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			before, denied, err := s.ReserveTxFee(ctx, org, a.ID, "base", day, big.NewInt(0), big.NewInt(10), none)
			if err != nil || denied != "" {
				t.Error(err, denied)
				return
			}
			mu.Lock()
			seen[before.FeesTodayChain.String()] = true
			mu.Unlock()
		})
	}
	wg.Wait()
	require.Len(t, seen, 16, "every reservation saw a different total before it")
	for i := range 16 {
		require.True(t, seen[big.NewInt(int64(i*10)).String()])
	}
}
