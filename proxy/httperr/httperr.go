// Package httperr is the one place where an error becomes an HTTP answer:
// every handler and middleware of the proxy returns or passes its error
// here, and a new error type is mapped to its problem type in this file
// alone. It is untrusted edge code.
package httperr

import (
	"context"
	"errors"
	"log/slog"
	"net/http"

	"github.com/opencustody/ocv/api/problem"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/internal/store"
)

// RetryAfterSeconds is the Retry-After of a 503 for an unavailable
// dependency.
const RetryAfterSeconds = 5

// Problem maps err to its problem: a *problem.Problem as it is, a store
// not-found to a 404 naming the resource, the other sentinels of the store
// and the enclave channel to theirs, and anything else to a 500 whose
// detail says nothing of the internal error.
func Problem(err error) *problem.Problem {
	var p *problem.Problem
	var nf *store.NotFoundError
	switch {
	case errors.As(err, &p):
		return p
	case errors.As(err, &nf):
		return problem.NotFound(nf.Resource)
	case errors.Is(err, store.ErrNotFound):
		return problem.NotFound("resource")
	case errors.Is(err, store.ErrConflict):
		return problem.New(http.StatusConflict, problem.TypeConflict, "the request conflicts with an existing resource")
	case errors.Is(err, wire.ErrIntegrity):
		return problem.New(http.StatusInternalServerError, problem.TypeIntegrity,
			"the stored value failed its integrity check and was not decrypted")
	case errors.Is(err, wire.ErrKEKDestroyed):
		return problem.New(http.StatusGone, problem.TypeKEKDestroyed,
			"the key-encryption key that sealed the value is gone from the HSM; the value can never be read again")
	case errors.Is(err, wire.ErrPrivateKeyBlocked):
		return problem.PrivateKeyBlocked()
	case errors.Is(err, wire.ErrForbidden):
		// The enclave refused to act for this caller: its own check of the
		// token and the vault's policy set disagrees with the proxy's.
		return problem.New(http.StatusForbidden, problem.TypePolicyDenied, "access denied by policy")
	case errors.Is(err, wire.ErrUnavailable):
		return problem.New(http.StatusServiceUnavailable, problem.TypeEnclaveUnavailable,
			"the enclave is unavailable or not attested; see /v1/health/hsm")
	case store.Unavailable(err):
		p := problem.New(http.StatusServiceUnavailable, problem.TypeStorageUnavailable,
			"the database is unavailable or too slow to answer; retry after the Retry-After delay")
		p.RetryAfter = RetryAfterSeconds
		return p
	default:
		return problem.New(http.StatusInternalServerError, problem.TypeInternal, "an unexpected error occurred")
	}
}

// Write sends the problem of err.
func Write(w http.ResponseWriter, err error) { problem.Write(w, Problem(err)) }

// ClientGone reports whether the request of ctx was cancelled because its
// client went away: it closed the connection or reset the HTTP/2 stream
// (net/http then cancels the request's context). What fails after that is
// the client's doing, not the server's.
func ClientGone(ctx context.Context) bool { return errors.Is(ctx.Err(), context.Canceled) }

// LogLevel is the level of the log line of a request that failed with ctx
// as its context: Info when its client went away (a flood of cancelled
// requests is no flood of errors), Error otherwise.
func LogLevel(ctx context.Context) slog.Level {
	if ClientGone(ctx) {
		return slog.LevelInfo
	}
	return slog.LevelError
}
