package api

import "encoding/json"

// WebhookCreate is the body of POST /v1/webhooks (url and events
// required). Pointers tell missing fields apart; a client leaves unset
// ones out.
type WebhookCreate struct {
	URL         *string  `json:"url,omitempty"`
	Events      []string `json:"events,omitempty"`
	Description *string  `json:"description,omitempty"`
	IsActive    *bool    `json:"is_active,omitempty"`
}

// WebhookPatch is the body of PATCH /v1/webhooks/{id}: the fields of
// WebhookCreate, each optional.
type WebhookPatch = WebhookCreate

// WebhookDelivery is one delivery of an event to a webhook. Status is
// pending, delivered or failed; failed is the dead-letter state (the retry
// window is spent, or the destination is refused) from which a delivery is
// only sent again by a replay.
type WebhookDelivery struct {
	ID            string          `json:"id"`
	EventID       string          `json:"event_id"`
	Event         string          `json:"event"`
	Status        string          `json:"status"`
	Attempt       int             `json:"attempt"`
	LastStatus    *int            `json:"last_status"`
	LastError     *string         `json:"last_error"`
	NextAttemptAt string          `json:"next_attempt_at"`
	History       json.RawMessage `json:"history"`
	Replays       int             `json:"replays"`
	ReplayedAt    *string         `json:"replayed_at"`
	CreatedAt     string          `json:"created_at"`
	UpdatedAt     string          `json:"updated_at"`
}

// Webhook is a webhook as the API answers it: Secret only when it is
// created, Deliveries only on a read of one webhook.
type Webhook struct {
	ID          string             `json:"id"`
	URL         string             `json:"url"`
	Events      []string           `json:"events"`
	Description string             `json:"description"`
	IsActive    bool               `json:"is_active"`
	Secret      string             `json:"secret,omitempty"`
	Deliveries  *[]WebhookDelivery `json:"deliveries,omitempty"`
	CreatedAt   string             `json:"created_at"`
	UpdatedAt   string             `json:"updated_at"`
}

// WebhookReplayRange is the body of POST /v1/webhooks/{id}/deliveries/replay:
// the failed (dead-letter) deliveries created in [from, to), both RFC 3339
// and required.
type WebhookReplayRange struct {
	From *string `json:"from,omitempty"`
	To   *string `json:"to,omitempty"`
}

// WebhookReplayResult answers a bulk replay: how many deliveries were queued
// again (at most Limit per call) and whether failed deliveries remain in the
// range (More: call again with the same range).
type WebhookReplayResult struct {
	Queued int  `json:"queued"`
	More   bool `json:"more"`
	Limit  int  `json:"limit"`
}
