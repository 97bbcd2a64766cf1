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
// concurrent use. Each connection carries up to maxPipeline calls at once
// (their requests and answers batched into shared writes under load); a
// new connection is opened, up to PoolSize, only when every open one is
// that busy, so PoolSize bounds the calls in flight at
// PoolSize*maxPipeline.
type Client struct {
	cfg  Config
	addr wire.Addr
	log  *slog.Logger

	pmu     sync.Mutex
	conns   []*conn       // open connections, at most PoolSize with dialing
	dialing int           // connections being opened
	changed chan struct{} // closed (and replaced) when a call gives back a connection
	gen     atomic.Uint64 // bumped when the enclave went away: older conns are dropped

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
		changed: make(chan struct{}),
		kick:    make(chan struct{}, 1),
		done:    make(chan struct{}),
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
	if !c.reserve() {
		return errors.New("dial: connection pool exhausted")
	}
	cn, err := c.openConn(c.ctx, time.Now().Add(c.cfg.DialTimeout))
	c.admit(cn, 0)
	return err
}

// reserve takes a slot for a connection to open, if the pool has one.
func (c *Client) reserve() bool {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	if len(c.conns)+c.dialing >= c.cfg.PoolSize {
		return false
	}
	c.dialing++
	return true
}

// admit ends a reservation: cn (nil when the dial failed) joins the pool
// with calls already on it.
func (c *Client) admit(cn *conn, calls int) {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	c.dialing--
	if cn != nil {
		cn.inflight = calls
		c.conns = append(c.conns, cn)
	}
	c.notifyLocked()
}

// openConn dials, attests and multiplexes a connection for the slot the
// caller reserved, within DialTimeout and before deadline.
func (c *Client) openConn(ctx context.Context, deadline time.Time) (*conn, error) {
	gen := c.gen.Load()
	cn, err := open(ctx, c.addr, c.cfg.Validator, c.cfg.Identity, min(c.cfg.DialTimeout, time.Until(deadline)))
	if err != nil {
		return nil, err
	}
	cn.gen = gen
	cn.startMux()
	c.setUp(cn)
	return cn, nil
}

// takeLocked picks the least busy usable connection with room for another
// call and counts the call on it; on the way it drops connections that
// died or went stale with no call left on them. The caller holds pmu.
func (c *Client) takeLocked() *conn {
	gen := c.gen.Load()
	var best *conn
	for _, cn := range append([]*conn(nil), c.conns...) {
		usable := cn.gen == gen && !cn.isDead()
		if !usable && cn.inflight == 0 {
			c.removeLocked(cn)
		}
		if !usable || cn.inflight >= maxPipeline {
			continue
		}
		if best == nil || cn.inflight < best.inflight {
			best = cn
		}
	}
	if best != nil {
		best.inflight++
	}
	return best
}

func (c *Client) notifyLocked() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// acquire returns a connection for one call, waiting (until deadline) for
// room on one when every connection is busy and the pool is full. It fails
// fast with wire.ErrUnavailable when the channel is not attested.
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
		c.pmu.Lock()
		// A busy connection is shared (its calls batch) before another is
		// opened: a new one only when every open one is full.
		if cn := c.takeLocked(); cn != nil {
			c.pmu.Unlock()
			return cn, nil
		}
		if len(c.conns)+c.dialing < c.cfg.PoolSize {
			c.dialing++
			c.pmu.Unlock()
			budgetShort := time.Until(deadline) < c.cfg.DialTimeout
			cn, err := c.openConn(ctx, deadline)
			c.admit(cn, 1)
			if err != nil {
				// A dial cut short by the caller's own budget says nothing
				// about the enclave.
				if !(budgetShort && isTimeout(err)) && ctx.Err() == nil {
					c.setDown(err.Error())
				}
				return nil, fmt.Errorf("%w: %w", wire.ErrUnavailable, err)
			}
			return cn, nil
		}
		changed := c.changed
		c.pmu.Unlock()
		if timer == nil {
			timer = time.NewTimer(time.Until(deadline))
		}
		select {
		case <-changed:
		case <-timer.C:
			return nil, fmt.Errorf("%w: waiting for an enclave connection: %w", wire.ErrUnavailable, context.DeadlineExceeded)
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: waiting for an enclave connection: %w", wire.ErrUnavailable, ctx.Err())
		}
	}
}

// release ends a call on a connection. A connection the call broke is
// failed (its other calls end too) and, like one of an older generation
// or of a closed client, leaves the pool once its last call is over.
func (c *Client) release(cn *conn, err error) {
	if isBroken(err) {
		cn.fail(err)
	}
	c.pmu.Lock()
	defer c.pmu.Unlock()
	cn.inflight--
	if cn.inflight == 0 && (cn.isDead() || cn.gen != c.gen.Load() || c.ctx.Err() != nil) {
		c.removeLocked(cn)
	}
	c.notifyLocked()
}

// removeLocked closes cn and takes it out of the pool. The caller holds pmu.
func (c *Client) removeLocked(cn *conn) {
	cn.close()
	for i, x := range c.conns {
		if x == cn {
			c.conns = append(c.conns[:i], c.conns[i+1:]...)
			break
		}
	}
}

// drainIdle closes every connection no call is using; busy ones leave the
// pool when their last call ends (their generation is stale by then).
func (c *Client) drainIdle() {
	c.pmu.Lock()
	defer c.pmu.Unlock()
	for _, cn := range append([]*conn(nil), c.conns...) {
		if cn.inflight == 0 {
			c.removeLocked(cn)
		}
	}
	c.notifyLocked()
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
