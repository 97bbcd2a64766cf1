package client_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/internal/ops"
	"github.com/opencustody/ocv/enclave/wire"
)

func TestOperations(t *testing.T) {
	e := newEnv(t)
	e.start(t)
	c := e.client(t, testPCR0)
	waitAttested(t, c)
	st := c.State()
	require.True(t, st.Simulated)
	require.Equal(t, wire.ModeSimulated, st.Mode)
	require.Empty(t, st.Reason)
	ctx := context.Background()

	v, err := c.CreateKEK(ctx, mint(t, e, "u-owner", "user", "owner"), "org", "vault")
	require.NoError(t, err)
	require.Equal(t, uint32(1), v)

	sealed, err := c.Seal(ctx, wire.SealRequest{OrgID: "org", VaultID: "vault", Path: "db/pw", SecretVersion: 1, Plaintext: []byte("hunter2")})
	require.NoError(t, err)
	open := wire.OpenRequest{OrgID: "org", VaultID: "vault", Path: "db/pw", SecretVersion: 1, WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext}
	pt, err := c.Open(ctx, open)
	require.NoError(t, err)
	require.Equal(t, "hunter2", string(pt))

	open.SecretVersion = 2
	_, err = c.Open(ctx, open)
	require.ErrorIs(t, err, wire.ErrIntegrity)
	_, err = c.Seal(ctx, wire.SealRequest{OrgID: "org", VaultID: "no-such-vault", Path: "p"})
	require.ErrorIs(t, err, wire.ErrNotFound)

	health, err := c.Health(ctx)
	require.NoError(t, err)
	require.Equal(t, wire.HSMOK, health.HSM)
	require.Equal(t, wire.ModeSimulated, health.Mode)

	// The token verifies against the published key with crypto/ecdsa alone.
	token, err := ops.SignTokenWithStore(ctx, e.ks, []byte(`{"sub":"u1"}`))
	require.NoError(t, err)
	kid := "ocv-jwt-v1"
	keys, err := c.PublicKeys(ctx)
	require.NoError(t, err)
	require.Len(t, keys, 1)
	require.Equal(t, kid, keys[0].KID)
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, keys[0].X...), keys[0].Y...))
	require.NoError(t, err)
	dot := strings.LastIndexByte(token, '.')
	sig, err := base64.RawURLEncoding.DecodeString(token[dot+1:])
	require.NoError(t, err)
	digest := sha256.Sum256([]byte(token[:dot]))
	require.True(t, ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:])))

	head := wire.ExtendAuditHeadRequest{OrgID: "org", LastEventID: 42, Digests: [][32]byte{sha256.Sum256([]byte("h"))}}
	signed, err := c.ExtendAuditHead(ctx, head)
	require.NoError(t, err)
	require.Equal(t, uint64(1), signed.Seq)
	msg, err := wire.AuditHeadMessage(head.OrgID, signed.Seq, head.LastEventID, signed.Hash)
	require.NoError(t, err)
	digest = sha256.Sum256(msg)
	require.True(t, ecdsa.Verify(pub, digest[:], new(big.Int).SetBytes(signed.Signature[:32]), new(big.Int).SetBytes(signed.Signature[32:])))

	// An auditor's nonce gets a document binding the same channel key.
	nonce := make([]byte, 20)
	_, _ = rand.Read(nonce)
	doc, err := c.Attest(ctx, nonce)
	require.NoError(t, err)
	res, err := e.validator(t, testPCR0).Validate(ctx, doc, nonce)
	require.NoError(t, err)
	require.Equal(t, e.srv.ChannelPublicKey(), res.PublicKey)

	// No operation signs claims the caller chose.
	_, err = c.MintToken(ctx, wire.MintTokenRequest{Credential: wire.CredPassword, Secret: "x"})
	require.ErrorIs(t, err, wire.ErrForbidden)
}

func TestUnavailableBeforeAttestation(t *testing.T) {
	e := newEnv(t) // never started: nothing listens
	c := e.client(t, testPCR0)
	tests := map[string]struct {
		call    func() error
		wantErr error
	}{
		"fail open":       {func() error { _, err := c.Open(context.Background(), wire.OpenRequest{}); return err }, wire.ErrUnavailable},
		"fail seal":       {func() error { _, err := c.Seal(context.Background(), wire.SealRequest{}); return err }, wire.ErrUnavailable},
		"fail mint token": {func() error { _, err := c.MintToken(context.Background(), wire.MintTokenRequest{}); return err }, wire.ErrUnavailable},
		"fail health":     {func() error { _, err := c.Health(context.Background()); return err }, wire.ErrUnavailable},
		"fail create kek": {func() error { _, err := c.CreateKEK(context.Background(), "", "o", "v"); return err }, wire.ErrUnavailable},
		"fail seal policy set": {func() error {
			_, err := c.SealPolicySet(context.Background(), wire.SealPolicySetRequest{OrgID: "o", VaultID: "v", Version: 1})
			return err
		}, wire.ErrUnavailable},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, tc.call(), tc.wantErr)
		})
	}
	require.Eventually(t, func() bool { return strings.HasPrefix(c.State().Reason, "dial: ") }, 30*time.Second, 5*time.Millisecond)
	require.False(t, c.State().Attested)
}

