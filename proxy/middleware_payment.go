package proxy

import "net/http"

// payment is spec order step 3, before authentication: on a paid route a
// request without a token and without a valid X-PAYMENT gets 402 with the
// x402 body (spec Errors rule 2); share access, paid but anonymous, spends
// its X-PAYMENT here. Without a meter it passes.
func (s *Server) payment(next http.Handler) http.Handler {
	if s.meter == nil {
		return next
	}
	anonymous := func(r *http.Request) bool { return isAnonymousPaidRoute(routeFrom(r.Context())) }
	return s.meter.PaymentGate(isPaidRequest, anonymous)(next)
}
