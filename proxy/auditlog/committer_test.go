package auditlog

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/auditchain"
)

// gateInserter records batch sizes; while gate is set, each insert waits
// for it to close (a commit in progress).
type gateInserter struct {
	mu      sync.Mutex
	sizes   []int
	gate    chan struct{}
	started chan struct{}
	err     error
}

func (g *gateInserter) InsertEvents(_ context.Context, evs []*auditchain.Event) error {
	g.mu.Lock()
	g.sizes = append(g.sizes, len(evs))
	gate := g.gate
	g.mu.Unlock()
	if g.started != nil {
		g.started <- struct{}{}
	}
	if gate != nil {
		<-gate
	}
	return g.err
}

func TestCommitterBatchGrowsWithLoad(t *testing.T) {
	tests := map[string]struct {
		waiting, maxBatch int
		wantSizes         []int
	}{
		// Everything that arrives during a commit forms the next batch.
		"next batch takes all": {waiting: 7, maxBatch: 64, wantSizes: []int{1, 7}},
		// ... up to the maximum size.
		"bounded": {waiting: 7, maxBatch: 4, wantSizes: []int{1, 4, 3}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			db := &gateInserter{gate: make(chan struct{}), started: make(chan struct{}, 16)}
			c := NewCommitter(db, 1, tc.maxBatch)
			defer c.Close()
			var wg sync.WaitGroup
			wg.Add(1)
			go func() { defer wg.Done(); require.NoError(t, c.Append(context.Background(), &auditchain.Event{})) }()
			<-db.started // the first batch is committing
			for range tc.waiting {
				wg.Add(1)
				go func() { defer wg.Done(); require.NoError(t, c.Append(context.Background(), &auditchain.Event{})) }()
			}
			require.Eventually(t, func() bool { return c.QueueDepth() == tc.waiting }, 10*time.Second, time.Millisecond)
			close(db.gate)
			wg.Wait()
			db.mu.Lock()
			defer db.mu.Unlock()
			require.Equal(t, tc.wantSizes, db.sizes)
		})
	}
}

// TestCommitterLoneEventAndErrors: a lone event commits without waiting
// for company, and a failed commit fails every request of its batch.
func TestCommitterLoneEventAndErrors(t *testing.T) {
	db := &gateInserter{}
	c := NewCommitter(db, 1, 512)
	done := make(chan error, 1)
	go func() { done <- c.Append(context.Background(), &auditchain.Event{}) }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("a lone event was not committed")
	}
	db.err = errors.New("database down")
	require.ErrorIs(t, c.Append(context.Background(), &auditchain.Event{}), db.err)
	c.Close()
	require.ErrorIs(t, c.Append(context.Background(), &auditchain.Event{}), ErrClosed)
}
