package webhooks

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestWorkerDelivers(t *testing.T) {
	url, got := verifyingReceiver(t, func(int64) int { return http.StatusOK })
	o := newFakeOutbox(delivery("d1", url))
	tw := newTestWorker(t, o, WorkerConfig{})

	n, err := tw.w.RunOnce(t.Context())
	require.NoError(t, err)
	require.Equal(t, 1, n)

	r := o.row("d1")
	require.Equal(t, "delivered", r.state)
	require.Len(t, r.results, 1)
	require.Equal(t, http.StatusOK, r.results[0].Status)
	seen := got()
	require.Len(t, seen, 1)
	p, h := seen[0].payload, seen[0].header
	require.Equal(t, Payload{ID: "evt_d1", Event: "policy.created", Attempt: 1, Timestamp: "2026-11-22T12:00:00Z",
		Data: json.RawMessage(`{"policy_id":"p1"}`)}, p)
	require.Equal(t, "evt_d1", h.Get(HeaderID))
	require.Equal(t, "2026-11-22T12:00:00Z", h.Get(HeaderTimestamp))
	require.Equal(t, "policy.created", h.Get(HeaderEvent))
	require.Equal(t, "d1", h.Get(HeaderDelivery))
	require.Equal(t, UserAgent, h.Get("User-Agent"))
	require.Equal(t, "application/json", h.Get("Content-Type"))

	n, err = tw.w.RunOnce(t.Context())
	require.NoError(t, err)
	require.Zero(t, n, "a delivered row was claimed again")
}

// advance moves the clock to the row's next attempt time.
func advance(t *testing.T, tw testWorker, o *fakeOutbox, id string) {
	t.Helper()
	r := o.row(id)
	if r.state == "pending" && r.next.After(tw.clock.Now()) {
		tw.clock.Set(r.next)
	}
}

func TestWorkerRetriesThenDelivers(t *testing.T) {
	// The receiver fails three times, then acknowledges.
	url, got := verifyingReceiver(t, func(n int64) int {
		if n <= 3 {
			return http.StatusInternalServerError
		}
		return http.StatusOK
	})
	o := newFakeOutbox(delivery("d1", url))
	tw := newTestWorker(t, o, WorkerConfig{})

	for range 10 {
		_, err := tw.w.RunOnce(t.Context())
		require.NoError(t, err)
		advance(t, tw, o, "d1")
	}
	r := o.row("d1")
	require.Equal(t, "delivered", r.state)
	require.Equal(t, 4, r.attempts)
	statuses := make([]int, len(r.results))
	for i, res := range r.results {
		statuses[i] = res.Status
	}
	require.Equal(t, []int{500, 500, 500, 200}, statuses)
	require.Equal(t, "unexpected status 500", r.results[0].Error)
	// RandN returns the maximum, so each delay is exactly the ceiling.
	require.Equal(t, []time.Time{t0.Add(10 * time.Second), t0.Add(30 * time.Second), t0.Add(70 * time.Second)}, r.nexts)

	seen := got()
	require.Len(t, seen, 4)
	for i, s := range seen {
		require.Equal(t, i+1, s.payload.Attempt)
		require.Equal(t, "evt_d1", s.payload.ID, "the event id is stable across attempts")
	}
}

func TestWorkerFailsAfterMaxAttempts(t *testing.T) {
	url, got := verifyingReceiver(t, func(int64) int { return http.StatusGone })
	o := newFakeOutbox(delivery("d1", url))
	var dead atomic.Uint64
	tw := newTestWorker(t, o, WorkerConfig{DeadLetters: &dead})

	n := DefaultPolicy.MaxAttempts()
	for range n + 6 {
		_, err := tw.w.RunOnce(t.Context())
		require.NoError(t, err)
		advance(t, tw, o, "d1")
	}
	r := o.row("d1")
	require.Equal(t, "failed", r.state)
	require.Len(t, r.results, n, "first attempt plus every retry")
	require.Len(t, got(), n)
	require.Len(t, r.nexts, n-1)
	for _, res := range r.results {
		require.Equal(t, http.StatusGone, res.Status)
	}
	require.EqualValues(t, 1, dead.Load(), "one dead letter, counted once")
}

