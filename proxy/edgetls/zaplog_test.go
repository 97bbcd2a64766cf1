package edgetls

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/zap"
)

func TestZapLoggerForwardsToSlog(t *testing.T) {
	var buf bytes.Buffer
	l := newZapLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelInfo})))
	l.Named("obtain").With(zap.String("identifier", "example.com")).Warn("renewing", zap.Int("attempt", 2))
	l.Debug("hidden")
	out := buf.String()
	require.Contains(t, out, "level=WARN")
	require.Contains(t, out, "msg=renewing")
	require.Contains(t, out, "attempt=2")
	require.Contains(t, out, "identifier=example.com")
	require.Contains(t, out, "logger=certmagic.obtain")
	require.NotContains(t, out, "hidden")
}
