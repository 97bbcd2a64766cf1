package proxy

import (
	"context"
	"net/http"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/httperr"
	"github.com/opencustody/ocv/proxy/idempotency"
)

// errIdempotencyUnsupported answers an Idempotency-Key on a state change
// that cannot honour it: a retry would not be recognised, so the client
// must not believe it is safe.
var errIdempotencyUnsupported = problem.BadRequest(problem.TypeIdempotencyUnsupported,
	"this route does not take Idempotency-Key (its answer carries a credential that is never stored); send the request without it")

// eventRecorder stores an audit event in the request's idempotent
// transaction (*store.Store).
type eventRecorder interface {
	RecordEvent(ctx context.Context, ev *auditchain.Event) error
}

// idempotent handles Idempotency-Key just before dispatch on the state
// changes of isIdempotentRoute, and refuses it (400) on the other state
// changes, whose answer carries a secret or credential. Without a store
// it passes. The request's writes, its audit event and its answer commit
// in one transaction (exactly once, docs/architecture.md).
func (s *Server) idempotent(next http.Handler) http.Handler {
	if s.idem == nil {
		return next
	}
	events, _ := s.idem.(eventRecorder)
	honour := idempotency.Middleware(s.idem, idempotency.Config{
		Applies: func(r *http.Request) bool { return isIdempotentRoute(routeFrom(r.Context())) },
		Log:     s.log.With("component", "idempotency"),
		BeforeCommit: func(ctx context.Context, r *http.Request, status int) error {
			if crashMatches(s.cfg.TestCrash.BeforeCommit, r) {
				crash()
			}
			return s.auditInTx(ctx, events, status)
		},
		AfterCommit: func(r *http.Request) {
			if crashMatches(s.cfg.TestCrash.AfterCommit, r) {
				crash()
			}
		},
	})(next)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt := routeFrom(r.Context())
		if r.Header.Get(idempotency.HeaderKey) != "" && isStateChange(rt) && !isIdempotentRoute(rt) {
			problem.Write(w, errIdempotencyUnsupported)
			return
		}
		honour.ServeHTTP(w, r)
	})
}

// auditInTx stores the request's audit event in its idempotent transaction
// when no write of the handler did, so that the effect, its audit event
// and its answer commit together. A failure rolls the request back: it is
// answered 503 audit_unavailable (fail closed).
func (s *Server) auditInTx(ctx context.Context, events eventRecorder, status int) error {
	e := auditlog.FromContext(ctx)
	if events == nil || e.IsPersisted() {
		return nil
	}
	if err := events.RecordEvent(ctx, e.Prepare(status)); err != nil {
		s.log.Error("storing audit event in the idempotent transaction; failing the request",
			"request_id", e.Event.RequestID, "err", err)
		p := problem.New(http.StatusServiceUnavailable, problem.TypeAuditUnavailable,
			"the request could not be audited, so it was not served; retry after the Retry-After delay")
		p.RetryAfter = httperr.RetryAfterSeconds
		return p
	}
	return nil
}
