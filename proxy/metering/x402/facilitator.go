package x402

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// Facilitator settles verified payments on chain. Implementations must be
// safe for concurrent use and honour ctx; a payment that was not settled
// gives an error wrapping ErrSettlement.
type Facilitator interface {
	Settle(ctx context.Context, p Payload, req Requirements) (SettleResponse, error)
}

// SettleResponse is the facilitator's settlement result (x402 v1), sent back
// to the payer base64-encoded in X-PAYMENT-RESPONSE.
type SettleResponse struct {
	Success     bool   `json:"success"`
	ErrorReason string `json:"errorReason,omitempty"`
	Transaction string `json:"transaction"`
	Network     string `json:"network"`
	Payer       string `json:"payer,omitempty"`
}

// Header returns r as an X-PAYMENT-RESPONSE header value.
func (r SettleResponse) Header() string {
	b, _ := json.Marshal(r)
	return base64.StdEncoding.EncodeToString(b)
}

// settleRequest is the body of POST {facilitator}/settle.
type settleRequest struct {
	X402Version         int          `json:"x402Version"`
	PaymentPayload      Payload      `json:"paymentPayload"`
	PaymentRequirements Requirements `json:"paymentRequirements"`
}

// maxSettleResponse bounds what is read from the facilitator.
const maxSettleResponse = 64 << 10

// DefaultSettleTimeout bounds one settlement call (an on-chain transfer on
// Base confirms in a few seconds).
const DefaultSettleTimeout = 20 * time.Second

// HTTPFacilitator settles through a facilitator's HTTP API.
type HTTPFacilitator struct {
	settleURL string
	client    *http.Client
}

// NewHTTPFacilitator returns the facilitator of cfg.FacilitatorURL. client
// nil uses one with DefaultSettleTimeout.
func NewHTTPFacilitator(cfg PaymentConfig, client *http.Client) *HTTPFacilitator {
	if client == nil {
		client = &http.Client{Timeout: DefaultSettleTimeout}
	}
	return &HTTPFacilitator{settleURL: cfg.settleURL(), client: client}
}

// Settle posts the payment and its requirements to {facilitator}/settle. A
// non-2xx status, an unreadable answer or success=false is a failure.
func (f *HTTPFacilitator) Settle(ctx context.Context, p Payload, req Requirements) (SettleResponse, error) {
	var out SettleResponse
	body, err := json.Marshal(settleRequest{X402Version: Version, PaymentPayload: p, PaymentRequirements: req})
	if err != nil {
		return out, fmt.Errorf("encoding settle request: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, DefaultSettleTimeout)
	defer cancel()
	hr, err := http.NewRequestWithContext(ctx, http.MethodPost, f.settleURL, bytes.NewReader(body))
	if err != nil {
		return out, fmt.Errorf("building settle request: %w", err)
	}
	hr.Header.Set("Content-Type", "application/json")
	hr.Header.Set("Accept", "application/json")
	resp, err := f.client.Do(hr)
	if err != nil {
		return out, fmt.Errorf("calling facilitator: %w: %w", ErrSettlement, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxSettleResponse))
	if err != nil {
		return out, fmt.Errorf("reading facilitator answer: %w: %w", ErrSettlement, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return out, fmt.Errorf("calling facilitator: status %d: %w", resp.StatusCode, ErrSettlement)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("decoding facilitator answer: %w", ErrSettlement)
	}
	if !out.Success {
		return out, fmt.Errorf("settling payment: facilitator refused (%.64q): %w", out.ErrorReason, ErrSettlement)
	}
	return out, nil
}

var _ Facilitator = (*HTTPFacilitator)(nil)
