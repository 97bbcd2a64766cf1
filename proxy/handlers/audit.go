package handlers

import (
	"context"
	"encoding/hex"
	"net/http"
	"strconv"

	"github.com/opencustody/ocv/api"
	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/proxy/auditlog"
)

// actorEvents lists the events a member may see (store.ListActorEvents).
type actorEvents interface {
	ListActorEvents(ctx context.Context, orgID, userID, action string, before int64, limit int) ([]*auditchain.Event, error)
}

// ListAuditEvents answers GET /v1/audit/events?limit=&action=&cursor=:
// newest first, with their chain fields once the sealer has chained them.
// Owners and admins see the organization's events; a member sees only the
// events it is the actor of and those of agents it created (a member's
// view is not widened by vault policies: the audit log is not a vault).
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
	p := principal(r)
	var evs []*auditchain.Event
	if bypasses(p) {
		evs, err = h.Vaults.ListEvents(r.Context(), p.OrgID, action, before, limit+1)
	} else if ae, ok := h.Vaults.(actorEvents); ok {
		evs, err = ae.ListActorEvents(r.Context(), p.OrgID, p.ID, action, before, limit+1)
	} else { // fail closed: no narrowed listing, no listing
		return problem.New(http.StatusForbidden, problem.TypeForbidden, "only owners and admins may list the audit log")
	}
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