func TestWorkerCrashMidDeliveryLeavesRowClaimable(t *testing.T) {
	var calls atomic.Int64
	arrived := make(chan struct{}, 1)
	release := make(chan struct{})
	srv, _ := receiver(t, func(w http.ResponseWriter, r *http.Request) {
		// Reading the body lets the server notice the client going away.
		_, _ = io.Copy(io.Discard, r.Body)
		if calls.Add(1) == 1 {
			// First attempt: the worker dies while the receiver is busy.
			arrived <- struct{}{}
			select {
			case <-r.Context().Done():
			case <-release:
			}
			return
		}
		w.WriteHeader(http.StatusOK)
	})
	t.Cleanup(func() { close(release) }) // runs before the server closes
	o := newFakeOutbox(delivery("d1", srv.URL))
	tw := newTestWorker(t, o, WorkerConfig{})

	ctx, kill := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = tw.w.RunOnce(ctx)
	}()
	<-arrived
	kill()
	<-done

	r := o.row("d1")
	require.Equal(t, "pending", r.state)
	require.Empty(t, r.results, "an abandoned attempt was recorded")

	// Another worker, same instant: the lease still holds the row.
	other := newTestWorker(t, o, WorkerConfig{})
	other.clock.Set(t0)
	n, err := other.w.RunOnce(t.Context())
	require.NoError(t, err)
	require.Zero(t, n, "a leased row was claimed twice")

	// After the lease expires the row is claimed and delivered.
	other.clock.Set(t0.Add(DefaultLease + time.Second))
	n, err = other.w.RunOnce(t.Context())
	require.NoError(t, err)
	require.Equal(t, 1, n)
	r = o.row("d1")
	require.Equal(t, "delivered", r.state)
	require.Equal(t, 2, r.attempts, "the cut-short attempt counts")
	require.Len(t, r.results, 1)
}

func TestWorkerFailsPermanently(t *testing.T) {
	url, got := verifyingReceiver(t, func(int64) int { return http.StatusOK })
	exhausted := delivery("exhausted", url)
	exhausted.Attempt = DefaultPolicy.MaxAttempts() // the next claim makes it 7
	badData := delivery("bad-data", url)
	badData.Data = json.RawMessage(`{broken`)
	o := newFakeOutbox(
		delivery("private", "http://10.0.0.1"),
		delivery("metadata", "http://169.254.169.254"),
		exhausted, badData,
	)
	tw := newTestWorker(t, o, WorkerConfig{})
	var dead atomic.Uint64
	tw.w.CountDeadLetters(&dead)
	n, err := tw.w.RunOnce(t.Context())
	require.NoError(t, err)
	require.Equal(t, 4, n)
	require.EqualValues(t, 4, dead.Load())
	for _, id := range []string{"private", "metadata", "exhausted", "bad-data"} {
		r := o.row(id)
		require.Equal(t, "failed", r.state, id)
		require.Len(t, r.results, 1, id)
		require.Zero(t, r.results[0].Status, id)
		require.NotContains(t, r.results[0].Error, "canary", id)
	}
	require.Contains(t, o.row("private").results[0].Error, "forbidden address")
	require.Empty(t, got(), "nothing may be sent")
}

func TestWorkerRunBoundsConcurrency(t *testing.T) {
	var inflight, peak atomic.Int64
	srv, _ := receiver(t, func(w http.ResponseWriter, _ *http.Request) {
		cur := inflight.Add(1)
		for {
			p := peak.Load()
			if cur <= p || peak.CompareAndSwap(p, cur) {
				break
			}
		}
		time.Sleep(10 * time.Millisecond) // widen the overlap window; nothing asserts on time
		inflight.Add(-1)
		w.WriteHeader(http.StatusOK)
	})
	var ds []Delivery
	for _, id := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		ds = append(ds, delivery(id, srv.URL))
	}
	o := newFakeOutbox(ds...)
	tw := newTestWorker(t, o, WorkerConfig{PollInterval: 10 * time.Millisecond, BatchSize: 3, Concurrency: 2})

	ctx, stop := context.WithCancel(t.Context())
	stopped := make(chan struct{})
	go func() { defer close(stopped); tw.w.Run(ctx) }()
	require.Eventually(t, func() bool {
		for _, d := range ds {
			if o.row(d.ID).state != "delivered" {
				return false
			}
		}
		return true
	}, 10*time.Second, 5*time.Millisecond)
	stop()
	<-stopped
	require.LessOrEqual(t, peak.Load(), int64(2))
}

func TestNewWorkerConfig(t *testing.T) {
	_, err := NewWorker(WorkerConfig{})
	require.ErrorIs(t, err, ErrInvalidConfig)
	_, err = NewWorker(WorkerConfig{Outbox: newFakeOutbox(), Policy: Policy{MaxRetries: 1, Base: time.Hour, Cap: time.Second}})
	require.ErrorIs(t, err, ErrInvalidConfig)
	w, err := NewWorker(WorkerConfig{Outbox: newFakeOutbox()})
	require.NoError(t, err)
	require.Equal(t, DefaultPolicy, w.cfg.Policy)
	require.Equal(t, DefaultPollInterval, w.cfg.PollInterval)
	require.False(t, w.cfg.Options.AllowLoopback)
}
