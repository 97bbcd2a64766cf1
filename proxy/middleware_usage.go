package proxy

import "net/http"

// usage is spec order steps 6 and 7, after the IP filter: it counts the
// call against the organization's monthly quota on metered routes, sets the
// quota headers (X-RateLimit-Requests-Used, X-RateLimit-Requests-Limit,
// X-Credit-Balance-Cents), and over quota spends credits or an X-PAYMENT or
// answers 402. Without a meter it passes.
func (s *Server) usage(next http.Handler) http.Handler {
	if s.meter == nil {
		return next
	}
	return s.meter.Usage(func(r *http.Request) bool { return routeMetered(routeFrom(r.Context())) })(next)
}
