package webhooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Header names and the User-Agent of every delivery.
const (
	// HeaderSignature carries the hex HMAC-SHA256 of the raw body.
	HeaderSignature = "X-Webhook-Signature"
	// HeaderID carries the event id, the same as the body's "id".
	HeaderID = "X-Webhook-Id"
	// HeaderTimestamp copies the body's "timestamp"; only the body's copy
	// is signed.
	HeaderTimestamp = "X-Webhook-Timestamp"
	// HeaderEvent copies the body's "event", for routing.
	HeaderEvent = "X-Webhook-Event"
	// HeaderDelivery carries the delivery id, for support requests.
	HeaderDelivery = "X-Webhook-Delivery"
	// UserAgent is the User-Agent of every delivery.
	UserAgent = "ocv-webhooks/1"
)

// maxErrorLen bounds Result.Error.
const maxErrorLen = 256

// Payload is the JSON body of a delivery. The signature covers all of it.
type Payload struct {
	ID        string          `json:"id"`        // event id
	Event     string          `json:"event"`     // event name
	Attempt   int             `json:"attempt"`   // 1-based delivery attempt
	Timestamp string          `json:"timestamp"` // RFC 3339, UTC, when this attempt was made
	Data      json.RawMessage `json:"data"`      // the event's object
}

// Body returns the raw delivery body for d's attempt made at now.
func Body(d Delivery, now time.Time) ([]byte, error) {
	data := d.Data
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	b, err := json.Marshal(Payload{ID: d.EventID, Event: d.Event, Attempt: d.Attempt,
		Timestamp: now.UTC().Format(time.RFC3339), Data: data})
	if err != nil {
		return nil, fmt.Errorf("encoding delivery %s body: %w", d.ID, err)
	}
	return b, nil
}

// Send makes one delivery attempt of d with client (from NewClient) at now.
// The error is non-nil only when no request could be made (bad event data,
// unparsable URL): such a delivery can never succeed. Otherwise the Result
// says what happened; the response body is read up to MaxResponseBody and
// discarded. Send does not call ValidateURL; the Worker does.
func Send(ctx context.Context, client *http.Client, d Delivery, now time.Time) (Result, error) {
	body, err := Body(d, now)
	if err != nil {
		return Result{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.URL, bytes.NewReader(body))
	if err != nil {
		return Result{}, fmt.Errorf("building delivery %s request: %w", d.ID, ErrInvalidURL)
	}
	h := req.Header
	h.Set("Content-Type", "application/json")
	h.Set("User-Agent", UserAgent)
	h.Set(HeaderID, d.EventID)
	h.Set(HeaderEvent, d.Event)
	h.Set(HeaderDelivery, d.ID)
	h.Set(HeaderTimestamp, now.UTC().Format(time.RFC3339))
	h.Set(HeaderSignature, Sign(d.Secret, body))

	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		return Result{Error: describe(err), Duration: time.Since(start)}, nil
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, MaxResponseBody))
	_ = resp.Body.Close()
	res := Result{Status: resp.StatusCode, Duration: time.Since(start)}
	if !res.Delivered() {
		res.Error = fmt.Sprintf("unexpected status %d", resp.StatusCode)
	}
	return res, nil
}

// describe turns a client error into Result.Error text. *url.Error repeats
// the full URL, which may carry a token, so only its cause is kept.
func describe(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	s := err.Error()
	if len(s) > maxErrorLen {
		s = s[:maxErrorLen]
	}
	return s
}