func TestValidatorRejects(t *testing.T) {
	e := newEnv(t)
	e.start(t)
	other := make([]byte, 48)
	other[0] = 1
	c := e.client(t, other) // allows another enclave image only
	require.Eventually(t, func() bool { return strings.HasPrefix(c.State().Reason, "attestation: ") }, 30*time.Second, 5*time.Millisecond)
	require.Contains(t, c.State().Reason, "PCR")
	require.False(t, c.State().Attested)
	_, err := c.Health(context.Background())
	require.ErrorIs(t, err, wire.ErrUnavailable)
}

func TestReconnectsAfterEnclaveRestart(t *testing.T) {
	e := newEnv(t)
	e.start(t)
	c := e.client(t, testPCR0)
	waitAttested(t, c)
	ctx := context.Background()
	_, err := c.CreateKEK(ctx, mint(t, e, "u-owner", "user", "owner"), "org", "vault")
	require.NoError(t, err)
	sealed, err := c.Seal(ctx, wire.SealRequest{OrgID: "org", VaultID: "vault", Path: "p", Plaintext: []byte("v")})
	require.NoError(t, err)

	e.stop(t)
	_, err = c.Health(ctx)
	require.ErrorIs(t, err, wire.ErrUnavailable)
	require.Eventually(t, func() bool { return !c.State().Attested }, 30*time.Second, 5*time.Millisecond)

	// A new enclave process (new channel key) on the same socket, same HSM.
	e.start(t)
	waitAttested(t, c)
	pt, err := c.Open(ctx, wire.OpenRequest{OrgID: "org", VaultID: "vault", Path: "p", WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext})
	require.NoError(t, err)
	require.Equal(t, "v", string(pt))
}

func TestRestartRecoveredByRetry(t *testing.T) {
	e := newEnv(t)
	e.start(t)
	c := e.client(t, testPCR0)
	waitAttested(t, c)
	_, err := c.Health(context.Background())
	require.NoError(t, err)
	// Restart faster than the client can notice: the pooled connection is
	// dead, and the idempotent call is retried on a fresh one.
	e.stop(t)
	e.start(t)
	_, err = c.Health(context.Background())
	require.NoError(t, err)
}

func TestConcurrentCalls(t *testing.T) {
	e := newEnv(t)
	e.start(t)
	c := e.client(t, testPCR0)
	waitAttested(t, c)
	ctx := context.Background()
	_, err := c.CreateKEK(ctx, mint(t, e, "u-owner", "user", "owner"), "org", "vault")
	require.NoError(t, err)
	sealed, err := c.Seal(ctx, wire.SealRequest{OrgID: "org", VaultID: "vault", Path: "p", Plaintext: []byte("v")})
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 { // more goroutines than pooled connections
		wg.Go(func() {
			for range 25 {
				if _, err := c.Open(ctx, wire.OpenRequest{OrgID: "org", VaultID: "vault", Path: "p", WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext}); err != nil {
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

func TestConfig(t *testing.T) {
	e := newEnv(t)
	v := e.validator(t, testPCR0)
	tests := map[string]struct {
		cfg     client.Config
		wantErr error
	}{
		"fail no validator": {client.Config{Addr: e.addr, Identity: testIdentity}, client.ErrInvalidConfig},
		"fail no identity":  {client.Config{Addr: e.addr, Validator: v}, client.ErrInvalidConfig},
		"fail bad addr":     {client.Config{Addr: "tcp://x", Validator: v, Identity: testIdentity}, client.ErrInvalidConfig},
		"fail vsock no cid": {client.Config{Addr: "vsock://:5000", Validator: v, Identity: testIdentity}, client.ErrInvalidConfig},
		"fail pool size":    {client.Config{Addr: e.addr, Validator: v, Identity: testIdentity, PoolSize: -1}, client.ErrInvalidConfig},
		"ok enclave down":   {client.Config{Addr: e.addr, Validator: v, Identity: testIdentity}, nil},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			c, err := client.New(context.Background(), tc.cfg)
			require.ErrorIs(t, err, tc.wantErr)
			if c != nil {
				require.NoError(t, c.Close())
			}
		})
	}
}
