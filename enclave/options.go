package enclave

import (
	"log/slog"
	"time"
)

// Option adjusts a Server; options are test and wiring seams.
type Option func(*options)

type options struct {
	logger           *slog.Logger
	now              func() time.Time
	handshakeTimeout time.Duration
	shutdownGrace    time.Duration
}

func defaultOptions() options {
	return options{
		logger:           slog.New(slog.DiscardHandler),
		now:              time.Now,
		handshakeTimeout: 10 * time.Second,
		shutdownGrace:    10 * time.Second,
	}
}

// WithLogger sets the logger (connection events; never a secret).
func WithLogger(l *slog.Logger) Option {
	return func(o *options) {
		if l != nil {
			o.logger = l
		}
	}
}

// WithClock sets the clock used for frame freshness and cache expiry.
func WithClock(now func() time.Time) Option {
	return func(o *options) {
		if now != nil {
			o.now = now
		}
	}
}

// WithHandshakeTimeout bounds how long a new connection may take to send
// its Attest frame.
func WithHandshakeTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.handshakeTimeout = d
		}
	}
}

// WithShutdownGrace bounds how long Close waits for in-flight requests.
func WithShutdownGrace(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.shutdownGrace = d
		}
	}
}
