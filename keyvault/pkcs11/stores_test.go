package pkcs11_test

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/keyvaulttest"
	"github.com/opencustody/ocv/keyvault/pkcs11"
	"github.com/opencustody/ocv/keyvault/pkcs11/softhsmtest"
)

func TestNewFails(t *testing.T) {
	t.Parallel()
	cfg := softhsmtest.New(t)
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	with := func(f func(*pkcs11.Config)) pkcs11.Config { c := cfg; f(&c); return c }
	tests := map[string]struct {
		ctx     context.Context
		cfg     pkcs11.Config
		wantErr error // nil: any error
	}{
		"fail wrong pin":      {cfg: with(func(c *pkcs11.Config) { c.PIN = "not-the-pin-0000" })},
		"fail unknown label":  {cfg: with(func(c *pkcs11.Config) { c.TokenLabel = "no-such-token" }), wantErr: pkcs11.ErrTokenNotFound},
		"fail invalid config": {cfg: with(func(c *pkcs11.Config) { c.PINFile = "/run/pin" }), wantErr: pkcs11.ErrInvalidConfig},
		"fail missing module": {cfg: with(func(c *pkcs11.Config) { c.ModulePath = "/nonexistent/libp11.so" })},
		"fail canceled":       {ctx: canceled, cfg: cfg, wantErr: context.Canceled},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			ctx := tc.ctx
			if ctx == nil {
				ctx = t.Context()
			}
			s, err := pkcs11.New(ctx, tc.cfg)
			require.Error(t, err)
			require.Nil(t, s)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			}
			require.NotContains(t, err.Error(), tc.cfg.PIN, "the PIN must not leak into errors")
		})
	}
}

func TestNewPINFile(t *testing.T) {
	t.Parallel()
	cfg := softhsmtest.New(t)
	cfg.PINFile = filepath.Join(t.TempDir(), "pin")
	require.NoError(t, os.WriteFile(cfg.PINFile, []byte(cfg.PIN+"\n"), 0o600))
	cfg.PIN = ""
	s, err := pkcs11.New(t.Context(), cfg)
	require.NoError(t, err)
	require.NoError(t, s.Close())
}

// TestReopen runs alone (not parallel) so that Close of its only Store
// finalises the module and the second New initialises it again.
func TestReopen(t *testing.T) {
	cfg := softhsmtest.New(t)
	ctx := t.Context()
	kek := keyvault.KeyRef{ID: "kek/reopen", Version: 1}
	signing := keyvault.KeyRef{ID: "agent/reopen", Version: 2}

	s, err := pkcs11.New(ctx, cfg)
	require.NoError(t, err)
	_, err = s.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: kek, Algorithm: keyvault.AES256})
	require.NoError(t, err)
	info, err := s.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: signing, Algorithm: keyvault.Secp256k1})
	require.NoError(t, err)
	dek := make([]byte, 32)
	_, _ = rand.Read(dek)
	wrapped, err := s.WrapKey(ctx, kek, dek)
	require.NoError(t, err)
	require.NoError(t, s.Close())

	for round := range 2 {
		s, err = pkcs11.New(ctx, cfg)
		require.NoError(t, err, "round %d", round)
		got, err := s.Key(ctx, signing)
		require.NoError(t, err)
		require.Equal(t, info, got)
		versions, err := s.Versions(ctx, signing.ID)
		require.NoError(t, err)
		require.Equal(t, []uint32{2}, versions)
		back, err := s.UnwrapKey(ctx, kek, wrapped)
		require.NoError(t, err)
		require.Equal(t, dek, back)
		require.NoError(t, s.Close())
	}
}

// TestStoresConcurrent keeps several Stores open at once, two of them on one
// token, and drives them all from many goroutines.
func TestStoresConcurrent(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	cfgA := softhsmtest.New(t)
	a, err := pkcs11.New(ctx, cfgA)
	require.NoError(t, err)
	a2, err := pkcs11.New(ctx, cfgA) // same token
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, a2.Close()) })
	b, c := newStore(t), newStore(t)

	kek := keyvault.KeyRef{ID: "kek/shared", Version: 1}
	_, err = a.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: kek, Algorithm: keyvault.AES256})
	require.NoError(t, err)
	_, err = b.Key(ctx, kek)
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound, "tokens are separate")

	stores := map[string]*pkcs11.Store{"a": a, "a2": a2, "b": b, "c": c}
	for name, s := range stores {
		_, err := s.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: keyvault.KeyRef{ID: "sig/" + name, Version: 1}, Algorithm: keyvault.P256})
		require.NoError(t, err)
	}

	errs := make(chan error, 4*len(stores))
	var wg sync.WaitGroup
	for name, s := range stores {
		for w := range 4 {
			wg.Go(func() {
				if err := drive(ctx, s, "sig/"+name, a, a2, kek); err != nil {
					errs <- fmt.Errorf("store %s worker %d: %w", name, w, err)
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	// Closing one Store of a token leaves the other logged in and working.
	require.NoError(t, a.Close())
	require.NoError(t, drive(ctx, a2, "sig/a2", a2, a2, kek))
}

// drive signs with id on s and wraps with one Store, unwraps with another.
func drive(ctx context.Context, s *pkcs11.Store, id string, wrapper, unwrapper *pkcs11.Store, kek keyvault.KeyRef) error {
	sg, err := s.Signer(ctx, keyvault.KeyRef{ID: id, Version: 1})
	if err != nil {
		return err
	}
	for i := range 25 {
		d := make([]byte, 32)
		_, _ = rand.Read(d)
		sig, err := sg.SignDigest(ctx, d)
		if err != nil {
			return err
		}
		if err := keyvaulttest.Verify(sg.Algorithm(), sg.Public(), d, sig); err != nil {
			return err
		}
		wrapped, err := wrapper.WrapKey(ctx, kek, d)
		if err != nil {
			return err
		}
		back, err := unwrapper.UnwrapKey(ctx, kek, wrapped)
		if err != nil {
			return err
		}
		if string(back) != string(d) {
			return fmt.Errorf("iteration %d: round trip changed the data key", i)
		}
	}
	return nil
}

// TestStaleHandles destroys and re-creates a key through a second Store on
// the token, behind the first Store's handle cache.
func TestStaleHandles(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	cfg := softhsmtest.New(t)
	a, err := pkcs11.New(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, a.Close()) })
	other, err := pkcs11.New(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, other.Close()) })

	ref := keyvault.KeyRef{ID: "agent/stale", Version: 1}
	_, err = a.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: ref, Algorithm: keyvault.Ed25519})
	require.NoError(t, err)
	sg, err := a.Signer(ctx, ref)
	require.NoError(t, err)
	_, err = sg.SignDigest(ctx, []byte("cached"))
	require.NoError(t, err)

	require.NoError(t, other.DestroyKey(ctx, ref))
	_, err = sg.SignDigest(ctx, []byte("destroyed elsewhere"))
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)

	info, err := other.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: ref, Algorithm: keyvault.Ed25519})
	require.NoError(t, err)
	_, err = sg.SignDigest(ctx, []byte("replaced elsewhere"))
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)
	fresh, err := a.Signer(ctx, ref)
	require.NoError(t, err)
	require.Equal(t, info.Public, fresh.Public())
	msg := []byte("fresh")
	sig, err := fresh.SignDigest(ctx, msg)
	require.NoError(t, err)
	require.NoError(t, keyvaulttest.Verify(keyvault.Ed25519, info.Public, msg, sig))
}
