package handlers

import (
	"net/http"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
)

// deliveryStatuses are the values of ListDeliveries' status filter.
var deliveryStatuses = map[string]bool{"pending": true, "delivered": true, "failed": true}

// ListDeliveries answers GET /v1/webhooks/{id}/deliveries: the webhook's
// deliveries, newest first, paged, optionally only one status
// (?status=failed lists the dead letters a replay can send again).
// Another organization's webhook is the same 404 as a missing one.
func (h *Handlers) ListDeliveries(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r, "id", "webhook")
	if err != nil {
		return err
	}
	limit, cursor, err := pageParams(r)
	if err != nil {
		return err
	}
	status := r.URL.Query().Get("status")
	if status != "" && !deliveryStatuses[status] {
		return badField("status", "must be pending, delivered or failed")
	}
	after, err := parseDeliveryCursor(cursor)
	if err != nil {
		return err
	}
	rows, err := h.Hooks.ListDeliveries(r.Context(), principal(r).OrgID, id, status, after, limit+1)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, listPage(rows, limit, toDelivery, func(d store.DeliveryRecord) string {
		return d.CreatedAt.UTC().Format(time.RFC3339Nano) + " " + d.ID
	}))
}

// parseDeliveryCursor reads the cursor listPage made: the creation time and
// id of the previous page's last delivery.
func parseDeliveryCursor(c string) (*store.DeliveryCursor, error) {
	if c == "" {
		return nil, nil
	}
	bad := problem.BadRequest(problem.TypeInvalidRequest, "cursor is not valid")
	at, id, ok := strings.Cut(c, " ")
	if !ok {
		return nil, bad
	}
	t, err := time.Parse(time.RFC3339Nano, at)
	if err != nil {
		return nil, bad
	}
	u, err := uuid.Parse(id)
	if err != nil {
		return nil, bad
	}
	return &store.DeliveryCursor{CreatedAt: t, ID: u.String()}, nil
}
