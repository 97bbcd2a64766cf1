package txwatch

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/internal/store"
)

func TestLater(t *testing.T) {
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	w := New(nil, nil, Config{Interval: 5 * time.Second, MaxDelay: 5 * time.Minute}, nil)
	w.now = func() time.Time { return now }
	tx := func(age, left time.Duration) store.WatchedTx {
		return store.WatchedTx{AgentTx: store.AgentTx{CreatedAt: now.Add(-age)}, WatchUntil: now.Add(left)}
	}
	tests := map[string]struct {
		tx   store.WatchedTx
		want time.Duration // from now; -1: no more checks
	}{
		"young: the interval":     {tx(2*time.Second, time.Hour), 5 * time.Second},
		"older: half its age":     {tx(2*time.Minute, time.Hour), time.Minute},
		"old: capped":             {tx(3*time.Hour, time.Hour), 5 * time.Minute},
		"past its watch: no more": {tx(25*time.Hour, -time.Second), -1},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got := w.later(tc.tx)
			if tc.want < 0 {
				require.True(t, got.IsZero())
				return
			}
			require.Equal(t, now.Add(tc.want), got)
		})
	}
}
