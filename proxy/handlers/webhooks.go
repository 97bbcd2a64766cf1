package handlers

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
)

func toWebhook(w store.Webhook) api.Webhook {
	return api.Webhook{ID: w.ID, URL: w.URL, Events: append([]string{}, w.Events...), Description: w.Description,
		IsActive: w.IsActive, CreatedAt: rfc3339(w.CreatedAt), UpdatedAt: rfc3339(w.UpdatedAt)}
}

func toDelivery(d store.DeliveryRecord) api.WebhookDelivery {
	out := api.WebhookDelivery{ID: d.ID, EventID: d.EventID, Event: d.Event, Status: d.Status,
		Attempt: d.Attempt, LastStatus: d.LastStatus, LastError: d.LastError, NextAttemptAt: rfc3339(d.NextAttemptAt),
		History: d.History, Replays: d.Replays, CreatedAt: rfc3339(d.CreatedAt), UpdatedAt: rfc3339(d.UpdatedAt)}
	if d.ReplayedAt != nil {
		at := rfc3339(*d.ReplayedAt)
		out.ReplayedAt = &at
	}
	return out
}

// CreateWebhook answers POST /v1/webhooks. The signing secret is returned
// here only.
func (h *Handlers) CreateWebhook(w http.ResponseWriter, r *http.Request) error {
	var in api.WebhookCreate
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
	if err != nil {
		return err
	}
	ds, err := h.Hooks.RecentDeliveries(r.Context(), p.OrgID, id, recentDeliveries)
	if err != nil {
		return err
	}
	out := toWebhook(hook)
	list := make([]api.WebhookDelivery, 0, len(ds))
	for _, d := range ds {
		list = append(list, toDelivery(d))
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
	var in api.WebhookPatch
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
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, toWebhook(out))
}

// DeleteWebhook answers DELETE /v1/webhooks/{id}; pending deliveries go too.
func (h *Handlers) DeleteWebhook(w http.ResponseWriter, r *http.Request) error {
	id, entry, err := auditedID(r, "id", "webhook", "webhook/")
	if err != nil {
		return err
	}
	err = h.Hooks.DeleteWebhook(r.Context(), principal(r).OrgID, id, entry.Prepare(http.StatusNoContent))
	return noContent(w, err)
}
