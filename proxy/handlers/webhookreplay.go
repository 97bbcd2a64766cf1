package handlers

import (
	"errors"
	"net/http"
	"time"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// MaxReplayBatch bounds how many deliveries one bulk replay queues
// (documented in api/openapi.yaml).
const MaxReplayBatch = 1000

// ReplayDelivery answers POST /v1/webhooks/{id}/deliveries/{delivery_id}/replay:
// the delivery (failed, the dead-letter state, or delivered) is queued again
// with a new attempt series and the same event, so the receiver gets the
// same payload and event id and can deduplicate. Owners and admins only
// (agents are refused by the router); another organization's webhook or
// delivery is the same 404 as a missing one.
func (h *Handlers) ReplayDelivery(w http.ResponseWriter, r *http.Request) error {
	if err := orgAdmin(r, "replay webhook deliveries"); err != nil {
		return err
	}
	id, err := pathID(r, "id", "webhook")
	if err != nil {
		return err
	}
	deliveryID, err := pathID(r, "delivery_id", "delivery")
	if err != nil {
		return err
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("webhook/" + id + "/delivery/" + deliveryID)
	d, err := h.Hooks.ReplayDelivery(r.Context(), principal(r).OrgID, id, deliveryID, entry.Prepare(http.StatusOK))
	if err != nil {
		return replayProblem(err)
	}
	return writeJSON(w, http.StatusOK, toDelivery(d))
}

// ReplayDeliveries answers POST /v1/webhooks/{id}/deliveries/replay: the
// webhook's failed (dead-letter) deliveries created in [from, to) are queued
// again, oldest first, at most MaxReplayBatch per call; the answer says how
// many were queued and whether more remain (call again with the same range).
func (h *Handlers) ReplayDeliveries(w http.ResponseWriter, r *http.Request) error {
	if err := orgAdmin(r, "replay webhook deliveries"); err != nil {
		return err
	}
	id, err := pathID(r, "id", "webhook")
	if err != nil {
		return err
	}
	var in api.WebhookReplayRange
	if err := decodeJSON(r, &in); err != nil {
		return err
	}
	from, err := replayTime("from", in.From)
	if err != nil {
		return err
	}
	to, err := replayTime("to", in.To)
	if err != nil {
		return err
	}
	if !from.Before(to) {
		return badField("from", "must be before to")
	}
	entry := auditlog.FromContext(r.Context())
	entry.SetResource("webhook/" + id + "/deliveries")
	res, err := h.Hooks.ReplayFailedDeliveries(r.Context(), principal(r).OrgID, id, from, to, MaxReplayBatch,
		entry.Prepare(http.StatusOK))
	if err != nil {
		return replayProblem(err)
	}
	return writeJSON(w, http.StatusOK, api.WebhookReplayResult{Queued: res.Queued, More: res.More, Limit: MaxReplayBatch})
}

// replayTime parses a required RFC 3339 field of a bulk replay.
func replayTime(name string, v *string) (time.Time, error) {
	if v == nil {
		return time.Time{}, badField(name, "is required (RFC 3339)")
	}
	t, err := time.Parse(time.RFC3339Nano, *v)
	if err != nil {
		return time.Time{}, badField(name, "must be an RFC 3339 time")
	}
	return t, nil
}

// replayProblem turns the store's replay refusals into 409 conflict; other
// errors (not found, storage) pass through.
func replayProblem(err error) error {
	switch {
	case errors.Is(err, store.ErrDeliveryQueued):
		return problem.New(http.StatusConflict, problem.TypeConflict, "the delivery is still queued; only failed or delivered deliveries can be replayed")
	case errors.Is(err, store.ErrWebhookInactive):
		return problem.New(http.StatusConflict, problem.TypeConflict, "the webhook is inactive; activate it before replaying its deliveries")
	}
	return err
}
