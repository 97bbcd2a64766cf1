package keyvaulttest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/keyvault"
)

// Signing algorithms of the keyvault contract.
var signingAlgorithms = []keyvault.Algorithm{keyvault.P256, keyvault.Secp256k1, keyvault.Ed25519}

// Exercise runs the conformance suite against ks, a fresh or reused store
// (key IDs get a random prefix), and closes ks at the end: Close must be
// idempotent. KeyWrapper and MACer are exercised when ks implements them.
func Exercise(t *testing.T, ks keyvault.KeyStore) {
	t.Helper()
	x := &exercise{ks: ks, prefix: "kvtest-" + randomHex(4) + "/"}
	t.Run("create", x.create)
	t.Run("create invalid", x.createInvalid)
	t.Run("not found", x.notFound)
	t.Run("versions", x.versions)
	t.Run("sign", x.sign)
	t.Run("wrap", x.wrap)
	t.Run("mac", x.mac)
	t.Run("import", x.importKeys)
	t.Run("destroy", x.destroy)
	t.Run("context canceled", x.canceled)
	t.Run("concurrent", x.concurrent)
	t.Run("close", x.close)
}

type exercise struct {
	ks     keyvault.KeyStore
	prefix string
}

func (x *exercise) ref(name string, version uint32) keyvault.KeyRef {
	return keyvault.KeyRef{ID: x.prefix + name, Version: version}
}

func (x *exercise) mustCreate(t *testing.T, ref keyvault.KeyRef, alg keyvault.Algorithm) keyvault.KeyInfo {
	t.Helper()
	info, err := x.ks.CreateKey(t.Context(), keyvault.CreateKeyRequest{Ref: ref, Algorithm: alg})
	require.NoError(t, err)
	return info
}

func (x *exercise) create(t *testing.T) {
	for _, alg := range append([]keyvault.Algorithm{keyvault.AES256, keyvault.HMACSHA256}, signingAlgorithms...) {
		if _, ok := x.ks.(keyvault.MACer); !ok && alg == keyvault.HMACSHA256 {
			continue // only a MACer must make MAC keys
		}
		t.Run(string(alg), func(t *testing.T) {
			ctx := t.Context()
			ref := x.ref("create/"+string(alg), 1)
			info := x.mustCreate(t, ref, alg)
			require.Equal(t, ref, info.Ref)
			require.Equal(t, alg, info.Algorithm)
			requirePublicType(t, alg, info.Public)

			got, err := x.ks.Key(ctx, ref)
			require.NoError(t, err)
			require.Equal(t, info, got)

			_, err = x.ks.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: ref, Algorithm: alg})
			require.ErrorIs(t, err, keyvault.ErrAlreadyExists)
			// A duplicate is a duplicate whatever algorithm it asks for.
			_, err = x.ks.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: ref, Algorithm: keyvault.Ed25519})
			require.ErrorIs(t, err, keyvault.ErrAlreadyExists)
		})
	}
}

func (x *exercise) createInvalid(t *testing.T) {
	tests := map[string]struct {
		req     keyvault.CreateKeyRequest
		wantErr error // nil: any error will do (the sentinel is the implementation's)
	}{
		"fail unknown algorithm": {req: keyvault.CreateKeyRequest{Ref: x.ref("bad-alg", 1), Algorithm: "rsa-2048"}, wantErr: keyvault.ErrUnsupported},
		"fail empty algorithm":   {req: keyvault.CreateKeyRequest{Ref: x.ref("no-alg", 1)}, wantErr: keyvault.ErrUnsupported},
		"fail empty id":          {req: keyvault.CreateKeyRequest{Ref: keyvault.KeyRef{Version: 1}, Algorithm: keyvault.P256}},
		"fail version 0":         {req: keyvault.CreateKeyRequest{Ref: x.ref("v0", 0), Algorithm: keyvault.P256}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := x.ks.CreateKey(t.Context(), tc.req)
			require.Error(t, err)
			if tc.wantErr != nil {
				require.ErrorIs(t, err, tc.wantErr)
			}
		})
	}
}

func (x *exercise) notFound(t *testing.T) {
	ctx := t.Context()
	ref := x.ref("never-created", 1)
	_, err := x.ks.Key(ctx, ref)
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)
	_, err = x.ks.Signer(ctx, ref)
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)
	require.ErrorIs(t, x.ks.DestroyKey(ctx, ref), keyvault.ErrKeyNotFound)
	// Another version of an existing id is just as unknown.
	x.mustCreate(t, x.ref("one-version", 1), keyvault.Ed25519)
	_, err = x.ks.Key(ctx, x.ref("one-version", 2))
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)
}

