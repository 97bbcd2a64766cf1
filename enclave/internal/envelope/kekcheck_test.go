package envelope

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

// TestCheckGroupNeverAnswersWithAnEarlierCheck: a caller that arrives while
// a check is running is answered by a check begun after it arrived, so a
// KEK destroyed meanwhile refuses it.
func TestCheckGroupNeverAnswersWithAnEarlierCheck(t *testing.T) {
	var g checkGroup
	ctx := context.Background()
	release := make(chan struct{})
	var destroyed atomic.Bool
	var calls atomic.Int64
	fn := func() error {
		n := calls.Add(1)
		if n == 1 {
			<-release // the first check read "exists" and is slow to return
			return nil
		}
		if destroyed.Load() {
			return keyvault.ErrKeyNotFound
		}
		return nil
	}
	first := make(chan error, 1)
	go func() { first <- g.check(ctx, testKEK, fn) }()
	require.Eventually(t, func() bool { return calls.Load() == 1 }, 5*time.Second, time.Millisecond)

	destroyed.Store(true)
	later := make(chan error, 3)
	for range 3 {
		go func() { later <- g.check(ctx, testKEK, fn) }()
	}
	require.Eventually(t, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.m[testKEK] != nil && g.m[testKEK].next != nil
	}, 5*time.Second, time.Millisecond)
	time.Sleep(10 * time.Millisecond) // let the other callers join the next check
	close(release)
	require.NoError(t, <-first, "the first caller arrived before the destruction")
	for range 3 {
		require.ErrorIs(t, <-later, keyvault.ErrKeyNotFound)
	}
	require.LessOrEqual(t, calls.Load(), int64(4))
	g.mu.Lock()
	require.Empty(t, g.m, "nothing left behind")
	g.mu.Unlock()
}

// TestCheckGroupCoalesces: many concurrent callers cost fewer checks than
// callers, and each gets an answer.
func TestCheckGroupCoalesces(t *testing.T) {
	var g checkGroup
	var calls atomic.Int64
	fn := func() error { calls.Add(1); time.Sleep(2 * time.Millisecond); return nil }
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() { require.NoError(t, g.check(context.Background(), testKEK, fn)) })
	}
	wg.Wait()
	require.Less(t, calls.Load(), int64(64))
}

// TestCheckGroupLeaderCancelled: a joiner whose leader's context was
// cancelled asks the key store itself.
func TestCheckGroupLeaderCancelled(t *testing.T) {
	var g checkGroup
	started, release := make(chan struct{}), make(chan struct{})
	running := make(chan error, 1)
	go func() {
		running <- g.check(context.Background(), testKEK, func() error { close(started); <-release; return nil })
	}()
	<-started
	leaderCtx, cancel := context.WithCancel(context.Background())
	leader := make(chan error, 1)
	go func() {
		leader <- g.check(leaderCtx, testKEK, func() error { return leaderCtx.Err() })
	}()
	require.Eventually(t, func() bool {
		g.mu.Lock()
		defer g.mu.Unlock()
		return g.m[testKEK].next != nil
	}, 5*time.Second, time.Millisecond)
	joiner := make(chan error, 1)
	go func() { joiner <- g.check(context.Background(), testKEK, func() error { return nil }) }()
	time.Sleep(10 * time.Millisecond)
	cancel()
	close(release)
	require.NoError(t, <-running)
	require.ErrorIs(t, <-leader, context.Canceled)
	require.NoError(t, <-joiner)
}
