package metering

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/metering/x402"
)

// Store is all the storage metering uses; *store.Store implements it.
type Store interface {
	LeaseStore
	BillingStore
	x402.NonceStore
	Usage(ctx context.Context, orgID, period string) (int64, error)
	UsageHistory(ctx context.Context, orgID string, limit int) ([]store.PeriodUsage, error)
}

// Meter ties the counter, the tier and credit cache and x402 payments
// together and provides the middlewares. It is safe for concurrent use.
type Meter struct {
	cfg      Config
	st       Store
	counter  *Counter
	orgs     *orgCache
	payments *x402.Processor
	now      func() time.Time
}

// Option adjusts a Meter (test seams).
type Option func(*options)

type options struct {
	facilitator x402.Facilitator
	now         func() time.Time
}

// WithFacilitator replaces the HTTP facilitator.
func WithFacilitator(f x402.Facilitator) Option { return func(o *options) { o.facilitator = f } }

// WithClock replaces time.Now.
func WithClock(now func() time.Time) Option { return func(o *options) { o.now = now } }

// New returns a meter for cfg (defaults applied, then validated).
func New(cfg Config, st Store, opts ...Option) (*Meter, error) {
	o := options{now: time.Now}
	for _, f := range opts {
		f(&o)
	}
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuring metering: %w", err)
	}
	pay, err := x402.NewProcessor(cfg.Payment, st, o.facilitator, x402.WithClock(o.now))
	if err != nil {
		return nil, fmt.Errorf("configuring metering: %w", err)
	}
	return &Meter{
		cfg: cfg, st: st, payments: pay, now: o.now,
		counter: NewCounter(st, CounterConfig{Tiers: cfg.Tiers, Block: cfg.LeaseBlock, LeaseMaxAge: cfg.LeaseMaxAge, Now: o.now}),
		orgs:    newOrgCache(st, cfg.CacheTTL, o.now),
	}, nil
}

// Config returns the effective configuration.
func (m *Meter) Config() Config { return m.cfg }

// Counter returns the usage counter.
func (m *Meter) Counter() *Counter { return m.counter }

// Payments returns the x402 processor.
func (m *Meter) Payments() *x402.Processor { return m.payments }

// Discovery is the GET /.well-known/x402 document.
func (m *Meter) Discovery() x402.Discovery {
	return m.payments.Config().Discovery(strings.TrimRight(m.cfg.PublicURL, "/") + "/v1")
}

// Run returns aged-out leased calls to the table every half lease age until
// ctx ends. Errors are passed to onErr (may be nil) and retried next tick.
func (m *Meter) Run(ctx context.Context, onErr func(error)) {
	t := time.NewTicker(m.cfg.LeaseMaxAge / 2)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := m.counter.Reconcile(ctx); err != nil && onErr != nil {
				onErr(err)
			}
		}
	}
}

// Close returns every unused leased call; call it after the HTTP server
// has shut down.
func (m *Meter) Close(ctx context.Context) error { return m.counter.Close(ctx) }

// resourceURL is the full URL of r, as x402 names the paid resource.
func (m *Meter) resourceURL(r *http.Request) string {
	base := strings.TrimRight(m.cfg.PublicURL, "/")
	if base == "" {
		scheme := "https"
		if r.TLS == nil {
			scheme = "http"
		}
		base = scheme + "://" + r.Host
	}
	return base + r.URL.RequestURI()
}

// paymentRequired answers 402 with the x402 body.
func (m *Meter) paymentRequired(w http.ResponseWriter, r *http.Request, detail string, cause error) {
	m.payments.Config().PaymentRequired(m.resourceURL(r), detail, cause).Write(w)
}
