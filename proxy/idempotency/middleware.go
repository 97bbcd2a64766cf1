package idempotency

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"time"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/internal/store"
	"github.com/opencustody/ocv/proxy/auth"
	"github.com/opencustody/ocv/proxy/httperr"
)

// Header names.
const (
	HeaderKey      = "Idempotency-Key"
	HeaderReplayed = "Idempotent-Replayed"
)

// Problem types of this middleware.
const (
	TypeInProgress = "idempotency_in_progress"
	TypeMismatch   = "idempotency_mismatch"
)

// Defaults of Config.
const (
	DefaultTTL     = 24 * time.Hour
	DefaultMaxBody = 1 << 20
)

// DefaultReplayHeaders are the response headers stored and replayed.
var DefaultReplayHeaders = []string{"Content-Type", "Cache-Control", "Content-Location", "Location", "ETag", "Last-Modified"}

// Config tunes the middleware. The zero value is usable.
type Config struct {
	// Applies reports whether a request takes part; nil means every POST.
	Applies func(*http.Request) bool
	// Target names what the request acts on, for its fingerprint; nil means
	// the escaped path and the raw query.
	Target func(*http.Request) string
	// Scope returns the key's organization and principal; nil means the
	// authenticated principal of auth.FromContext. ok=false passes through.
	Scope func(*http.Request) (orgID, principalID string, ok bool)
	// TTL is the replay window (DefaultTTL when 0).
	TTL time.Duration
	// MaxBody bounds a stored response body (DefaultMaxBody when 0); a larger
	// response is not stored and its key is left free.
	MaxBody int
	// ReplayHeaders are the response headers kept (DefaultReplayHeaders when nil).
	ReplayHeaders []string
	// BeforeCommit, if not nil, runs after the handler with the context
	// bound to the idempotent transaction and the handler's status, just
	// before the commit (the proxy stores the request's audit event in
	// the transaction there). An error rolls everything back and is the
	// answer.
	BeforeCommit func(ctx context.Context, r *http.Request, status int) error
	// AfterCommit, if not nil, runs right after each commit of r's
	// idempotent transaction, before anything is answered (a test hook).
	AfterCommit func(r *http.Request)
	// Log receives store failures; nil discards them.
	Log *slog.Logger
}

func (c *Config) defaults() {
	if c.Applies == nil {
		c.Applies = func(r *http.Request) bool { return r.Method == http.MethodPost }
	}
	if c.Target == nil {
		c.Target = func(r *http.Request) string { return r.URL.EscapedPath() + "?" + r.URL.RawQuery }
	}
	if c.Scope == nil {
		c.Scope = principalScope
	}
	if c.TTL <= 0 {
		c.TTL = DefaultTTL
	}
	if c.MaxBody <= 0 {
		c.MaxBody = DefaultMaxBody
	}
	if c.ReplayHeaders == nil {
		c.ReplayHeaders = DefaultReplayHeaders
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

func principalScope(r *http.Request) (string, string, bool) {
	p, ok := auth.FromContext(r.Context())
	if !ok || p.ID == "" {
		return "", "", false
	}
	return p.OrgID, p.ID, true
}

// Middleware applies Idempotency-Key handling over s. Requests it does not
// apply to, without the header, or without a scope pass through. It panics
// when s is nil.
func Middleware(s Store, cfg Config) func(http.Handler) http.Handler {
	if s == nil {
		panic("idempotency: Middleware with a nil Store")
	}
	cfg.defaults()
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			values, present := r.Header[HeaderKey]
			if !present || !cfg.Applies(r) {
				next.ServeHTTP(w, r)
				return
			}
			orgID, principalID, ok := cfg.Scope(r)
			if !ok {
				next.ServeHTTP(w, r)
				return
			}
			if len(values) != 1 || ValidateKey(values[0]) != nil {
				problem.Write(w, problem.BadRequest(problem.TypeInvalidRequest,
					"Idempotency-Key must be given once, as 1 to 255 printable ASCII characters"))
				return
			}
			body, err := io.ReadAll(r.Body)
			if err != nil {
				writeBodyError(w, err)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			k := store.IdempotencyKey{OrgID: orgID, PrincipalID: principalID, Key: values[0]}
			claim := store.IdempotencyClaim{IdempotencyKey: k, RequestHash: RequestHash(r.Method, cfg.Target(r), body), TTL: cfg.TTL}
			var afterCommit func()
			if cfg.AfterCommit != nil {
				afterCommit = func() { cfg.AfterCommit(r) }
			}
			hold, rec, err := s.BeginIdempotent(r.Context(), claim, afterCommit)
			if err != nil {
				cfg.Log.LogAttrs(r.Context(), httperr.LogLevel(r.Context()), "claiming idempotency key",
					slog.String("path", r.URL.EscapedPath()), slog.Any("err", err))
				httperr.Write(w, err)
				return
			}
			if hold == nil {
				answerDuplicate(w, rec, claim.RequestHash)
				return
			}
			serveFirst(w, r, next, hold, &cfg)
		})
	}
}

