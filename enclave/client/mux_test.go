package client_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
)

// TestMultiplexedAnswersMatch: many callers share the pooled connections
// (more callers than connections, so calls are pipelined) and each gets
// the answer to its own request, never another's.
func TestMultiplexedAnswersMatch(t *testing.T) {
	e := newEnv(t)
	e.start(t)
	c := e.client(t, testPCR0)
	waitAttested(t, c)
	ctx := context.Background()
	_, err := c.CreateKEK(ctx, mint(t, e, "u-owner", "user", "owner"), "org", "vault")
	require.NoError(t, err)
	const callers = 24
	reqs := make([]wire.OpenRequest, callers)
	for i := range callers {
		path := fmt.Sprintf("p/%d", i)
		sealed, err := c.Seal(ctx, wire.SealRequest{OrgID: "org", VaultID: "vault", Path: path, SecretVersion: 1, Plaintext: []byte(path)})
		require.NoError(t, err)
		reqs[i] = wire.OpenRequest{OrgID: "org", VaultID: "vault", Path: path, SecretVersion: 1, WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext}
	}
	var wg sync.WaitGroup
	errs := make(chan error, callers)
	for i := range callers {
		wg.Go(func() {
			for range 30 {
				pt, err := c.Open(ctx, reqs[i])
				if err == nil && string(pt) != reqs[i].Path {
					err = fmt.Errorf("caller %d got %q", i, pt)
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// TestCallGivingUpLeavesOthers: a call whose budget runs out ends alone;
// the connection it shared keeps serving the others.
func TestCallGivingUpLeavesOthers(t *testing.T) {
	e := newEnv(t)
	e.start(t)
	c := e.client(t, testPCR0)
	waitAttested(t, c)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for range 8 {
		wg.Go(func() {
			for range 40 {
				if _, err := c.Health(ctx); err != nil {
					errs <- err
					return
				}
			}
		})
		wg.Go(func() {
			for range 40 {
				short, cancel := context.WithTimeout(ctx, time.Microsecond)
				_, err := c.Health(short)
				cancel()
				if err != nil && !errors.Is(err, wire.ErrUnavailable) {
					errs <- fmt.Errorf("a call out of time: %w", err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	_, err := c.Health(ctx)
	require.NoError(t, err)
	require.True(t, c.State().Attested, "calls giving up do not mark the channel down")
}
