package client_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/internal/ops"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
)

// mint has the enclave sign an access token, as the proxy does at sign-in.
func mint(t testing.TB, e *env, sub, ptype, role string) string {
	t.Helper()
	claims := map[string]any{"iss": "https://ocv.test", "sub": sub, "aud": "ocv", "iat": time.Now().Unix(), "exp": time.Now().Add(15 * time.Minute).Unix(),
		"jti": "jti-" + sub, "org_id": "org", "principal_type": ptype}
	if role != "" {
		claims["role"] = role
	}
	b, err := json.Marshal(claims)
	require.NoError(t, err)
	tok, err := ops.SignTokenWithStore(context.Background(), e.ks, b)
	require.NoError(t, err)
	return tok
}

func TestSealPolicySet(t *testing.T) {
	e := newEnv(t)
	e.requireToken = true
	e.start(t)
	c := e.client(t, testPCR0)
	waitAttested(t, c)
	ctx := context.Background()
	owner := mint(t, e, "u-owner", "user", "owner")
	member := mint(t, e, "u-member", "user", "member")

	_, err := c.CreateKEK(ctx, mint(t, e, "u-owner", "user", "owner"), "org", "vault")
	require.NoError(t, err)
	sealed, err := c.Seal(ctx, wire.SealRequest{OrgID: "org", VaultID: "vault", Path: "db/pw", Plaintext: []byte("hunter2"), Token: owner})
	require.NoError(t, err)
	open := wire.OpenRequest{OrgID: "org", VaultID: "vault", Path: "db/pw", WrappedDEK: sealed.WrappedDEK, Ciphertext: sealed.Ciphertext, Token: member}
	_, err = c.Open(ctx, open)
	require.ErrorIs(t, err, wire.ErrForbidden, "a member needs a policy")

	set := policy.EncodeSet("vault", 1, []policy.Policy{{ID: "p1", Pattern: "db/*", PrincipalType: "user", PrincipalID: "u-member",
		Permissions: []policy.Permission{policy.PermissionRead}, Effect: policy.EffectAllow}})
	req := wire.SealPolicySetRequest{OrgID: "org", VaultID: "vault", Version: 1, Set: set, ChangerToken: member}
	_, err = c.SealPolicySet(ctx, req)
	require.ErrorIs(t, err, wire.ErrForbidden)
	req.ChangerToken = owner
	mac, err := c.SealPolicySet(ctx, req)
	require.NoError(t, err)
	require.Len(t, mac, wire.PolicyMACLen)
	_, err = c.SealPolicySet(ctx, req)
	require.ErrorIs(t, err, wire.ErrConflict, "a replayed version")

	open.PolicySet, open.PolicyMAC = set, mac
	pt, err := c.Open(ctx, open)
	require.NoError(t, err)
	require.Equal(t, "hunter2", string(pt))
	open.Token = ""
	_, err = c.Open(ctx, open)
	require.ErrorIs(t, err, wire.ErrForbidden, "no token, no plaintext")

	_, err = c.Health(ctx)
	require.NoError(t, err, "refusals leave the connection usable")
}