// serveFirst runs the handler for the holder of the key in its idempotent
// transaction, holding the response back; then it commits the request's
// writes with the response (stored when replayable), and only then
// answers. A response that is not replayable (not 2xx, or too large)
// commits the request's writes without an answer, so that what a refused
// request must leave (a failed-attempt counter, a lockout) stays and the
// key stays free. A panic, or a failed commit, leaves nothing.
func serveFirst(w http.ResponseWriter, r *http.Request, next http.Handler, hold store.IdempotencyHold, cfg *Config) {
	// The outcome is recorded even when the client went away.
	ctx := context.WithoutCancel(r.Context())
	defer hold.Rollback(ctx)
	bound := r.WithContext(hold.Bind(r.Context()))
	cw := newCapture(cfg.ReplayHeaders, cfg.MaxBody)
	next.ServeHTTP(cw, bound)
	if cw.status == 0 {
		cw.start(http.StatusOK) // the handler wrote nothing: net/http sends 200
	}
	if cfg.BeforeCommit != nil {
		if err := cfg.BeforeCommit(context.WithoutCancel(bound.Context()), bound, cw.status); err != nil {
			hold.Rollback(ctx)
			cfg.Log.Error("before committing an idempotent request", "path", r.URL.EscapedPath(), "err", err)
			httperr.Write(w, err)
			return
		}
	}
	var resp *store.IdempotentResponse
	if cw.storable() {
		resp = &store.IdempotentResponse{Status: cw.status, Header: cw.kept, Body: cw.body.Bytes()}
	}
	err := hold.Finish(ctx, resp)
	if errors.Is(err, store.ErrAnswerKept) {
		// Committed at a checkpoint: a retry replays the provisional answer.
		cfg.Log.Error("replacing a checkpoint's idempotent answer", "path", r.URL.EscapedPath(), "err", err)
		err = nil
	}
	if err != nil {
		// Rolled back: nothing happened (or, if the commit's answer was
		// lost after it took effect, the retry replays the stored answer).
		cfg.Log.Error("committing an idempotent request", "path", r.URL.EscapedPath(), "err", err)
		p := problem.New(http.StatusServiceUnavailable, problem.TypeStorageUnavailable,
			"the request could not be committed, so nothing was done; retry with the same Idempotency-Key")
		p.RetryAfter = httperr.RetryAfterSeconds
		problem.Write(w, p)
		return
	}
	cw.sendTo(w)
}

func answerDuplicate(w http.ResponseWriter, rec store.IdempotencyRecord, requestHash []byte) {
	switch {
	case subtle.ConstantTimeCompare(rec.RequestHash, requestHash) != 1:
		problem.Write(w, problem.New(http.StatusUnprocessableEntity, TypeMismatch,
			"this Idempotency-Key was used with a different request"))
	case rec.State != store.IdempotencyDone:
		problem.Write(w, problem.New(http.StatusConflict, TypeInProgress,
			"a request with this Idempotency-Key is still in progress; retry later"))
	default:
		replay(w, rec.Response)
	}
}

// replay answers 200 with the stored body and headers.
func replay(w http.ResponseWriter, resp store.IdempotentResponse) {
	h := w.Header()
	for name, v := range resp.Header {
		h[http.CanonicalHeaderKey(name)] = append([]string(nil), v...)
	}
	h.Set(HeaderReplayed, "true")
	h.Set("Content-Length", strconv.Itoa(len(resp.Body)))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(resp.Body)
}

func writeBodyError(w http.ResponseWriter, err error) {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		problem.Write(w, problem.New(http.StatusRequestEntityTooLarge, problem.TypeTooLarge, "the request body is too large"))
		return
	}
	problem.Write(w, problem.BadRequest(problem.TypeInvalidRequest, "the request body could not be read"))
}
