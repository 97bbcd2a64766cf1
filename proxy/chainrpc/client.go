package chainrpc

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"github.com/ethereum/go-ethereum/ethclient"
	"github.com/ethereum/go-ethereum/rpc"
)

// Client talks to one EVM node. Get it from Pool.Client; it is safe for
// concurrent use and stays valid until the Pool is closed.
type Client struct {
	rc  *rpc.Client
	ec  *ethclient.Client
	cfg Config
	red *redactor

	// closed is set by the Pool; HTTP transports would otherwise keep working.
	closed atomic.Bool
}

// close releases the connection; later calls fail with ErrClosed.
func (c *Client) close() {
	c.closed.Store(true)
	c.rc.Close()
}

// read runs a read-only call with a per-attempt timeout, retrying network
// errors and timeouts up to cfg.Retries times with a short linear backoff.
func (c *Client) read(ctx context.Context, method string, fn func(ctx context.Context) error) error {
	for attempt := 0; ; attempt++ {
		err := c.attempt(ctx, method, fn)
		var e *Error
		if err == nil || !errors.As(err, &e) || !e.retry || attempt >= c.cfg.Retries {
			return err
		}
		t := time.NewTimer(time.Duration(attempt+1) * retryBackoff)
		select {
		case <-ctx.Done():
			t.Stop()
			return c.red.newError(ctx, method, ctx.Err())
		case <-t.C:
		}
	}
}

// attempt runs fn once under the per-call timeout and classifies its error:
// a revert becomes a *RevertError (wrapped with the method), anything else an
// *Error. Neither carries the RPC URL.
func (c *Client) attempt(ctx context.Context, method string, fn func(ctx context.Context) error) error {
	if c.closed.Load() {
		return &Error{Method: method, kind: ErrClosed}
	}
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	err := fn(actx)
	if err == nil {
		return nil
	}
	if rev, ok := revertFromError(err, c.red); ok {
		return &methodError{method: method, err: rev}
	}
	return c.red.newError(ctx, method, err)
}

// methodError prefixes a typed error with the JSON-RPC method.
type methodError struct {
	method string
	err    error
}

func (e *methodError) Error() string { return "chainrpc: " + e.method + ": " + e.err.Error() }
func (e *methodError) Unwrap() error { return e.err }
