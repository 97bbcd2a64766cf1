package proxy

import (
	"net/http"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/proxy/idempotency"
)

// errIdempotencyUnsupported answers an Idempotency-Key on a state change
// that cannot honour it: a retry would not be recognised, so the client
// must not believe it is safe.
var errIdempotencyUnsupported = problem.BadRequest(problem.TypeIdempotencyUnsupported,
	"this route does not take Idempotency-Key (its answer carries a credential that is never stored); send the request without it")

// idempotent handles Idempotency-Key just before dispatch on the state
// changes of isIdempotentRoute, and refuses it (400) on the other state
// changes, whose answer carries a secret or credential. Without a store
// it passes.
func (s *Server) idempotent(next http.Handler) http.Handler {
	if s.idem == nil {
		return next
	}
	honour := idempotency.Middleware(s.idem, idempotency.Config{
		Applies: func(r *http.Request) bool { return isIdempotentRoute(routeFrom(r.Context())) },
		Log:     s.log.With("component", "idempotency"),
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
