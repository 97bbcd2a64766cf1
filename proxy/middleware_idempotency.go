package proxy

import (
	"net/http"

	"github.com/opencustody/ocv/proxy/idempotency"
)

// idempotent handles Idempotency-Key just before dispatch, on the creating
// POSTs of isIdempotentRoute (never on routes whose response carries a
// secret or credential). Without a store it passes.
func (s *Server) idempotent(next http.Handler) http.Handler {
	if s.idem == nil {
		return next
	}
	return idempotency.Middleware(s.idem, idempotency.Config{
		Applies: func(r *http.Request) bool { return isIdempotentRoute(routeFrom(r.Context())) },
		Log:     s.log.With("component", "idempotency"),
	})(next)
}
