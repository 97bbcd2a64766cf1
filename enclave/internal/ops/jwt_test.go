package ops

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/internal/envelope"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
)

// jwksKey rebuilds an ecdsa key from a PublicKeys entry, as a JWKS client
// would.
func jwksKey(t testing.TB, k wire.PublicKey) *ecdsa.PublicKey {
	t.Helper()
	require.Equal(t, "ES256", k.Alg)
	require.Equal(t, "P-256", k.Curve)
	pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, k.X...), k.Y...))
	require.NoError(t, err)
	return pub
}

func verifyRS(pub *ecdsa.PublicKey, msg, sig []byte) bool {
	d := sha256.Sum256(msg)
	return ecdsa.Verify(pub, d[:], new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:]))
}

func TestTokenVerifiesAgainstPublicKeys(t *testing.T) {
	f := newFixture(t)
	var keys wire.PublicKeysResponse
	require.NoError(t, f.call(t, wire.OpPublicKeys, &wire.PublicKeysRequest{}, &keys))
	require.Len(t, keys.Keys, 1)
	pub := jwksKey(t, keys.Keys[0])

	// Enough signatures that a high-S one from the store would show.
	for i := range 16 {
		claims := fmt.Sprintf(`{"sub":"user-%d","exp":4102444800}`, i)
		tok, err := f.h.jwt.token(context.Background(), []byte(claims))
		require.NoError(t, err)

		parts := strings.Split(tok, ".")
		require.Len(t, parts, 3)
		hdr, err := base64.RawURLEncoding.DecodeString(parts[0])
		require.NoError(t, err)
		var jose map[string]string
		require.NoError(t, json.Unmarshal(hdr, &jose))
		require.Equal(t, map[string]string{"alg": "ES256", "typ": "JWT", "kid": "ocv-jwt-v1"}, jose)
		payload, err := base64.RawURLEncoding.DecodeString(parts[1])
		require.NoError(t, err)
		require.Equal(t, claims, string(payload))

		sig, err := base64.RawURLEncoding.DecodeString(parts[2])
		require.NoError(t, err)
		require.Len(t, sig, 64)
		require.True(t, verifyRS(pub, []byte(parts[0]+"."+parts[1]), sig))
		require.LessOrEqual(t, new(big.Int).SetBytes(sig[32:]).Cmp(p256HalfN), 0, "s must be low")
	}
}

// TestSignJWTIsRetired: no operation signs claims the caller chose.
func TestSignJWTIsRetired(t *testing.T) {
	f := newFixture(t)
	var resp wire.SignJWTResponse
	err := f.call(t, wire.OpSignJWT, &wire.SignJWTRequest{Claims: []byte(`{"sub":"x"}`)}, &resp)
	require.ErrorIs(t, err, wire.ErrForbidden)
}

func TestCanonicalES256(t *testing.T) {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	digest := sha256.Sum256([]byte("m"))
	r, s, err := ecdsa.Sign(rand.Reader, priv, digest[:])
	require.NoError(t, err)
	high := new(big.Int).Set(s)
	if high.Cmp(p256HalfN) <= 0 {
		high.Sub(p256N, high)
	}
	raw := make([]byte, 64)
	r.FillBytes(raw[:32])
	high.FillBytes(raw[32:])

	got, err := canonicalES256(&priv.PublicKey, digest[:], raw)
	require.NoError(t, err)
	require.LessOrEqual(t, new(big.Int).SetBytes(got[32:]).Cmp(p256HalfN), 0)
	require.True(t, ecdsa.Verify(&priv.PublicKey, digest[:], new(big.Int).SetBytes(got[:32]), new(big.Int).SetBytes(got[32:])))

	raw[0] ^= 1
	_, err = canonicalES256(&priv.PublicKey, digest[:], raw)
	require.ErrorIs(t, err, errBadSignature)
	_, err = canonicalES256(&priv.PublicKey, digest[:], raw[:63])
	require.ErrorIs(t, err, errBadSignature)
}

func TestToWire(t *testing.T) {
	tests := map[string]struct {
		in      error
		wantErr error
	}{
		"integrity":      {envelope.ErrIntegrity, wire.ErrIntegrity},
		"kek destroyed":  {fmt.Errorf("%w: %w", envelope.ErrKEKDestroyed, keyvault.ErrKeyNotFound), wire.ErrKEKDestroyed},
		"unknown blob":   {envelope.ErrUnsupportedFormat, wire.ErrIntegrity},
		"unwrap":         {keyvault.ErrUnwrap, wire.ErrIntegrity},
		"bad locator":    {envelope.ErrInvalidLocator, wire.ErrBadRequest},
		"not found":      {keyvault.ErrKeyNotFound, wire.ErrNotFound},
		"closed":         {keyvault.ErrClosed, wire.ErrUnavailable},
		"deadline":       {context.DeadlineExceeded, wire.ErrUnavailable},
		"hsm failure":    {errors.New("CKR_DEVICE_ERROR"), wire.ErrUnavailable},
		"bad hsm sig":    {errBadSignature, wire.ErrInternal},
		"already wire":   {wire.ErrReplay, wire.ErrReplay},
		"wire internal":  {wire.ErrInternal, wire.ErrInternal},
		"already exists": {keyvault.ErrAlreadyExists, wire.ErrInternal},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			require.ErrorIs(t, toWire(fmt.Errorf("ctx: %w", tc.in)), tc.wantErr)
		})
	}
	require.NoError(t, toWire(nil))
}
