package webhooks

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"
)

// Worker defaults.
const (
	// DefaultPollInterval is how often a Worker polls (spec: every 5 s).
	DefaultPollInterval = 5 * time.Second
	// DefaultBatchSize is how many deliveries one poll claims.
	DefaultBatchSize = 32
	// DefaultConcurrency is how many deliveries are in flight at once.
	DefaultConcurrency = 8
	// recordTimeout bounds writing an attempt's result, which happens even
	// while the worker stops so that a finished delivery is not sent again.
	recordTimeout = 5 * time.Second
)

// WorkerConfig configures a Worker. Zero values take the defaults.
type WorkerConfig struct {
	Outbox       Outbox        // required
	Options      Options       // destination checks; AllowLoopback is TEST ONLY
	Policy       Policy        // DefaultPolicy when zero
	PollInterval time.Duration // DefaultPollInterval when zero
	BatchSize    int           // deliveries claimed per poll
	Concurrency  int           // deliveries in flight at once
	Logger       *slog.Logger
	// DeadLetters, when set, counts the deliveries this worker moved to
	// the dead-letter state (failed): the metric
	// ocv_webhook_delivery_dead_letter_total.
	DeadLetters *atomic.Uint64
	// Client overrides NewClient(Options); for tests only.
	Client *http.Client
	// Now and RandN override the clock and the jitter source; for tests.
	Now   func() time.Time
	RandN func(n int64) int64
}

// Worker drains an Outbox: it claims due deliveries, sends them
// concurrently (bounded), and records each result. Run any number of
// workers, in any number of processes, over the same Outbox.
type Worker struct {
	cfg    WorkerConfig
	client *http.Client
	log    *slog.Logger
	sem    chan struct{}
}

// NewWorker validates cfg and returns a Worker.
func NewWorker(cfg WorkerConfig) (*Worker, error) {
	if cfg.Outbox == nil {
		return nil, fmt.Errorf("checking worker config: %w: no outbox", ErrInvalidConfig)
	}
	if cfg.Policy == (Policy{}) {
		cfg.Policy = DefaultPolicy
	}
	if cfg.Policy.MaxRetries < 0 || cfg.Policy.Base <= 0 || cfg.Policy.Cap < cfg.Policy.Base {
		return nil, fmt.Errorf("checking worker config: %w: retry policy", ErrInvalidConfig)
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = DefaultBatchSize
	}
	if cfg.Concurrency <= 0 {
		cfg.Concurrency = DefaultConcurrency
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.RandN == nil {
		cfg.RandN = rand.Int64N
	}
	w := &Worker{cfg: cfg, client: cfg.Client, log: cfg.Logger, sem: make(chan struct{}, cfg.Concurrency)}
	if w.client == nil {
		w.client = NewClient(cfg.Options)
	}
	if w.log == nil {
		w.log = slog.New(slog.DiscardHandler)
	}
	if cfg.Options.AllowLoopback {
		w.log.Warn("webhook worker allows loopback destinations: TEST-ONLY setting")
	}
	return w, nil
}

// Run polls every PollInterval until ctx is done, polling again at once
// while claims come back full. Claim errors are logged and retried at the
// next tick. When ctx ends, attempts in flight are abandoned unrecorded
// (their leases expire and they are claimed again) unless already answered.
func (w *Worker) Run(ctx context.Context) {
	t := time.NewTicker(w.cfg.PollInterval)
	defer t.Stop()
	for {
		n, err := w.RunOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			w.log.LogAttrs(ctx, slog.LevelWarn, "claiming webhook deliveries failed", slog.String("error", err.Error()))
		}
		if err == nil && n == w.cfg.BatchSize {
			continue
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// RunOnce claims one batch, delivers it and waits for every attempt of the
// batch to finish (at most RequestTimeout plus recording each). It returns
// how many deliveries were claimed. Tests and the end-to-end suite may call
// it directly instead of Run.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	ds, err := w.cfg.Outbox.Claim(ctx, w.cfg.BatchSize, w.cfg.Now())
	if err != nil {
		return 0, fmt.Errorf("claiming deliveries: %w", err)
	}
	var wg sync.WaitGroup
	for _, d := range ds {
		w.sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-w.sem }()
			w.deliver(ctx, d)
		})
	}
	wg.Wait()
	return len(ds), nil
}

