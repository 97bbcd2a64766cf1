package proxy

import (
	"net/http"

	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/ratelimit"
)

// rateLimit is spec order step 2, right inside audit: token buckets per
// client IP (the address the audit event records, see clientIP) and per raw
// bearer credential (hashed by ratelimit.CredentialKey, so invalid tokens are
// limited too). Empty bucket: 429 rate_limited with Retry-After.
func (s *Server) rateLimit(next http.Handler) http.Handler {
	ipOf := func(r *http.Request) string { return auditlog.FromContext(r.Context()).Event.ClientIP }
	credOf := func(r *http.Request) string {
		token, _ := bearer(r)
		return token
	}
	return ratelimit.Middleware(s.limiter, ipOf, credOf)(next)
}
