//go:build cgo

package pkcs11_test

import (
	"runtime"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/pkcs11"
)

// TestSessionsReplaced closes every pooled session behind the Store's back
// (closing the last session also logs the user out). Operations must go on:
// the pool sees CKR_SESSION_HANDLE_INVALID, opens and logs in anew, retries.
func TestSessionsReplaced(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := newStore(t)
	sigRef := keyvault.KeyRef{ID: "agent/replace", Version: 1}
	kek := keyvault.KeyRef{ID: "kek/replace", Version: 1}
	_, err := s.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: sigRef, Algorithm: keyvault.P256})
	require.NoError(t, err)
	_, err = s.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: kek, Algorithm: keyvault.AES256})
	require.NoError(t, err)
	sg, err := s.Signer(ctx, sigRef)
	require.NoError(t, err)

	for round := range 3 {
		require.Equal(t, pkcs11.PoolSize(s), pkcs11.BreakSessions(s), "round %d", round)
		var wg sync.WaitGroup
		errs := make(chan error, 2*pkcs11.PoolSize(s))
		for range cap(errs) {
			wg.Go(func() {
				d := make([]byte, 32)
				if _, err := sg.SignDigest(ctx, d); err != nil {
					errs <- err
					return
				}
				w, err := s.WrapKey(ctx, kek, d)
				if err == nil {
					_, err = s.UnwrapKey(ctx, kek, w)
				}
				if err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
	}
}

func TestPoolSizeDefault(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	require.Equal(t, min(max(2*runtime.GOMAXPROCS(0), 2), 64), pkcs11.PoolSize(s))
	small := newStore(t, func(c *pkcs11.Config) { c.PoolSize = 1 })
	require.Equal(t, 1, pkcs11.PoolSize(small))
	// One session still serves many goroutines, one at a time.
	ref := keyvault.KeyRef{ID: "agent/small", Version: 1}
	_, err := small.CreateKey(t.Context(), keyvault.CreateKeyRequest{Ref: ref, Algorithm: keyvault.Ed25519})
	require.NoError(t, err)
	sg, err := small.Signer(t.Context(), ref)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			_, err := sg.SignDigest(t.Context(), []byte("m"))
			assert.NoError(t, err)
		})
	}
	wg.Wait()
}