// deliver makes one attempt of d and records its outcome.
func (w *Worker) deliver(ctx context.Context, d Delivery) {
	if d.Attempt > w.cfg.Policy.MaxAttempts() {
		// Earlier attempts were cut short (crashes) and still counted.
		w.record(ctx, d, outcomeFail, Result{Error: "attempts exhausted"}, time.Time{})
		return
	}
	// Re-validate before every send: the rules may have tightened since
	// the URL was stored, and a stored row may predate validation.
	if err := ValidateURL(d.URL, w.cfg.Options); err != nil {
		w.record(ctx, d, outcomeFail, Result{Error: err.Error()}, time.Time{})
		return
	}
	now := w.cfg.Now()
	res, err := Send(ctx, w.client, d, now)
	if err != nil {
		w.record(ctx, d, outcomeFail, Result{Error: describe(err)}, time.Time{})
		return
	}
	switch {
	case res.Delivered():
		w.record(ctx, d, outcomeComplete, res, time.Time{})
	case ctx.Err() != nil:
		// Stopped or killed mid-attempt: record nothing, so the lease
		// expires and the attempt is made again.
		return
	case d.Attempt < w.cfg.Policy.MaxAttempts():
		next := now.Add(w.cfg.Policy.Delay(d.Attempt, w.cfg.RandN))
		w.record(ctx, d, outcomeReschedule, res, next)
	default:
		w.record(ctx, d, outcomeFail, res, time.Time{})
	}
}

type outcome int

const (
	outcomeComplete outcome = iota
	outcomeReschedule
	outcomeFail
)

// record stores res. It runs on a context detached from the worker's
// cancellation so that an answered attempt is recorded during shutdown.
func (w *Worker) record(ctx context.Context, d Delivery, o outcome, res Result, next time.Time) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), recordTimeout)
	defer cancel()
	var err error
	msg := "webhook delivered"
	switch o {
	case outcomeComplete:
		err = w.cfg.Outbox.Complete(rctx, d.ID, res)
	case outcomeReschedule:
		msg = "webhook attempt failed, rescheduled"
		err = w.cfg.Outbox.Reschedule(rctx, d.ID, res, next)
	case outcomeFail:
		msg = "webhook delivery failed permanently: dead letter, replay to send it again"
		err = w.cfg.Outbox.Fail(rctx, d.ID, res)
	}
	// Never the URL (it may carry a token) and never the secret.
	attrs := []slog.Attr{slog.String("delivery_id", d.ID), slog.String("webhook_id", d.WebhookID),
		slog.String("event", d.Event), slog.Int("attempt", d.Attempt), slog.Int("status", res.Status),
		slog.Duration("duration", res.Duration)}
	if res.Error != "" {
		attrs = append(attrs, slog.String("error", res.Error))
	}
	if err != nil {
		w.log.LogAttrs(ctx, slog.LevelError, "recording webhook attempt failed",
			append(attrs, slog.String("store_error", err.Error()))...)
		return
	}
	level := slog.LevelInfo
	if o == outcomeFail {
		level = slog.LevelWarn
		if w.cfg.DeadLetters != nil {
			w.cfg.DeadLetters.Add(1)
		}
	}
	w.log.LogAttrs(ctx, level, msg, attrs...)
}

// CountDeadLetters makes the worker count its dead letters on c (see
// WorkerConfig.DeadLetters). Call it before Run.
func (w *Worker) CountDeadLetters(c *atomic.Uint64) { w.cfg.DeadLetters = c }
