package main

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"
)

// recorder notes events in order, from any goroutine.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) note(e string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.events...)
}

func TestStackStopsLoopsAfterTheServerThenCloses(t *testing.T) {
	defer goleak.VerifyNone(t)
	var r recorder
	ctx, cancel := context.WithCancel(context.Background())
	s := newStack(ctx)
	s.onClose(func() { r.note("close db") })
	s.loop(func(ctx context.Context) error {
		<-ctx.Done()
		time.Sleep(20 * time.Millisecond) // a loop that takes a moment to wind down
		r.note("loop returned")
		return nil
	})
	s.onClose(func() { r.note("close audits") })
	s.serve(func(ctx context.Context) error {
		<-ctx.Done()
		r.note("server shut down")
		return nil
	})
	cancel()
	require.NoError(t, s.wait())
	require.Equal(t, []string{"server shut down", "loop returned", "close audits", "close db"}, r.all(),
		"the loops run until the server has shut down, and everything closes after them, in reverse order")
}

func TestStackFailedStartStopsTheLoopsStarted(t *testing.T) {
	defer goleak.VerifyNone(t)
	var r recorder
	s := newStack(context.Background())
	s.onClose(func() { r.note("close db") })
	s.loop(func(ctx context.Context) error {
		<-ctx.Done()
		r.note("loop returned")
		return nil
	})
	// The wiring fails here: serve is never called.
	require.NoError(t, s.wait())
	require.Equal(t, []string{"loop returned", "close db"}, r.all())
}

func TestStackServerErrorEndsTheGroup(t *testing.T) {
	defer goleak.VerifyNone(t)
	var r recorder
	errServe := errors.New("serving: listener broke")
	s := newStack(context.Background())
	s.loop(func(ctx context.Context) error {
		<-ctx.Done()
		r.note("loop returned")
		return nil
	})
	s.onClose(func() { r.note("close db") })
	s.serve(func(context.Context) error { return errServe })
	require.ErrorIs(t, s.wait(), errServe)
	require.Equal(t, []string{"loop returned", "close db"}, r.all())
}

func TestStackLoopErrorStopsTheServer(t *testing.T) {
	defer goleak.VerifyNone(t)
	var r recorder
	errLoop := errors.New("fatal")
	s := newStack(context.Background())
	s.loop(func(context.Context) error { return errLoop })
	s.loop(func(ctx context.Context) error {
		<-ctx.Done()
		r.note("other loop returned")
		return nil
	})
	s.serve(func(ctx context.Context) error {
		<-ctx.Done()
		r.note("server shut down")
		return nil
	})
	require.ErrorIs(t, s.wait(), errLoop)
	require.Equal(t, []string{"server shut down", "other loop returned"}, r.all())
}
