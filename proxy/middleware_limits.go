package proxy

import "net/http"

// limits bounds every request body (413 past the limit, raised where the
// handler reads it); JSON nesting is bounded by the handlers' decoder.
func (s *Server) limits(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}
