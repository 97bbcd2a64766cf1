package handlers

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/webhooks"
)

// Webhook limits (documented in api/openapi.yaml).
const (
	WebhookSecretPrefix   = "whsec_"
	maxWebhookURL         = 2048
	maxWebhookEvents      = 64
	maxWebhookDescription = 1024
	recentDeliveries      = 20
)

type webhookWrite struct {
	URL         *string  `json:"url"`
	Events      []string `json:"events"`
	Description *string  `json:"description"`
	IsActive    *bool    `json:"is_active"`
}

type deliveryResponse struct {
	ID            string          `json:"id"`
	EventID       string          `json:"event_id"`
	Event         string          `json:"event"`
	Status        string          `json:"status"`
	Attempt       int             `json:"attempt"`
	LastStatus    *int            `json:"last_status"`
	LastError     *string         `json:"last_error"`
	NextAttemptAt string          `json:"next_attempt_at"`
	History       json.RawMessage `json:"history"`
	CreatedAt     string          `json:"created_at"`
	UpdatedAt     string          `json:"updated_at"`
}

type webhookResponse struct {
	ID          string              `json:"id"`
	URL         string              `json:"url"`
	Events      []string            `json:"events"`
	Description string              `json:"description"`
	IsActive    bool                `json:"is_active"`
	Secret      string              `json:"secret,omitempty"`
	Deliveries  *[]deliveryResponse `json:"deliveries,omitempty"`
	CreatedAt   string              `json:"created_at"`
	UpdatedAt   string              `json:"updated_at"`
}

func toWebhook(w store.Webhook) webhookResponse {
	return webhookResponse{ID: w.ID, URL: w.URL, Events: append([]string{}, w.Events...), Description: w.Description,
		IsActive: w.IsActive, CreatedAt: rfc3339(w.CreatedAt), UpdatedAt: rfc3339(w.UpdatedAt)}
}

// checkWebhookURL answers 400 invalid_url for a refused destination. The
// detail names the rule, never the URL (it may carry credentials or tokens).
func (h *Handlers) checkWebhookURL(raw string) error {
	if len(raw) > maxWebhookURL {
		return problem.BadRequest(problem.TypeInvalidURL, "url must be at most 2048 bytes")
	}
	err := webhooks.ValidateURL(raw, h.Webhooks)
	if err == nil {
		return nil
	}
	detail := "url is not an allowed webhook destination"
	switch {
	case errors.Is(err, webhooks.ErrUnsupportedScheme):
		detail = "url must use http or https"
	case errors.Is(err, webhooks.ErrUserinfo):
		detail = "url must not carry user credentials"
	case errors.Is(err, webhooks.ErrEmptyHost), errors.Is(err, webhooks.ErrInvalidHost), errors.Is(err, webhooks.ErrInvalidURL):
		detail = "url is not a valid absolute http(s) URL with a host"
	case errors.Is(err, webhooks.ErrForbiddenHost):
		detail = "url names a local, internal or cloud metadata host"
	case errors.Is(err, webhooks.ErrForbiddenAddress):
		detail = "url points to a private, loopback, link-local, reserved or metadata address"
	}
	return problem.BadRequest(problem.TypeInvalidURL, detail)
}

func checkWebhookEvents(events []string) ([]string, error) {
	if len(events) == 0 || len(events) > maxWebhookEvents {
		return nil, problem.BadRequest(problem.TypeInvalidRequest, "events must name 1 to 64 event names")
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(events))
	for _, e := range events {
		if !webhooks.IsKnownEvent(e) {
			return nil, problem.BadRequest(problem.TypeInvalidRequest, "events may hold only documented event names")
		}
		if !seen[e] {
			seen[e] = true
			out = append(out, e)
		}
	}
	return out, nil
}

func checkDescription(d *string) error {
	if d != nil && (len(*d) > maxWebhookDescription || !utf8.ValidString(*d)) {
		return problem.BadRequest(problem.TypeInvalidRequest, "description must be valid UTF-8 of at most 1024 bytes")
	}
	return nil
}

