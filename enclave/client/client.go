package client

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/opencustody/ocv/enclave/wire"
)

// Backoff of the background re-attestation loop.
const (
	minBackoff = 50 * time.Millisecond
	maxBackoff = 5 * time.Second
)

// Client is a pool of attested connections to one enclave. It is safe for
// concurrent use; each connection carries one request at a time.
type Client struct {
	cfg  Config
	addr wire.Addr
	log  *slog.Logger

	idle  chan *conn    // attested connections not in use
	slots chan struct{} // one token per open connection, PoolSize in all
	gen   atomic.Uint64 // bumped when the enclave went away: older conns are dropped

	mu    sync.Mutex // guards state transitions
	state atomic.Pointer[State]

	kick   chan struct{}
	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	once   sync.Once
}

// New returns a Client and starts its background loop, which dials and
// attests the enclave and re-attests after it restarts. It fails only on a
// bad Config, never because the enclave is down: until a document is
// validated, calls fail fast with wire.ErrUnavailable. The loop runs until
// ctx is done or Close is called.
func New(ctx context.Context, cfg Config) (*Client, error) {
	cfg, addr, err := cfg.withDefaults()
	if err != nil {
		return nil, err
	}
	c := &Client{
		cfg: cfg, addr: addr, log: cfg.Logger,
		idle:  make(chan *conn, cfg.PoolSize),
		slots: make(chan struct{}, cfg.PoolSize),
		kick:  make(chan struct{}, 1),
		done:  make(chan struct{}),
	}
	c.state.Store(&State{Reason: "connecting", Since: time.Now()})
	c.ctx, c.cancel = context.WithCancel(ctx)
	go c.maintain()
	return c, nil
}

// Close stops the background loop and closes idle connections; calls in
// flight finish and their connections are closed as they come back.
func (c *Client) Close() error {
	c.once.Do(func() {
		c.cancel()
		<-c.done
		c.drainIdle()
		c.setDown("client closed")
	})
	return nil
}

// State reports the channel's trust state.
func (c *Client) State() State { return *c.state.Load() }

