// Package obs holds OCV's logging setup and request ids. Log lines never
// carry a secret value, key, token or password.
//
// Trust level: shared helper (standard library only).
package obs

import (
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	"strings"
)

// NewLogger returns a JSON logger at level ("debug", "info", "warn", "error").
func NewLogger(w io.Writer, level string) *slog.Logger {
	var l slog.Level
	switch strings.ToLower(level) {
	case "debug":
		l = slog.LevelDebug
	case "warn":
		l = slog.LevelWarn
	case "error":
		l = slog.LevelError
	default:
		l = slog.LevelInfo
	}
	return slog.New(slog.NewJSONHandler(w, &slog.HandlerOptions{Level: l}))
}

// RequestID returns a fresh random request id (16 hex characters).
func RequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
