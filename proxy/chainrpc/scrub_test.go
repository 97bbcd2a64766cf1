package chainrpc

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"testing"

	"github.com/ethereum/go-ethereum/rpc"
	"github.com/stretchr/testify/require"
)

const secretURL = "https://user:hunter22@eth.example-provider.io/v2/SECRETAPIKEY123?apikey=QUERYSECRET"

// secretParts are fragments of secretURL that must never appear in an error.
var secretParts = []string{"SECRETAPIKEY123", "QUERYSECRET", "hunter22", "eth.example-provider.io", secretURL}

// fakeRPCError is a JSON-RPC error as the rpc package returns it.
type fakeRPCError struct {
	code int
	msg  string
	data any
}

func (e fakeRPCError) Error() string  { return e.msg }
func (e fakeRPCError) ErrorCode() int { return e.code }
func (e fakeRPCError) ErrorData() any { return e.data }

func TestRedactorScrubs(t *testing.T) {
	r := newRedactor(secretURL)
	tests := map[string]string{
		"whole url":     "Post " + secretURL + ": refused",
		"host only":     "dial tcp: lookup eth.example-provider.io: no such host",
		"path key":      "404 for /v2/SECRETAPIKEY123",
		"query value":   "bad apikey=QUERYSECRET",
		"escaped query": "bad " + url.QueryEscape("QUERYSECRET"),
		"password":      "auth hunter22 failed",
	}
	for name, msg := range tests {
		t.Run(name, func(t *testing.T) {
			got := r.scrub(msg)
			for _, s := range secretParts {
				require.NotContains(t, got, s)
			}
			require.Contains(t, got, redacted)
		})
	}
	require.Equal(t, "connection refused", r.scrub("connection refused"))
}

func TestNewErrorClassifies(t *testing.T) {
	r := newRedactor(secretURL)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	tests := map[string]struct {
		ctx       context.Context
		err       error
		wantErr   error
		wantRetry bool
	}{
		"url error is transport": {
			err:     &url.Error{Op: "Post", URL: secretURL, Err: errors.New("connection refused")},
			wantErr: ErrUnavailable, wantRetry: true,
		},
		"attempt timeout is retried": {
			err:     &url.Error{Op: "Post", URL: secretURL, Err: context.DeadlineExceeded},
			wantErr: ErrTimeout, wantRetry: true,
		},
		"caller cancel is not retried": {
			ctx: cancelled, err: errors.New("anything"), wantErr: context.Canceled,
		},
		"http 503 is retried": {
			err:     rpc.HTTPError{StatusCode: 503, Status: "503 Service Unavailable", Body: []byte(secretURL)},
			wantErr: ErrUnavailable, wantRetry: true,
		},
		"http 401 is not retried": {
			err:     rpc.HTTPError{StatusCode: 401, Status: "401 Unauthorized"},
			wantErr: ErrUnavailable,
		},
		"json-rpc error": {
			err: fakeRPCError{code: -32000, msg: "boom " + secretURL}, wantErr: ErrNode,
		},
		"method not found code": {
			err: fakeRPCError{code: -32601, msg: "the method eth_simulateV1 does not exist/is not available"}, wantErr: ErrMethodNotFound,
		},
		"method not found text": {
			err: fakeRPCError{code: -32000, msg: "Method eth_simulateV1 not supported"}, wantErr: ErrMethodNotFound,
		},
		"client closed": {err: rpc.ErrClientQuit, wantErr: ErrClosed},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = context.Background()
			}
			e := r.newError(ctx, "eth_call", fmt.Errorf("wrapped: %w", tc.err))
			require.ErrorIs(t, e, tc.wantErr)
			require.Equal(t, tc.wantRetry, e.retry)
			for _, s := range secretParts {
				require.NotContains(t, e.Error(), s)
			}
		})
	}
}

func TestRevertFromError(t *testing.T) {
	r := newRedactor(secretURL)
	tests := map[string]struct {
		err        error
		wantOK     bool
		wantReason string
	}{
		"geth code 3 with data": {
			err:    fakeRPCError{code: 3, msg: "execution reverted: nope", data: fmt.Sprintf("0x%x", errorString("nope"))},
			wantOK: true, wantReason: "nope",
		},
		"message only": {
			err:    fakeRPCError{code: -32000, msg: "execution reverted: paused"},
			wantOK: true, wantReason: "paused",
		},
		"nested data object": {
			err:    fakeRPCError{code: 3, msg: "execution reverted", data: map[string]any{"data": fmt.Sprintf("0x%x", panicCode(1))}},
			wantOK: true, wantReason: "panic 0x1: assertion failed",
		},
		"not a revert":       {err: fakeRPCError{code: -32000, msg: "header not found"}},
		"not a json-rpc err": {err: errors.New("execution reverted")},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			rev, ok := revertFromError(tc.err, r)
			require.Equal(t, tc.wantOK, ok)
			if ok {
				require.Equal(t, tc.wantReason, rev.Reason)
			}
		})
	}
}
