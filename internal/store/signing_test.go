package store_test

import (
	"context"
	"math/big"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/internal/store/storetest"
)

func TestReserveTxNeverOvershoots(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	a := seedAgent(t, s, org)
	day := time.Date(2026, 11, 22, 23, 0, 0, 0, time.UTC)
	lim := store.TxLimits{MaxPerDay: 5, MaxPerDayChain: -1}

	var granted atomic.Int64
	var wg sync.WaitGroup
	for range 20 {
		wg.Go(func() {
			_, denied, err := s.ReserveTx(ctx, org, a.ID, "base", day, big.NewInt(1), lim)
			if err == nil && denied == "" {
				granted.Add(1)
			}
		})
	}
	wg.Wait()
	require.EqualValues(t, 5, granted.Load())

	// A release gives one back; the next UTC day starts from zero.
	require.NoError(t, s.ReleaseTx(ctx, org, a.ID, "base", day, big.NewInt(1)))
	before, denied, err := s.ReserveTx(ctx, org, a.ID, "base", day, big.NewInt(1), lim)
	require.NoError(t, err)
	require.Empty(t, denied)
	require.EqualValues(t, 4, before.CountToday)
	require.EqualValues(t, "4", before.SpentTodayChain.String())
	_, denied, err = s.ReserveTx(ctx, org, a.ID, "base", day.Add(2*time.Hour), big.NewInt(1), lim)
	require.NoError(t, err)
	require.Empty(t, denied)

	count, spent, err := s.AgentTxToday(ctx, org, a.ID, day)
	require.NoError(t, err)
	require.EqualValues(t, 5, count)
	require.Equal(t, map[string]string{"base": "5"}, spent)
}

func TestReserveTxLimits(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	a := seedAgent(t, s, org)
	day := time.Now()
	none := store.TxLimits{MaxPerDay: -1, MaxPerDayChain: -1}

	_, denied, err := s.ReserveTx(ctx, org, a.ID, "ethereum", day, big.NewInt(70), store.TxLimits{MaxPerDay: -1, MaxPerDayChain: -1, DailyValue: big.NewInt(100)})
	require.NoError(t, err)
	require.Empty(t, denied)
	_, denied, err = s.ReserveTx(ctx, org, a.ID, "ethereum", day, big.NewInt(31), store.TxLimits{MaxPerDay: -1, MaxPerDayChain: -1, DailyValue: big.NewInt(100)})
	require.NoError(t, err)
	require.Equal(t, store.DeniedDailyValue, denied)
	// Spend on another chain is counted apart.
	_, denied, err = s.ReserveTx(ctx, org, a.ID, "base", day, big.NewInt(100), store.TxLimits{MaxPerDay: -1, MaxPerDayChain: -1, DailyValue: big.NewInt(100)})
	require.NoError(t, err)
	require.Empty(t, denied)
	_, denied, err = s.ReserveTx(ctx, org, a.ID, "base", day, big.NewInt(0), store.TxLimits{MaxPerDay: -1, MaxPerDayChain: 1})
	require.NoError(t, err)
	require.Equal(t, store.DeniedMaxPerDayChain, denied)
	before, denied, err := s.ReserveTx(ctx, org, a.ID, "base", day, big.NewInt(0), none)
	require.NoError(t, err)
	require.Empty(t, denied)
	require.EqualValues(t, 2, before.CountToday)
}

func TestNonces(t *testing.T) {
	s := storetest.New(t)
	ctx := context.Background()
	org, _ := seedOrg(t, s)
	const addr = "0x00000000000000000000000000000000000000aa"

	n, err := s.ReserveNonce(ctx, org, 1337, addr, 3)
	require.NoError(t, err)
	require.EqualValues(t, 3, n, "the chain's pending nonce starts the sequence")
	seen := map[uint64]bool{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			n, err := s.ReserveNonce(ctx, org, 1337, addr, 3)
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if seen[n] {
				t.Errorf("nonce %d handed out twice", n)
			}
			seen[n] = true
		})
	}
	wg.Wait()
	require.Len(t, seen, 16) // 4..19

	// The newest nonce released rolls back; an older one is reused first.
	require.NoError(t, s.ReleaseNonce(ctx, org, 1337, addr, 19))
	require.NoError(t, s.ReleaseNonce(ctx, org, 1337, addr, 7))
	n, err = s.ReserveNonce(ctx, org, 1337, addr, 3)
	require.NoError(t, err)
	require.EqualValues(t, 7, n)
	n, err = s.ReserveNonce(ctx, org, 1337, addr, 3)
	require.NoError(t, err)
	require.EqualValues(t, 19, n)
	// The chain moved past what was stored (transactions sent elsewhere).
	n, err = s.ReserveNonce(ctx, org, 1337, addr, 40)
	require.NoError(t, err)
	require.EqualValues(t, 40, n)
}
