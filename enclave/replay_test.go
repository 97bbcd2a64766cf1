package enclave

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
)

func nonceOf(i int) [wire.NonceSize]byte {
	var n [wire.NonceSize]byte
	n[0], n[1], n[2] = byte(i), byte(i>>8), byte(i>>16)
	n[15] = 1
	return n
}

func TestReplayGuard(t *testing.T) {
	const now = int64(1_700_000_000_000)
	g := newReplayGuard(0)
	require.True(t, g.accept(1, nonceOf(1), now, now))
	require.True(t, g.accept(2, nonceOf(2), now, now))

	tests := map[string]struct {
		id    uint64
		nonce [wire.NonceSize]byte
		want  bool
	}{
		// Same frame again.
		"fail same id and nonce": {2, nonceOf(2), false},
		// An old id with a new nonce: ids only go up.
		"fail older id": {1, nonceOf(99), false},
		// A new id that reuses a nonce of the window.
		"fail reused nonce": {5, nonceOf(1), false},
		"ok next":           {3, nonceOf(3), true},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.want, g.accept(tc.id, tc.nonce, now, now))
		})
	}
}

func TestReplayGuardPrunesAndBounds(t *testing.T) {
	const now = int64(1_700_000_000_000)
	g := newReplayGuard(0)
	for i := 1; i <= 10; i++ {
		require.True(t, g.accept(uint64(i), nonceOf(i), now, now))
	}
	later := now + wire.MaxClockSkew.Milliseconds() + 1
	require.True(t, g.accept(11, nonceOf(11), later, later))
	require.Equal(t, 1, g.n, "entries past the window are pruned")
	require.Len(t, g.seen, 1)

	for i := 12; i < 12+2*maxReplayEntries; i++ {
		require.True(t, g.accept(uint64(i), nonceOf(i), later, later))
	}
	require.Equal(t, maxReplayEntries, g.n, "the cache is bounded")
	require.Len(t, g.seen, maxReplayEntries)
	// An evicted nonce is still refused through its id.
	require.False(t, g.accept(12, nonceOf(12), later, later))
}
