package proxy

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// listenLoop runs listen until ctx ends. When the listener stops while
// ctx is live it logs "<name> listener stopped; reconnecting", calls
// reconnected (notifications may have been missed meanwhile), pauses a
// second and listens again. It returns once listen returned for ctx's end.
func listenLoop(ctx context.Context, log *slog.Logger, name string, listen func() error, reconnected func()) {
	for ctx.Err() == nil {
		err := listen()
		if ctx.Err() != nil {
			return
		}
		log.Warn(name+" listener stopped; reconnecting", "err", err)
		if reconnected != nil {
			reconnected()
		}
		pause(ctx, time.Second)
	}
}

// listenAndTick runs listenLoop beside a one-minute ticker that calls
// tick, until ctx ends; it returns nil once the listener has returned too.
func listenAndTick(ctx context.Context, log *slog.Logger, name string, listen func() error, reconnected, tick func()) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { listenLoop(ctx, log, name, listen, reconnected) })
	t := time.NewTicker(time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			tick()
		}
	}
}

// pause waits d or until ctx ends, whichever comes first.
func pause(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
