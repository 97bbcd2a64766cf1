package x402

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/opencustody/ocv/internal/store"
)

// NonceStore records spent authorization nonces; *store.Store implements it.
// UsePaymentNonce must be atomic across replicas and return an error
// wrapping store.ErrReused for a nonce recorded before.
type NonceStore interface {
	UsePaymentNonce(ctx context.Context, nonce, orgID, payer string) error
}

// Processor accepts X-PAYMENT headers: decode, verify, spend the nonce,
// settle. It is safe for concurrent use.
type Processor struct {
	cfg         PaymentConfig
	nonces      NonceStore
	facilitator Facilitator
	now         func() time.Time
}

// Option adjusts a Processor (test seams).
type Option func(*Processor)

// WithClock replaces time.Now.
func WithClock(now func() time.Time) Option { return func(p *Processor) { p.now = now } }

// NewProcessor returns a processor for cfg (defaults applied and validated).
// facilitator nil uses the HTTP facilitator at cfg.FacilitatorURL.
func NewProcessor(cfg PaymentConfig, nonces NonceStore, facilitator Facilitator, opts ...Option) (*Processor, error) {
	cfg = cfg.WithDefaults()
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("configuring x402: %w", err)
	}
	if facilitator == nil {
		facilitator = NewHTTPFacilitator(cfg, nil)
	}
	p := &Processor{cfg: cfg, nonces: nonces, facilitator: facilitator, now: time.Now}
	for _, o := range opts {
		o(p)
	}
	return p, nil
}

// Config returns the effective configuration (defaults applied).
func (p *Processor) Config() PaymentConfig { return p.cfg }

// Check decodes and verifies header without spending its nonce or
// settling it. It returns the payer's address.
func (p *Processor) Check(header string) (string, error) {
	pl, err := Decode(header)
	if err != nil {
		return "", err
	}
	payer, err := p.cfg.Verify(pl, p.now())
	if err != nil {
		return "", err
	}
	return payer.Hex(), nil
}

// Accept verifies header, records its nonce as spent (on behalf of orgID,
// "" when unauthenticated) and settles it for resource through the
// facilitator. A nonce is spent even when settlement then fails: the payer
// signs a fresh authorization, so a payment can never be accepted twice.
func (p *Processor) Accept(ctx context.Context, header, resource, orgID string) (SettleResponse, error) {
	pl, err := Decode(header)
	if err != nil {
		return SettleResponse{}, err
	}
	payer, err := p.cfg.Verify(pl, p.now())
	if err != nil {
		return SettleResponse{}, err
	}
	nonce := strings.ToLower(pl.Payload.Authorization.Nonce)
	if err := p.nonces.UsePaymentNonce(ctx, nonce, orgID, payer.Hex()); err != nil {
		if errors.Is(err, store.ErrReused) {
			return SettleResponse{}, fmt.Errorf("accepting payment: %w", ErrNonceReused)
		}
		return SettleResponse{}, fmt.Errorf("accepting payment: %w", err)
	}
	res, err := p.facilitator.Settle(ctx, pl, p.cfg.Requirements(resource))
	if err != nil {
		return res, fmt.Errorf("accepting payment: %w", err)
	}
	if res.Payer == "" {
		res.Payer = payer.Hex()
	}
	return res, nil
}
