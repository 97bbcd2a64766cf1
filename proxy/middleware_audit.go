package proxy

import (
	"bytes"
	"context"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/auditchain"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auditlog"
	"github.com/opencustody/ocv/proxy/httperr"
)

// Appender stores an audit event durably before it returns.
type Appender interface {
	Append(ctx context.Context, ev *auditchain.Event) error
}

// maxResourceBytes bounds what an unmatched request path puts in an event.
const maxResourceBytes = 256

// audit is the outermost middleware (spec order 1): every request becomes
// an audit event, stored before its response leaves. The response is
// buffered until the event is durable; if it cannot be stored, the client
// gets a 503 instead (fail closed).
func (s *Server) audit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		route := routeFrom(r.Context())
		action := "http.request"
		if route != nil {
			action = route.Action
		}
		resource := r.URL.EscapedPath()
		if len(resource) > maxResourceBytes {
			resource = resource[:maxResourceBytes]
		}
		// occurred_at is a record of this replica's time, not an expiry
		// decision: it stays on time.Now (docs/architecture.md, "Clocks").
		entry := &auditlog.Entry{Event: auditchain.Event{
			OrgID: auditchain.SystemOrg, OccurredAt: time.Now().UTC().Truncate(time.Microsecond),
			RequestID: w.Header().Get("X-Request-Id"), ActorType: "anonymous", Action: action,
			Resource: resource, ClientIP: s.clientIP(r),
		}}
		bw := bufferPool.Get().(*bufferedWriter)
		bw.reset(w)
		defer bufferPool.Put(bw)

		next.ServeHTTP(bw, r.WithContext(auditlog.WithEntry(r.Context(), entry)))

		// A 503 health answer (a dependency down) serves nothing: it leaves
		// at once, unaudited, so that it never waits on the database it may
		// be reporting down and stays within its own deadline.
		healthDown := action == "health.read" && bw.status == http.StatusServiceUnavailable
		if !entry.IsPersisted() && !healthDown {
			// The event is stored even when the client went away meanwhile:
			// its request was received and is audited all the same (the
			// store's own deadlines still bound the wait).
			if err := s.audits.Append(context.WithoutCancel(r.Context()), entry.Prepare(bw.status)); err != nil {
				s.log.LogAttrs(r.Context(), slog.LevelError, "storing audit event; failing the request",
					slog.String("request_id", entry.Event.RequestID), slog.Any("err", err))
				bw.discard()
				p := problem.New(http.StatusServiceUnavailable, problem.TypeAuditUnavailable,
					"the request could not be audited, so it was not served; retry after the Retry-After delay")
				if store.Unavailable(err) {
					// The database itself is down: say so, as the handlers do.
					p = httperr.Problem(err)
				}
				p.RetryAfter = httperr.RetryAfterSeconds
				problem.Write(bw, p)
			}
		}
		bw.flush()
	})
}

// bufferedWriter holds a response until its audit event is durable.
type bufferedWriter struct {
	w       http.ResponseWriter
	status  int
	wrote   bool
	body    bytes.Buffer
	pending http.Header
}

var bufferPool = sync.Pool{New: func() any { return &bufferedWriter{pending: http.Header{}} }}

func (b *bufferedWriter) reset(w http.ResponseWriter) {
	b.w, b.status, b.wrote = w, http.StatusOK, false
	b.body.Reset()
	clear(b.pending)
}

func (b *bufferedWriter) Header() http.Header { return b.pending }

func (b *bufferedWriter) WriteHeader(status int) {
	if !b.wrote {
		b.status, b.wrote = status, true
	}
}

func (b *bufferedWriter) Write(p []byte) (int, error) {
	b.wrote = true
	return b.body.Write(p)
}

// discard drops what the handler wrote (headers and body).
func (b *bufferedWriter) discard() {
	b.status, b.wrote = http.StatusOK, false
	b.body.Reset()
	clear(b.pending)
}

func (b *bufferedWriter) flush() {
	h := b.w.Header()
	for k, v := range b.pending {
		h[k] = v
	}
	if b.body.Len() > 0 && h.Get("Content-Length") == "" {
		h.Set("Content-Length", strconv.Itoa(b.body.Len()))
	}
	b.w.WriteHeader(b.status)
	if b.body.Len() > 0 {
		_, _ = b.w.Write(b.body.Bytes())
	}
	b.w = nil
}
