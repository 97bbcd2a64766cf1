package tokens

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/memstore"
)

// now is the fixed clock of these tests.
var now = time.Unix(1_800_000_000, 0)

type fixture struct {
	ks  *memstore.Store
	v   *Verifier
	key *ecdsa.PrivateKey // stands in for the store's jwt v1 key in forgeries
	sg  keyvault.DigestSigner
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ks, err := memstore.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = ks.Close() })
	ref := keyvault.KeyRef{ID: "jwt", Version: 1}
	_, err = ks.CreateKey(context.Background(), keyvault.CreateKeyRequest{Ref: ref, Algorithm: keyvault.P256})
	require.NoError(t, err)
	sg, err := ks.Signer(context.Background(), ref)
	require.NoError(t, err)
	v, err := New(testConfig(ks, 16))
	require.NoError(t, err)
	other, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	return &fixture{ks: ks, v: v, key: other, sg: sg}
}

// testConfig is the verifier configuration of these tests: issuer
// https://ocv.test, legacy issuer https://legacy.ocv.test, the default
// lifetimes.
func testConfig(ks keyvault.KeyStore, cacheSize int) Config {
	return Config{Keys: ks, KeyID: "jwt", KIDPrefix: "ocv-jwt-v", Audience: "ocv", CacheSize: cacheSize,
		Issuer: "https://ocv.test", LegacyIssuers: []string{"https://legacy.ocv.test"}, Lifetimes: wire.DefaultTokenLifetimes()}
}

// claims returns valid user claims; callers edit the map.
func claims() map[string]any {
	return map[string]any{
		"iss": "https://ocv.test", "sub": "user-1", "aud": "ocv", "iat": now.Unix() - 10,
		"exp": now.Unix() + 900, "jti": "jti-1", "org_id": "org-1", "principal_type": "user", "role": "owner",
	}
}

func header(kid string) map[string]any {
	return map[string]any{"alg": "ES256", "typ": "JWT", "kid": kid}
}

func enc(t testing.TB, v any) string {
	t.Helper()
	if s, ok := v.(string); ok { // already JSON
		return base64.RawURLEncoding.EncodeToString([]byte(s))
	}
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return base64.RawURLEncoding.EncodeToString(b)
}

// mint signs header.payload with the store's key (low-S, as the enclave
// does).
func (f *fixture) mint(t testing.TB, hdr, payload any) string {
	t.Helper()
	input := enc(t, hdr) + "." + enc(t, payload)
	d := sha256.Sum256([]byte(input))
	raw, err := f.sg.SignDigest(context.Background(), d[:])
	require.NoError(t, err)
	return input + "." + base64.RawURLEncoding.EncodeToString(lowS(raw))
}

// forge signs with a key that is not the enclave's.
func (f *fixture) forge(t testing.TB, hdr, payload any) string {
	t.Helper()
	input := enc(t, hdr) + "." + enc(t, payload)
	d := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, f.key, d[:])
	require.NoError(t, err)
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + base64.RawURLEncoding.EncodeToString(lowS(sig))
}

func lowS(sig []byte) []byte {
	out := append([]byte(nil), sig...)
	s := new(big.Int).SetBytes(out[32:])
	if s.Cmp(p256HalfN) > 0 {
		s.Sub(elliptic.P256().Params().N, s)
		s.FillBytes(out[32:])
	}
	return out
}

// highS returns the other valid spelling of a low-S signature.
func highS(sig []byte) []byte {
	out := append([]byte(nil), sig...)
	s := new(big.Int).SetBytes(out[32:])
	s.Sub(elliptic.P256().Params().N, s)
	s.FillBytes(out[32:])
	return out
}

func with(edit func(m map[string]any)) map[string]any {
	m := claims()
	edit(m)
	return m
}
