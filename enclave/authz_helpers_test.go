package enclave_test

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

	"github.com/opencustody/ocv/enclave"
	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/internal/ops"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// authEnv is an enclave that requires caller tokens, with one session.
type authEnv struct {
	*env
	s *client.Session
}

func newAuthEnv(t testing.TB) *authEnv {
	t.Helper()
	e := newEnvWith(t, func(c *enclave.Config) { c.RequireCallerToken = true })
	return &authEnv{env: e, s: e.session(t)}
}

// claims of an access token as the proxy mints them; exp 15 minutes ahead.
func userClaims(org, sub, role string) map[string]any {
	return map[string]any{
		"iss": "https://ocv.test", "sub": sub, "aud": "ocv", "iat": time.Now().Unix(),
		"exp": time.Now().Add(15 * time.Minute).Unix(), "jti": "jti-" + sub, "org_id": org,
		"principal_type": "user", "role": role,
	}
}

func agentClaims(org, sub string, scopes []string) map[string]any {
	c := userClaims(org, sub, "")
	c["principal_type"] = "agent"
	delete(c, "role")
	if scopes != nil {
		c["scopes"] = scopes
	}
	return c
}

// token signs claims with the enclave's own token key, through the key
// store (no wire operation signs chosen claims).
func (a *authEnv) token(t testing.TB, claims map[string]any) string {
	t.Helper()
	b, err := json.Marshal(claims)
	require.NoError(t, err)
	tok, err := ops.SignTokenWithStore(context.Background(), a.ks, b)
	require.NoError(t, err)
	return tok
}

// forgedToken is signed by a key that is not the enclave's, under the
// enclave's kid.
func forgedToken(t testing.TB, claims map[string]any) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	hdr, err := json.Marshal(map[string]string{"alg": "ES256", "typ": "JWT", "kid": "ocv-jwt-v1"})
	require.NoError(t, err)
	payload, err := json.Marshal(claims)
	require.NoError(t, err)
	enc := base64.RawURLEncoding
	input := enc.EncodeToString(hdr) + "." + enc.EncodeToString(payload)
	d := sha256.Sum256([]byte(input))
	r, s, err := ecdsa.Sign(rand.Reader, key, d[:])
	require.NoError(t, err)
	n := elliptic.P256().Params().N
	if s.Cmp(new(big.Int).Rsh(n, 1)) > 0 {
		s.Sub(n, s)
	}
	sig := make([]byte, 64)
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return input + "." + enc.EncodeToString(sig)
}

// grant is a policy for one principal on pattern.
func grant(id, ptype, pid, pattern string, effect policy.Effect, priority int, perms ...policy.Permission) policy.Policy {
	return policy.Policy{ID: id, Pattern: pattern, PrincipalType: ptype, PrincipalID: pid, Permissions: perms, Effect: effect, Priority: priority}
}

// sealSet encodes policies as vault's set at version and has the enclave
// MAC it with token; it returns the set, the MAC and the answer's code.
func (a *authEnv) sealSet(t testing.TB, org, vault string, version uint64, token string, policies ...policy.Policy) ([]byte, []byte, wire.Code) {
	t.Helper()
	set := policy.EncodeSet(vault, version, policies)
	code, body, err := a.s.Call(wire.OpSealPolicySet, encode(t, &wire.SealPolicySetRequest{OrgID: org, VaultID: vault, Version: version, Set: set, ChangerToken: token}))
	require.NoError(t, err)
	if code != wire.OK {
		require.Empty(t, body)
		return set, nil, code
	}
	var resp wire.SealPolicySetResponse
	require.NoError(t, resp.Decode(body))
	return set, resp.MAC, code
}

// mustSealSet is sealSet that must succeed.
func (a *authEnv) mustSealSet(t testing.TB, org, vault string, version uint64, token string, policies ...policy.Policy) ([]byte, []byte) {
	t.Helper()
	set, mac, code := a.sealSet(t, org, vault, version, token, policies...)
	require.Equal(t, wire.OK, code)
	require.Len(t, mac, wire.PolicyMACLen)
	return set, mac
}

// secret creates vault's KEK and seals value at path with ownerToken; it
// returns the Open request for it, without authorisation.
func (a *authEnv) secret(t testing.TB, org, vault, path, value, ownerToken string) wire.OpenRequest {
	t.Helper()
	code, _, err := a.s.Call(wire.OpCreateKEK, encode(t, &wire.CreateKEKRequest{Token: kekOwnerToken(t, a.ks, org), OrgID: org, VaultID: vault}))
	require.NoError(t, err)
	require.Equal(t, wire.OK, code)
	code, body, err := a.s.Call(wire.OpSeal, encode(t, &wire.SealRequest{OrgID: org, VaultID: vault, Path: path, SecretVersion: 1, Plaintext: []byte(value), Token: ownerToken}))
	require.NoError(t, err)
	require.Equal(t, wire.OK, code)
	var sealed wire.SealResponse
	require.NoError(t, sealed.Decode(body))
	return wire.OpenRequest{OrgID: org, VaultID: vault, Path: path, SecretVersion: 1, WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext}
}

// open sends req and returns the code and the plaintext.
func (a *authEnv) open(t testing.TB, req wire.OpenRequest) (wire.Code, string) {
	t.Helper()
	code, body, err := a.s.Call(wire.OpOpen, encode(t, &req))
	require.NoError(t, err)
	if code != wire.OK {
		require.Empty(t, body, "a refusal carries no data")
		return code, ""
	}
	var resp wire.OpenResponse
	require.NoError(t, resp.Decode(body))
	return code, string(resp.Plaintext)
}

// authorised returns req with the caller's authorisation filled in.
func authorised(req wire.OpenRequest, token string, set, mac []byte) wire.OpenRequest {
	req.Token, req.PolicySet, req.PolicyMAC = token, set, mac
	return req
}

func flipped(b []byte, i int) []byte {
	out := append([]byte(nil), b...)
	out[i] ^= 0x01
	return out
}
