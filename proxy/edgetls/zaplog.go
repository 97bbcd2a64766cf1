package edgetls

import (
	"context"
	"log/slog"
	"slices"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// newZapLogger returns a zap logger (certmagic's) that writes to l, so the
// proxy keeps one structured log stream.
func newZapLogger(l *slog.Logger) *zap.Logger {
	return zap.New(&slogCore{logger: l})
}

// slogCore is a zapcore.Core forwarding entries to a slog.Logger.
type slogCore struct {
	logger *slog.Logger
	fields []zapcore.Field
}

func slogLevel(l zapcore.Level) slog.Level {
	switch {
	case l <= zapcore.DebugLevel:
		return slog.LevelDebug
	case l == zapcore.InfoLevel:
		return slog.LevelInfo
	case l == zapcore.WarnLevel:
		return slog.LevelWarn
	default:
		return slog.LevelError
	}
}

// Enabled implements zapcore.LevelEnabler.
func (c *slogCore) Enabled(l zapcore.Level) bool {
	return c.logger.Enabled(context.Background(), slogLevel(l))
}

// With implements zapcore.Core.
func (c *slogCore) With(fields []zapcore.Field) zapcore.Core {
	return &slogCore{logger: c.logger, fields: slices.Concat(c.fields, fields)}
}

// Check implements zapcore.Core.
func (c *slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

// Write implements zapcore.Core.
func (c *slogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range c.fields {
		f.AddTo(enc)
	}
	for _, f := range fields {
		f.AddTo(enc)
	}
	keys := make([]string, 0, len(enc.Fields))
	for k := range enc.Fields {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	attrs := make([]slog.Attr, 0, len(keys)+1)
	if name := strings.TrimLeft(e.LoggerName, "."); name != "" {
		if !strings.HasPrefix(name, "certmagic") {
			name = "certmagic." + name
		}
		attrs = append(attrs, slog.String("logger", name))
	}
	for _, k := range keys {
		attrs = append(attrs, slog.Any(k, enc.Fields[k]))
	}
	c.logger.LogAttrs(context.Background(), slogLevel(e.Level), e.Message, attrs...)
	return nil
}

// Sync implements zapcore.Core.
func (c *slogCore) Sync() error { return nil }
