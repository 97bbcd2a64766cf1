package proxy

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/obs"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/handlers"
	"github.com/opencustody/ocv/proxy/httperr"
	"github.com/opencustody/ocv/proxy/idempotency"
	"github.com/opencustody/ocv/proxy/metering"
	"github.com/opencustody/ocv/proxy/ratelimit"
)

// Server is the proxy's HTTP handler: routing, then the middleware chain in
// the spec's request processing order: audit → (body limit) → global rate
// limit → payment on paid routes → authentication → IP filter → usage
// counting and quota headers → (Idempotency-Key) → handler.
type Server struct {
	cfg      Config
	log      *slog.Logger
	router   *router
	audits   Appender
	verifier *auth.Verifier
	metrics  *obs.Metrics
	trusted  trustedProxies
	ipRules  *IPRuleCache
	limiter  *ratelimit.Limiter
	meter    *metering.Meter
	idem     idempotency.Store
	chain    http.Handler
}

// Limits are the metering and idempotency parts of the pipeline; a nil
// field leaves its step out (unit tests).
type Limits struct {
	Meter       *metering.Meter
	Idempotency idempotency.Store
}

// NewServer builds the handler over h's routes; ipRules is the IP filter's
// cache of the organizations' rules (see NewIPRuleCache).
func NewServer(cfg Config, log *slog.Logger, h *handlers.Handlers, audits Appender, verifier *auth.Verifier, m *obs.Metrics,
	ipRules *IPRuleCache, lim Limits) *Server {
	trusted, _ := parseTrustedProxies(cfg.TrustedProxies) // checked by Validate
	s := &Server{cfg: cfg, log: log, router: newRouter(Routes(h)), audits: audits, verifier: verifier, metrics: m,
		trusted: trusted, ipRules: ipRules, limiter: ratelimit.New(cfg.RateLimit.limiter()), meter: lim.Meter, idem: lim.Idempotency}
	s.chain = s.audit(s.limits(s.rateLimit(s.payment(s.authenticate(s.ipFilter(s.usage(s.idempotent(http.HandlerFunc(s.dispatch)))))))))
	return s
}

type routeKey struct{}

// principalSlotKey carries a pointer to the principal id of the request,
// set once authentication succeeds, for the access log.
type principalSlotKey struct{}

func routeFrom(ctx context.Context) *Route {
	r, _ := ctx.Value(routeKey{}).(*Route)
	return r
}

// allowedKey carries the methods a path allows when the method did not match.
type allowedKey struct{}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Context().Err() != nil {
		// The client cancelled the request (an HTTP/2 stream reset) before
		// it was looked at: nothing was done and no answer can reach it.
		s.metrics.ObserveRequest("cancelled", statusClientClosed, 0)
		return
	}
	start := time.Now()
	reqID := obs.RequestID()
	w.Header().Set("X-Request-Id", reqID)
	route, allowed := s.router.match(r)
	// The authentication middleware fills this in for the access log line.
	var principalID string
	ctx := context.WithValue(context.WithValue(r.Context(), routeKey{}, route), principalSlotKey{}, &principalID)
	// Each client's log lines are bounded (obs.ClientLimiter), except this
	// request's access log line: one per request, bounded by the rate limit.
	accessCtx := ctx
	ctx = obs.WithClient(ctx, s.clientIP(r))
	if route == nil && allowed != nil {
		ctx = context.WithValue(ctx, allowedKey{}, allowed)
	}
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	s.chain.ServeHTTP(sw, r.WithContext(ctx))
	name := "unmatched"
	if route != nil {
		name = route.Method + " " + route.Pattern
	}
	latency := time.Since(start)
	s.metrics.ObserveRequest(name, sw.status, latency)
	if s.cfg.AccessLog {
		s.log.LogAttrs(accessCtx, slog.LevelInfo, "request",
			slog.String("request_id", reqID), slog.String("route", name), slog.Int("status", sw.status),
			slog.Duration("latency", latency), slog.String("principal", principalID))
	}
}

// statusClientClosed is the status metrics record for a request its client
// cancelled before it was served (nginx's 499: no answer was sent).
const statusClientClosed = 499

func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	route := routeFrom(r.Context())
	if route == nil {
		if allowed, ok := r.Context().Value(allowedKey{}).([]string); ok {
			methodNotAllowed(w, allowed)
			return
		}
		notFound(w)
		return
	}
	if err := route.Handler(w, r); err != nil {
		p := httperr.Problem(err)
		if p.Status >= 500 {
			ctx := r.Context()
			s.log.LogAttrs(ctx, httperr.LogLevel(ctx), "request failed", slog.String("request_id", auditlog.FromContext(ctx).Event.RequestID),
				slog.String("route", route.Pattern), slog.Bool("client_gone", httperr.ClientGone(ctx)), slog.Any("err", err))
		}
		problem.Write(w, p)
	}
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}