func (c *Client) setUp(cn *conn) {
	mode := wire.ModeNitro
	if cn.result.Simulated {
		mode = wire.ModeSimulated
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.state.Load(); st.Attested && st.Mode == mode {
		return
	}
	c.state.Store(&State{Attested: true, Since: time.Now(), Mode: mode, Simulated: cn.result.Simulated})
	c.log.Info("enclave channel attested", "addr", c.addr.String(), "mode", mode, "module_id", cn.result.ModuleID)
}

// setDown marks the channel unusable: calls fail fast and the background
// loop starts re-attesting. Idle connections are dropped with it.
func (c *Client) setDown(reason string) {
	c.mu.Lock()
	st := c.state.Load()
	changed := st.Attested || st.Reason != reason
	if changed {
		since := st.Since
		if st.Attested {
			since = time.Now()
		}
		c.state.Store(&State{Reason: reason, Since: since, Mode: st.Mode, Simulated: st.Simulated})
	}
	c.mu.Unlock()
	if changed && c.ctx.Err() == nil {
		c.log.Warn("enclave channel down", "addr", c.addr.String(), "reason", reason)
	}
	c.gen.Add(1)
	c.drainIdle()
	select {
	case c.kick <- struct{}{}:
	default:
	}
}

// maintain re-attests whenever the channel is down, with backoff.
func (c *Client) maintain() {
	defer close(c.done)
	backoff := minBackoff
	for {
		if !c.State().Attested {
			if err := c.probe(); err != nil {
				c.setDown(err.Error())
				select {
				case <-time.After(backoff):
				case <-c.ctx.Done():
					return
				}
				backoff = min(2*backoff, maxBackoff)
				continue
			}
			backoff = minBackoff
		}
		select {
		case <-c.kick:
		case <-c.ctx.Done():
			return
		}
	}
}

// probe opens one attested connection and parks it in the pool.
func (c *Client) probe() error {
	c.drainIdle() // while down, every idle connection is stale
	select {
	case c.slots <- struct{}{}:
	default:
		return errors.New("dial: connection pool exhausted")
	}
	cn, err := c.openConn(c.ctx, time.Now().Add(c.cfg.DialTimeout))
	if err != nil {
		<-c.slots
		return err
	}
	c.release(cn, nil)
	return nil
}

// openConn dials and attests a connection for the slot the caller holds,
// within DialTimeout and before deadline.
func (c *Client) openConn(ctx context.Context, deadline time.Time) (*conn, error) {
	gen := c.gen.Load()
	cn, err := open(ctx, c.addr, c.cfg.Validator, c.cfg.Identity, min(c.cfg.DialTimeout, time.Until(deadline)))
	if err != nil {
		return nil, err
	}
	cn.gen = gen
	c.setUp(cn)
	return cn, nil
}

// acquire returns a connection for one call, waiting (until deadline) for
// one to come back when the pool is full. It fails fast with
// wire.ErrUnavailable when the channel is not attested.
func (c *Client) acquire(ctx context.Context, deadline time.Time) (*conn, error) {
	var timer *time.Timer
	defer func() {
		if timer != nil {
			timer.Stop()
		}
	}()
	for {
		if st := c.State(); !st.Attested {
			return nil, fmt.Errorf("%w: enclave channel not attested: %s", wire.ErrUnavailable, st.Reason)
		}
		select { // fast path: an idle connection, no timer
		case cn := <-c.idle:
			if cn.gen != c.gen.Load() {
				c.discard(cn)
				continue
			}
			return cn, nil
		default:
		}
		if timer == nil {
			timer = time.NewTimer(time.Until(deadline))
		}
		select {
		case cn := <-c.idle:
			if cn.gen != c.gen.Load() {
				c.discard(cn)
				continue
			}
			return cn, nil
		case c.slots <- struct{}{}:
			cn, err := c.openConn(ctx, deadline)
			if err == nil {
				return cn, nil
			}
			<-c.slots
			if isTimeout(err) {
				// A handshake slower than DialTimeout (a loaded host) or cut
				// short by the caller's budget says the enclave is busy, not
				// gone: the channel stays up, as after a call that timed out,
				// and this call waits for a connection to come back (or dials
				// again) within its own budget.
				if ctx.Err() == nil && time.Now().Before(deadline) {
					continue
				}
				return nil, fmt.Errorf("%w: %w", wire.ErrUnavailable, err)
			}
			if ctx.Err() == nil {
				c.setDown(err.Error())
			}
			return nil, fmt.Errorf("%w: %w", wire.ErrUnavailable, err)
		case <-timer.C:
			return nil, fmt.Errorf("%w: waiting for an enclave connection: %w", wire.ErrUnavailable, context.DeadlineExceeded)
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: waiting for an enclave connection: %w", wire.ErrUnavailable, ctx.Err())
		}
	}
}

// release puts a connection back after a call, or drops it when the call
// broke it.
func (c *Client) release(cn *conn, err error) {
	if isBroken(err) || cn.gen != c.gen.Load() || c.ctx.Err() != nil {
		c.discard(cn)
		return
	}
	select {
	case c.idle <- cn:
	default:
		c.discard(cn) // cannot happen: there are no more conns than slots
	}
}

func (c *Client) discard(cn *conn) {
	cn.close()
	<-c.slots
}

func (c *Client) drainIdle() {
	for {
		select {
		case cn := <-c.idle:
			c.discard(cn)
		default:
			return
		}
	}
}

// isTimeout reports a deadline hit (the call's budget), which says nothing
// about the enclave's health.
func isTimeout(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)
}

func isBroken(err error) bool {
	if err == nil {
		return false
	}
	var broken *brokenError
	return errors.As(err, &broken)
}
