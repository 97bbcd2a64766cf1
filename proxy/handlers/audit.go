package handlers

import (
	"encoding/hex"
	"net/http"
	"strconv"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// ListAuditEvents answers GET /v1/audit/events?limit=&action=&cursor=: the
// caller's organization's events, newest first, with their chain fields
// once the sealer has chained them.
func (h *Handlers) ListAuditEvents(w http.ResponseWriter, r *http.Request) error {
	limit, cursor, err := pageParams(r)
	if err != nil {
		return err
	}
	var before int64
	if cursor != "" {
		if before, err = strconv.ParseInt(cursor, 10, 64); err != nil || before < 1 {
			return problem.BadRequest(problem.TypeInvalidRequest, "cursor is not valid")
		}
	}
	action := r.URL.Query().Get("action")
	if len(action) > 128 {
		return problem.BadRequest(problem.TypeInvalidRequest, "action must be at most 128 bytes")
	}
	auditlog.FromContext(r.Context()).SetResource("audit/events")
	evs, err := h.Vaults.ListEvents(r.Context(), principal(r).OrgID, action, before, limit+1)
	if err != nil {
		return err
	}
	return writeJSON(w, http.StatusOK, listPage(evs, limit, toAuditEvent,
		func(e *auditchain.Event) string { return strconv.FormatInt(e.ID, 10) }))
}

func toAuditEvent(e *auditchain.Event) api.AuditEvent {
	a := api.AuditEvent{ID: e.ID, OccurredAt: e.OccurredAt.UTC().Format("2006-01-02T15:04:05.000000Z07:00"),
		RequestID: e.RequestID, ActorType: e.ActorType, ActorID: e.ActorID, Action: e.Action, Resource: e.Resource,
		Outcome: e.Outcome, Status: e.Status, ClientIP: e.ClientIP}
	if e.ChainSeq > 0 {
		seq, prev, hash := e.ChainSeq, e.PrevID, hex.EncodeToString(e.Hash)
		a.ChainSeq, a.PrevID, a.Hash = &seq, &prev, &hash
	}
	return a
}
