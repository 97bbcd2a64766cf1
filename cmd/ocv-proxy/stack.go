package main

import (
	"context"

	"golang.org/x/sync/errgroup"
)

// stack runs the proxy's server and background loops under one errgroup
// and, only once every one of them has returned, runs the closers of what
// the wiring opened, in reverse order of creation.
//
// The server runs on the group's context, which ends on SIGINT/SIGTERM or
// when a member fails. The loops run on their own context, which ends once
// the server has returned (after its bounded graceful shutdown): while
// requests in flight finish, revocations, cut-offs, IP rules and the audit
// sealer stay current, as they did before the loops were joined.
type stack struct {
	g         *errgroup.Group
	ctx       context.Context // the server's
	loops     context.Context // the loops'
	stopLoops context.CancelFunc
	serving   bool
	closers   []func()
}

func newStack(ctx context.Context) *stack {
	g, gctx := errgroup.WithContext(ctx)
	loops, stop := context.WithCancel(context.WithoutCancel(ctx))
	return &stack{g: g, ctx: gctx, loops: loops, stopLoops: stop}
}

// onClose registers fn to run after every member of the group has
// returned, before the closers registered earlier.
func (s *stack) onClose(fn func()) { s.closers = append(s.closers, fn) }

// loop runs f in the group; f must return when its context ends. A nil
// error is the normal end; an error ends the group.
func (s *stack) loop(f func(context.Context) error) { s.g.Go(func() error { return f(s.loops) }) }

// serve runs the server f in the group; once it returns, the loops stop.
func (s *stack) serve(f func(context.Context) error) {
	s.serving = true
	s.g.Go(func() error {
		defer s.stopLoops()
		return f(s.ctx)
	})
}

// wait returns once the server and every loop have returned, after it ran
// the closers. If the server never started (the wiring failed), the loops
// already started are stopped first. It returns the first member's error.
func (s *stack) wait() error {
	if !s.serving {
		s.stopLoops()
	}
	err := s.g.Wait()
	s.stopLoops()
	for i := len(s.closers) - 1; i >= 0; i-- {
		s.closers[i]()
	}
	return err
}

// quiet fits a loop that reports its own failures to stack.loop.
func quiet(run func(context.Context)) func(context.Context) error {
	return func(ctx context.Context) error {
		run(ctx)
		return nil
	}
}