// CreateWebhook answers POST /v1/webhooks. The signing secret is returned
// here only.
func (h *Handlers) CreateWebhook(w http.ResponseWriter, r *http.Request) error {
	var in webhookWrite
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.URL == nil {
		return problem.BadRequest(problem.TypeInvalidRequest, "url and events are required")
	}
	if err := h.checkWebhookURL(*in.URL); err != nil {
		return err
	}
	events, err := checkWebhookEvents(in.Events)
	if err != nil {
		return err
	}
	if err := checkDescription(in.Description); err != nil {
		return err
	}
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return err
	}
	secret := WebhookSecretPrefix + hex.EncodeToString(raw)
	p := principal(r)
	hook := store.Webhook{OrgID: p.OrgID, ID: uuid.Must(uuid.NewV7()).String(), URL: *in.URL, Events: events,
		IsActive: true, Secret: []byte(secret), CreatedBy: p.ID}
	if in.Description != nil {
		hook.Description = *in.Description
	}
	if in.IsActive != nil {
		hook.IsActive = *in.IsActive
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("webhook/" + hook.ID)
	out, err := h.Hooks.CreateWebhook(r.Context(), hook, entry.Prepare(http.StatusCreated))
	if err != nil {
		return err
	}
	resp := toWebhook(out)
	resp.Secret = secret
	return writeJSON(w, http.StatusCreated, resp)
}

// ListWebhooks answers GET /v1/webhooks.
func (h *Handlers) ListWebhooks(w http.ResponseWriter, r *http.Request) error {
	limit, cursor, err := pageParams(r)
	if err != nil {
		return err
	}
	rows, err := h.Hooks.ListWebhooks(r.Context(), principal(r).OrgID, cursor, limit+1)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, listPage(rows, limit, toWebhook, func(w store.Webhook) string { return w.ID }))
}

// GetWebhook answers GET /v1/webhooks/{id} with its recent deliveries.
func (h *Handlers) GetWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id", "webhook")
	if err != nil {
		return err
	}
	p := principal(r)
	auditlog.FromContext(r.Context()).SetResource("webhook/" + id)
	hook, err := h.Hooks.GetWebhook(r.Context(), p.OrgID, id)
	if errors.Is(err, store.ErrNotFound) {
		return problem.NotFound("webhook")
	}
	if err != nil {
		return err
	}
	ds, err := h.Hooks.RecentDeliveries(r.Context(), p.OrgID, id, recentDeliveries)
	if err != nil {
		return err
	}
	out := toWebhook(hook)
	list := make([]deliveryResponse, 0, len(ds))
	for _, d := range ds {
		list = append(list, deliveryResponse{ID: d.ID, EventID: d.EventID, Event: d.Event, Status: d.Status,
			Attempt: d.Attempt, LastStatus: d.LastStatus, LastError: d.LastError, NextAttemptAt: rfc3339(d.NextAttemptAt),
			History: d.History, CreatedAt: rfc3339(d.CreatedAt), UpdatedAt: rfc3339(d.UpdatedAt)})
	}
	out.Deliveries = &list
	return writeJSON(w, http.StatusOK, out)
}

// UpdateWebhook answers PATCH /v1/webhooks/{id}: any of url (validated
// again), events, description and is_active.
func (h *Handlers) UpdateWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id", "webhook")
	if err != nil {
		return err
	}
	var in webhookWrite
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	if in.URL != nil {
		if err := h.checkWebhookURL(*in.URL); err != nil {
			return err
		}
	}
	var events []string
	if in.Events != nil {
		if events, err = checkWebhookEvents(in.Events); err != nil {
			return err
		}
	}
	if err := checkDescription(in.Description); err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("webhook/" + id)
	out, err := h.Hooks.UpdateWebhook(r.Context(), principal(r).OrgID, id, func(hook *store.Webhook) error {
		if in.URL != nil {
			hook.URL = *in.URL
		}
		if events != nil {
			hook.Events = events
		}
		if in.Description != nil {
			hook.Description = *in.Description
		}
		if in.IsActive != nil {
			hook.IsActive = *in.IsActive
		}
		return nil
	}, entry.Prepare(http.StatusOK))
	if errors.Is(err, store.ErrNotFound) {
		return problem.NotFound("webhook")
	}
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toWebhook(out))
}

// DeleteWebhook answers DELETE /v1/webhooks/{id}; pending deliveries go too.
func (h *Handlers) DeleteWebhook(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id", "webhook")
	if err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("webhook/" + id)
	err = h.Hooks.DeleteWebhook(r.Context(), principal(r).OrgID, id, entry.Prepare(http.StatusNoContent))
	if errors.Is(err, store.ErrNotFound) {
		return problem.NotFound("webhook")
	}
	if err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
