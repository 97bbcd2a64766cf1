package ops

import (
	"bytes"
	"context"
	"crypto/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
)

func TestHandleSealOpen(t *testing.T) {
	f := newFixture(t)
	var kek wire.CreateKEKResponse
	owner := f.token(t, claimsFor("org", "user", "owner-org", "owner"))
	require.NoError(t, f.call(t, wire.OpCreateKEK, &wire.CreateKEKRequest{Token: owner, OrgID: "org", VaultID: "v1"}, &kek))
	require.Equal(t, uint32(1), kek.KEKVersion)

	var sealed wire.SealResponse
	require.NoError(t, f.call(t, wire.OpSeal, &wire.SealRequest{OrgID: "org", VaultID: "v1", Path: "a/b", SecretVersion: 1, Plaintext: []byte("s3cret")}, &sealed))
	require.Equal(t, uint32(1), sealed.KEKVersion)

	open := func(path string, version uint32, wrapped []byte) (*wire.OpenResponse, error) {
		var out wire.OpenResponse
		err := f.call(t, wire.OpOpen, &wire.OpenRequest{OrgID: "org", VaultID: "v1", Path: path, SecretVersion: version,
			WrappedDEK: wrapped, Ciphertext: sealed.Ciphertext}, &out)
		return &out, err
	}
	got, err := open("a/b", 1, sealed.WrappedDEK)
	require.NoError(t, err)
	require.Equal(t, "s3cret", string(got.Plaintext))

	tests := map[string]struct {
		path    string
		version uint32
		wrapped []byte
		wantErr error
	}{
		"fail other path":      {"a/c", 1, sealed.WrappedDEK, wire.ErrIntegrity},
		"fail other version":   {"a/b", 2, sealed.WrappedDEK, wire.ErrIntegrity},
		"fail garbage wrapped": {"a/b", 1, bytes.Repeat([]byte{1}, 40), wire.ErrIntegrity},
		"fail empty path":      {"", 1, sealed.WrappedDEK, wire.ErrBadRequest},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := open(tc.path, tc.version, tc.wrapped)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func TestHandleErrors(t *testing.T) {
	f := newFixture(t)
	tests := map[string]struct {
		op      wire.Op
		body    []byte
		wantErr error
	}{
		"fail unknown op":       {wire.Op(99), nil, wire.ErrBadRequest},
		"fail truncated seal":   {wire.OpSeal, []byte{0, 0, 0, 9}, wire.ErrBadRequest},
		"fail trailing health":  {wire.OpHealth, []byte{0}, wire.ErrBadRequest},
		"fail seal no kek":      {wire.OpSeal, mustAppend(t, &wire.SealRequest{OrgID: "o", VaultID: "none", Path: "p"}), wire.ErrNotFound},
		"fail kek without org":  {wire.OpCreateKEK, mustAppend(t, &wire.CreateKEKRequest{VaultID: "v"}), wire.ErrBadRequest},
		"fail kek bad vault id": {wire.OpCreateKEK, mustAppend(t, &wire.CreateKEKRequest{OrgID: "o", VaultID: "a/b"}), wire.ErrBadRequest},
		// In a session, Attest is an auditor's request: no second key exchange.
		"fail attest with key": {wire.OpAttest, mustAppend(t, &wire.AttestRequest{Nonce: []byte("n"), ProxyPublicKey: make([]byte, 32)}), wire.ErrBadRequest},
		"fail attest no nonce": {wire.OpAttest, mustAppend(t, &wire.AttestRequest{}), wire.ErrBadRequest},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var sc Scratch
			_, err := f.h.Handle(context.Background(), tc.op, tc.body, nil, &sc)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func mustAppend(t testing.TB, m wire.Message) []byte {
	t.Helper()
	b, err := m.Append(nil)
	require.NoError(t, err)
	return b
}

func TestAttestBindsChannelKey(t *testing.T) {
	f := newFixture(t)
	nonce := make([]byte, 32)
	_, _ = rand.Read(nonce)
	var resp wire.AttestResponse
	require.NoError(t, f.call(t, wire.OpAttest, &wire.AttestRequest{Nonce: nonce}, &resp))
	res, err := f.validator.Validate(context.Background(), resp.Document, nonce)
	require.NoError(t, err)
	require.Equal(t, f.channelPub, res.PublicKey)
	require.True(t, res.Simulated)
}

func TestHealth(t *testing.T) {
	f := newFixture(t)
	got := f.h.Health(context.Background())
	require.Equal(t, wire.HealthResponse{HSM: wire.HSMOK, Mode: wire.ModeSimulated, KeyCount: 1, Detail: "key store answered"}, got)
	require.NoError(t, f.ks.Close())
	got = f.h.Health(context.Background())
	require.Equal(t, wire.HSMUnavailable, got.HSM)

	var sc Scratch
	_, err := f.h.Handle(context.Background(), wire.OpPublicKeys, nil, nil, &sc)
	require.ErrorIs(t, err, wire.ErrUnavailable, "a closed key store is an outage")
}

func TestNewReusesJWTKey(t *testing.T) {
	f := newFixture(t)
	require.Equal(t, "ocv-jwt-v1", f.h.KID())
	h2, err := New(context.Background(), f.ks, f.h.issuer, f.channelPub, Config{Issuer: "i", TokenLifetimes: wire.DefaultTokenLifetimes(), Mode: wire.ModeNitro})
	require.NoError(t, err)
	defer h2.Close()
	require.Equal(t, "ocv-jwt-v1", h2.KID())
	versions, err := f.ks.Versions(context.Background(), JWTKeyID)
	require.NoError(t, err)
	require.Equal(t, []uint32{1}, versions)

	// A newer version (a rotation) is picked up by the next start.
	_, err = f.ks.CreateKey(context.Background(), keyvault.CreateKeyRequest{Ref: keyvault.KeyRef{ID: JWTKeyID, Version: 2}, Algorithm: keyvault.P256})
	require.NoError(t, err)
	h3, err := New(context.Background(), f.ks, f.h.issuer, f.channelPub, Config{Issuer: "i", TokenLifetimes: wire.DefaultTokenLifetimes(), Mode: wire.ModeNitro})
	require.NoError(t, err)
	defer h3.Close()
	require.Equal(t, "ocv-jwt-v2", h3.KID())

	_, err = New(context.Background(), f.ks, f.h.issuer, f.channelPub, Config{Issuer: "i", TokenLifetimes: wire.DefaultTokenLifetimes(), Mode: "bogus"})
	require.ErrorIs(t, err, ErrInvalidConfig)
}
