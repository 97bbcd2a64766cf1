package keyvaulttest

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

const (
	workers    = 16
	iterations = 20
)

func (x *exercise) concurrent(t *testing.T) {
	ctx := t.Context()
	signers := make([]keyvault.DigestSigner, 0, len(signingAlgorithms))
	for _, alg := range signingAlgorithms {
		ref := x.ref("concurrent/"+string(alg), 1)
		x.mustCreate(t, ref, alg)
		s, err := x.ks.Signer(ctx, ref)
		require.NoError(t, err)
		signers = append(signers, s)
	}
	kek := x.ref("concurrent/kek", 1)
	x.mustCreate(t, kek, keyvault.AES256)
	kw, _ := x.ks.(keyvault.KeyWrapper)
	mc := x.macCheck(t)

	errs := make(chan error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range iterations {
				if err := x.work(t, signers[(w+i)%len(signers)], kw, kek, fmt.Sprint(w, "/", i)); err != nil {
					errs <- fmt.Errorf("worker %d iteration %d: %w", w, i, err)
					return
				}
				if err := mc(t.Context()); err != nil {
					errs <- fmt.Errorf("worker %d iteration %d: %w", w, i, err)
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

	t.Run("create one ref", func(t *testing.T) {
		// Racing creates of one ref: exactly one wins, the rest see it.
		ref := x.ref("concurrent/race", 1)
		results := make(chan error, workers)
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				_, err := x.ks.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: ref, Algorithm: keyvault.Ed25519})
				results <- err
			})
		}
		wg.Wait()
		close(results)
		won := 0
		for err := range results {
			if err == nil {
				won++
				continue
			}
			require.ErrorIs(t, err, keyvault.ErrAlreadyExists)
		}
		require.Equal(t, 1, won)
	})
}

// work signs and verifies once and, when kw is set, wraps and unwraps once.
func (x *exercise) work(t *testing.T, s keyvault.DigestSigner, kw keyvault.KeyWrapper, kek keyvault.KeyRef, msg string) error {
	ctx := t.Context()
	d := digest(msg)
	sig, err := s.SignDigest(ctx, d)
	if err != nil {
		return err
	}
	if err := Verify(s.Algorithm(), s.Public(), d, sig); err != nil {
		return err
	}
	if kw == nil {
		return nil
	}
	dek := make([]byte, 32)
	_, _ = rand.Read(dek)
	wrapped, err := kw.WrapKey(ctx, kek, dek)
	if err != nil {
		return err
	}
	got, err := kw.UnwrapKey(ctx, kek, wrapped)
	if err != nil {
		return err
	}
	if !equal(dek, got) {
		return errors.New("data key changed in a wrap round trip")
	}
	return nil
}

// macCheck returns a check that MACs one fixed message and compares the tag
// with the one computed up front; a no-op when the store is no MACer.
func (x *exercise) macCheck(t *testing.T) func(ctx context.Context) error {
	m, ok := x.ks.(keyvault.MACer)
	if !ok {
		return func(context.Context) error { return nil }
	}
	ref := x.ref("concurrent/mac", 1)
	x.mustCreate(t, ref, keyvault.HMACSHA256)
	msg := []byte("concurrent mac")
	want, err := m.MAC(t.Context(), ref, msg)
	require.NoError(t, err)
	return func(ctx context.Context) error {
		got, err := m.MAC(ctx, ref, msg)
		if err != nil {
			return err
		}
		if !bytes.Equal(got, want) {
			return errors.New("mac changed under concurrency")
		}
		return nil
	}
}
