package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestFloor loads the floor briefly over each protocol and checks that
// it answers over the client's protocol and that the bench's own CPU is
// measured while the server roles are skipped.
func TestFloor(t *testing.T) {
	tests := map[string]struct {
		h2        bool
		wantProto string
	}{
		"ok http/1.1": {wantProto: "HTTP/1.1"},
		"ok h2":       {h2: true, wantProto: "HTTP/2.0"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := t.Context()
			f, err := startFloor(ctx, 2, tc.h2, 15*time.Second)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, f.Close()) })
			require.Equal(t, tc.wantProto, f.proto)

			probe := newCPUProbe(procFS{root: "/proc"}, pidSettings{}, false)
			res := measure(context.Background(), f.hc, f.scenario(), 2, 50*time.Millisecond, 300*time.Millisecond, probe, "floor: test")
			require.NotZero(t, res.OK)
			require.Empty(t, res.Errors)
			require.NotNil(t, res.CPU)
			require.True(t, res.CPU.skipped)
			require.Empty(t, res.CPU.Bench.NA)
			require.Equal(t, "floor: test", res.CPU.Proxy.NA)
			require.Equal(t, "floor: test", res.CPU.Server.NA)
		})
	}
}