func (x *exercise) versions(t *testing.T) {
	ctx := t.Context()
	id := x.prefix + "versions"
	// Created out of order; listed ascending. Ed25519 keygen is cheap.
	publics := map[uint32]any{}
	for _, v := range []uint32{3, 1, 2} {
		info := x.mustCreate(t, keyvault.KeyRef{ID: id, Version: v}, keyvault.Ed25519)
		publics[v] = info.Public
	}
	got, err := x.ks.Versions(ctx, id)
	require.NoError(t, err)
	require.Equal(t, []uint32{1, 2, 3}, got)
	require.NotEqual(t, publics[1], publics[2], "each version is its own key")

	for v, pub := range publics {
		info, err := x.ks.Key(ctx, keyvault.KeyRef{ID: id, Version: v})
		require.NoError(t, err)
		require.Equal(t, pub, info.Public)
	}

	// An id that is a prefix of another lists nothing of the other's.
	got, err = x.ks.Versions(ctx, x.prefix+"version")
	require.NoError(t, err)
	require.Empty(t, got)
	got, err = x.ks.Versions(ctx, x.prefix+"no-such-id")
	require.NoError(t, err)
	require.NotNil(t, got)
	require.Empty(t, got)
}

func (x *exercise) destroy(t *testing.T) {
	ctx := t.Context()
	ref := x.ref("destroy", 1)
	x.mustCreate(t, ref, keyvault.P256)
	x.mustCreate(t, x.ref("destroy", 2), keyvault.P256)
	s, err := x.ks.Signer(ctx, ref)
	require.NoError(t, err)

	require.NoError(t, x.ks.DestroyKey(ctx, ref))
	_, err = x.ks.Key(ctx, ref)
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)
	_, err = x.ks.Signer(ctx, ref)
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)
	// A signer obtained before the destruction stops working.
	_, err = s.SignDigest(ctx, digest("after destroy"))
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)
	require.ErrorIs(t, x.ks.DestroyKey(ctx, ref), keyvault.ErrKeyNotFound)

	versions, err := x.ks.Versions(ctx, ref.ID)
	require.NoError(t, err)
	require.Equal(t, []uint32{2}, versions)
	_, err = x.ks.Key(ctx, x.ref("destroy", 2))
	require.NoError(t, err, "destroying one version leaves the others")

	// The ref may be used again, but an old signer never signs with the
	// new key: its Public() would not match.
	x.mustCreate(t, ref, keyvault.P256)
	_, err = s.SignDigest(ctx, digest("after re-create"))
	require.ErrorIs(t, err, keyvault.ErrKeyNotFound)
	fresh, err := x.ks.Signer(ctx, ref)
	require.NoError(t, err)
	sig, err := fresh.SignDigest(ctx, digest("after re-create"))
	require.NoError(t, err)
	require.NoError(t, Verify(keyvault.P256, fresh.Public(), digest("after re-create"), sig))
}

func (x *exercise) canceled(t *testing.T) {
	ref := x.ref("canceled", 1)
	x.mustCreate(t, ref, keyvault.P256)
	s, err := x.ks.Signer(t.Context(), ref)
	require.NoError(t, err)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	_, err = s.SignDigest(ctx, digest("canceled"))
	require.ErrorIs(t, err, context.Canceled)
	_, err = x.ks.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: x.ref("canceled", 2), Algorithm: keyvault.P256})
	require.ErrorIs(t, err, context.Canceled)
}

func (x *exercise) close(t *testing.T) {
	ctx := t.Context()
	ref := x.ref("close", 1)
	x.mustCreate(t, ref, keyvault.P256)
	s, err := x.ks.Signer(ctx, ref)
	require.NoError(t, err)

	require.NoError(t, x.ks.Close())
	require.NoError(t, x.ks.Close(), "Close is idempotent")
	_, err = x.ks.Key(ctx, ref)
	require.ErrorIs(t, err, keyvault.ErrClosed)
	_, err = s.SignDigest(ctx, digest("closed"))
	require.ErrorIs(t, err, keyvault.ErrClosed)
	_, err = x.ks.CreateKey(ctx, keyvault.CreateKeyRequest{Ref: x.ref("close", 2), Algorithm: keyvault.P256})
	require.ErrorIs(t, err, keyvault.ErrClosed)
	if kw, ok := x.ks.(keyvault.KeyWrapper); ok {
		_, err = kw.WrapKey(ctx, ref, make([]byte, 32))
		require.ErrorIs(t, err, keyvault.ErrClosed)
	}
	if m, ok := x.ks.(keyvault.MACer); ok {
		_, err = m.MAC(ctx, ref, []byte("closed"))
		require.ErrorIs(t, err, keyvault.ErrClosed)
	}
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
