package httperr

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestLogLevel(t *testing.T) {
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel2 := context.WithTimeout(context.Background(), -time.Second)
	defer cancel2()
	tests := map[string]struct {
		ctx      context.Context
		wantGone bool
		want     slog.Level
	}{
		"live request":                   {ctx: context.Background(), want: slog.LevelError},
		"client went away":               {ctx: cancelled, wantGone: true, want: slog.LevelInfo},
		"a deadline is the server's own": {ctx: expired, want: slog.LevelError},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.Equal(t, tc.wantGone, ClientGone(tc.ctx))
			require.Equal(t, tc.want, LogLevel(tc.ctx))
		})
	}
}
