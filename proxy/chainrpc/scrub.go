package chainrpc

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/url"
	"slices"
	"strings"

	"github.com/ethereum/go-ethereum/rpc"
)

// redacted replaces every fragment of the RPC URL found in an error text.
const redacted = "[redacted]"

// redactor removes an RPC URL, and every part of it that could be a
// credential, from error texts. Why: provider URLs carry API keys in the
// path, query or user info, and error texts end up in logs and problem
// responses.
type redactor struct {
	secrets []string // longest first, so a fragment never hides a longer one
}

// newRedactor collects the fragments of rawURL worth hiding. Fragments too
// short to be credentials ("/", "v2") are skipped so messages stay readable.
func newRedactor(rawURL string) *redactor {
	add := func(set map[string]struct{}, s string, min int) {
		if len(s) >= min {
			set[s] = struct{}{}
		}
	}
	set := map[string]struct{}{}
	add(set, rawURL, 1)
	if u, err := url.Parse(rawURL); err == nil {
		add(set, u.Host, 4)
		add(set, u.Hostname(), 4)
		add(set, u.User.String(), 1)
		add(set, u.RawQuery, 4)
		add(set, u.Fragment, 4)
		add(set, u.EscapedPath(), 6)
		add(set, u.Path, 6)
		for _, seg := range strings.Split(u.Path, "/") {
			add(set, seg, 6)
		}
		for _, vals := range u.Query() {
			for _, v := range vals {
				add(set, v, 4)
				add(set, url.QueryEscape(v), 4)
			}
		}
		if u.User != nil {
			add(set, u.User.Username(), 4)
			if p, ok := u.User.Password(); ok {
				add(set, p, 1)
			}
		}
	}
	r := &redactor{}
	for s := range set {
		r.secrets = append(r.secrets, s)
	}
	slices.SortFunc(r.secrets, func(a, b string) int { return len(b) - len(a) })
	return r
}

// scrub returns msg without any URL fragment.
func (r *redactor) scrub(msg string) string {
	for _, s := range r.secrets {
		msg = strings.ReplaceAll(msg, s, redacted)
	}
	return msg
}

// newError classifies a transport or node error into an *Error whose message
// is scrubbed. ctx is the caller's context (not the per-attempt one), used to
// tell the caller's cancellation from a per-call timeout.
func (r *redactor) newError(ctx context.Context, method string, err error) *Error {
	e := &Error{Method: method, kind: ErrUnavailable}
	var (
		httpErr rpc.HTTPError
		rpcErr  rpc.Error
		urlErr  *url.Error
		netErr  net.Error
		jsonSyn *json.SyntaxError
		jsonTyp *json.UnmarshalTypeError
	)
	msg := err.Error()
	if errors.As(err, &urlErr) {
		// url.Error.Error() quotes the whole URL; keep only the inner text.
		msg = urlErr.Err.Error()
	}
	switch {
	case ctx.Err() != nil:
		e.kind, e.cause, msg = ctx.Err(), ctx.Err(), ""
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			e.kind = ErrTimeout
		}
	case errors.Is(err, context.DeadlineExceeded):
		e.kind, e.retry, msg = ErrTimeout, true, ""
	case errors.Is(err, context.Canceled):
		e.kind, e.cause, msg = context.Canceled, context.Canceled, ""
	case errors.Is(err, rpc.ErrClientQuit):
		e.kind, msg = ErrClosed, ""
	case errors.As(err, &httpErr):
		e.Code = httpErr.StatusCode
		e.retry = httpErr.StatusCode >= 500 || httpErr.StatusCode == 429 || httpErr.StatusCode == 408
		msg = httpErr.Status
	case errors.As(err, &rpcErr):
		e.Code, e.kind = rpcErr.ErrorCode(), ErrNode
		if isMethodNotFound(e.Code, msg) {
			e.kind = ErrMethodNotFound
		}
	case errors.As(err, &jsonSyn), errors.As(err, &jsonTyp):
		e.kind = ErrInvalidResponse
	case urlErr != nil, errors.As(err, &netErr), errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		e.retry = true
	}
	e.Message = r.scrub(msg)
	return e
}

// isMethodNotFound recognises "no such method" answers: the standard code,
// and the texts providers use with other codes.
func isMethodNotFound(code int, msg string) bool {
	if code == -32601 {
		return true
	}
	m := strings.ToLower(msg)
	if !strings.Contains(m, "method") {
		return false
	}
	for _, s := range []string{"not found", "does not exist", "not supported", "not available", "unsupported"} {
		if strings.Contains(m, s) {
			return true
		}
	}
	return false
}
