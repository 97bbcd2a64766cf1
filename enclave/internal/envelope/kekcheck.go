package envelope

import (
	"context"
	"errors"
	"sync"

	"github.com/opencustody/ocv/keyvault"
)

// checkGroup coalesces concurrent KEK liveness checks of one KEK version
// without weakening them: a caller is answered only by a check that began
// after the caller arrived. While a check of a version is running, every
// caller that arrives joins the one next check, which starts when the
// running one ends; so under load a KEK costs about one HSM call per
// round of callers rather than one per caller, and a KEK destroyed before
// a caller arrived still refuses that caller.
type checkGroup struct {
	mu sync.Mutex
	m  map[keyvault.KeyRef]*checkState
}

type checkState struct {
	running *checkCall // began before anyone now waiting arrived
	next    *checkCall // not begun: callers that arrive now join it
}

type checkCall struct {
	done chan struct{}
	err  error
}

// check runs fn (the key store's check of ref) or joins a run of it that
// begins after this call.
func (g *checkGroup) check(ctx context.Context, ref keyvault.KeyRef, fn func() error) error {
	g.mu.Lock()
	if g.m == nil {
		g.m = make(map[keyvault.KeyRef]*checkState)
	}
	st := g.m[ref]
	if st == nil {
		st = &checkState{}
		g.m[ref] = st
	}
	if c := st.next; c != nil {
		// A check that has not begun yet: join it.
		g.mu.Unlock()
		return join(ctx, c, fn)
	}
	c := &checkCall{done: make(chan struct{})}
	if st.running == nil {
		st.running = c
		g.mu.Unlock()
		return g.run(ref, st, c, fn)
	}
	// Lead the next check once the running one is over.
	st.next = c
	prev := st.running
	g.mu.Unlock()
	<-prev.done
	g.mu.Lock()
	st.next = nil
	st.running = c
	g.mu.Unlock()
	return g.run(ref, st, c, fn)
}

// join waits for a check that begins after the caller arrived.
func join(ctx context.Context, c *checkCall, fn func() error) error {
	select {
	case <-c.done:
	case <-ctx.Done():
		return ctx.Err()
	}
	if c.err != nil && (errors.Is(c.err, context.Canceled) || errors.Is(c.err, context.DeadlineExceeded)) && ctx.Err() == nil {
		return fn() // the leader gave up, not the key store: ask for ourselves
	}
	return c.err
}

func (g *checkGroup) run(ref keyvault.KeyRef, st *checkState, c *checkCall, fn func() error) error {
	c.err = fn()
	g.mu.Lock()
	close(c.done)
	if st.running == c {
		st.running = nil
	}
	if st.running == nil && st.next == nil && g.m[ref] == st {
		delete(g.m, ref)
	}
	g.mu.Unlock()
	return c.err
}
