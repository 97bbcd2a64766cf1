package test

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/client"
	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/test/stack"
)

// hostileProxy is a compromised proxy host: it speaks the wire protocol to
// the enclave directly, with none of the proxy's checks.
type hostileProxy struct {
	t    *testing.T
	s    *stack.Stack
	sess *client.Session
}

func dialEnclave(t *testing.T, s *stack.Stack) *hostileProxy {
	t.Helper()
	return &hostileProxy{t: t, s: s, sess: enclaveSession(t, s)}
}

// sign signs claims with the enclave's token key through the HSM (no wire
// operation signs chosen claims any more; the verifiers must refuse such a
// token even when it is correctly signed).
func (h *hostileProxy) sign(claims map[string]any) string {
	h.t.Helper()
	return hsmToken(h.t, h.s, claims)
}

// edited is a copy of the claims of token with a fresh jti and edit applied.
func edited(t *testing.T, token string, edit func(map[string]any)) map[string]any {
	t.Helper()
	c := claims(t, token)
	jti := make([]byte, 16)
	_, _ = rand.Read(jti)
	c["jti"] = hex.EncodeToString(jti)
	edit(c)
	return c
}

// TestTenYearTokenIsRefused: a compromised proxy has the enclave sign an
// owner token that lives ten years. Correctly signed, it is refused by the
// proxy (401) and by the enclave (the secret does not open).
func TestTenYearTokenIsRefused(t *testing.T) {
	s := stack.Start(t)
	s.WaitAttested()
	owner := s.SignUp("tenyear-owner@example.com")
	vault := s.CreateVault(owner.Token, "v")
	path := "/v1/vaults/" + vault + "/secrets/prod/db"
	r := s.Do("PUT", path, owner.Token, map[string]any{"type": "password", "value": "e2e-tenyear-canary"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))

	row := readSealed(t, s, owner.OrgID, "prod/db")

	h := dialEnclave(t, s)
	open := func(token string) (wire.Code, []byte) {
		req := wire.OpenRequest{OrgID: owner.OrgID, VaultID: vault, Path: "prod/db", SecretVersion: row.version,
			WrappedDEK: row.wrapped, Ciphertext: row.ct, Token: token, ClientIP: "127.0.0.1"}
		body, err := req.Append(nil)
		require.NoError(t, err)
		code, resp, err := h.sess.Call(wire.OpOpen, body)
		require.NoError(t, err)
		return code, resp
	}

	now := time.Now()
	tests := map[string]map[string]any{
		"ten-year lifetime": edited(t, owner.Token, func(c map[string]any) {
			c["exp"] = now.AddDate(10, 0, 0).Unix()
		}),
		// A user token with an agent's lifetime.
		"two-hour user token": edited(t, owner.Token, func(c map[string]any) {
			c["iat"], c["iat_ms"], c["exp"] = now.Unix(), now.UnixMilli(), now.Add(2*time.Hour).Unix()
		}),
		"no iat": edited(t, owner.Token, func(c map[string]any) {
			delete(c, "iat")
			delete(c, "iat_ms")
		}),
		// Dated ten years ahead, with a normal lifetime.
		"dated ahead": edited(t, owner.Token, func(c map[string]any) {
			at := now.AddDate(10, 0, 0)
			c["iat"], c["iat_ms"], c["exp"] = at.Unix(), at.UnixMilli(), at.Add(10*time.Minute).Unix()
		}),
		"another issuer": edited(t, owner.Token, func(c map[string]any) { c["iss"] = "https://evil.example" }),
	}
	for name, c := range tests {
		t.Run(name, func(t *testing.T) {
			tok := h.sign(c)
			requireProblem(t, s.Do("GET", "/v1/vaults", tok, nil), http.StatusUnauthorized, "invalid_token")
			requireProblem(t, s.Do("GET", path, tok, nil), http.StatusUnauthorized, "invalid_token")
			code, resp := open(tok)
			require.Equal(t, wire.Forbidden, code)
			require.NotContains(t, string(resp), "e2e-tenyear-canary")
		})
	}

	t.Run("the same claims within the lifetime pass both (control)", func(t *testing.T) {
		tok := h.sign(edited(t, owner.Token, func(map[string]any) {}))
		require.Equal(t, http.StatusOK, s.Do("GET", path, tok, nil).Status)
		code, resp := open(tok)
		require.Equal(t, wire.OK, code)
		var out wire.OpenResponse
		require.NoError(t, out.Decode(resp))
		require.Equal(t, "e2e-tenyear-canary", string(out.Plaintext))
	})
}

// TestDeletedUserTokenIsRefused: an administrator deletes a user; the
// user's still unexpired token, verified (and cached) before, is refused
// by the proxy. So is a correctly signed token of the deleted user minted
// afterwards, one of a subject that never existed, and one claiming roles
// its subject does not have.
func TestDeletedUserTokenIsRefused(t *testing.T) {
	s := stack.Start(t, stack.WithProxyEnv("OCV_BOOTSTRAP_ADMIN_EMAIL="+rootEmail, "OCV_BOOTSTRAP_ADMIN_PASSWORD="+rootPassword))
	s.WaitAttested()
	root := signIn(t, s, rootEmail, rootPassword)["access_token"].(string)
	owner := s.SignUp("deleted-owner@example.com")
	vault := s.CreateVault(owner.Token, "v")
	victim := s.SignUp("deleted-victim@example.com")
	member := joinAsMember(t, s, victim, owner.OrgID)
	require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", member, nil).Status, "the token works before")

	r := s.Do("DELETE", "/v1/admin/users/"+victim.UserID, root, nil)
	require.Equal(t, http.StatusNoContent, r.Status, string(r.Body))
	requireProblem(t, s.Do("GET", "/v1/vaults", member, nil), http.StatusUnauthorized, "invalid_token")
	requireProblem(t, s.Do("GET", "/v1/vaults/"+vault, member, nil), http.StatusUnauthorized, "invalid_token")

	h := dialEnclave(t, s)
	// Issued after the deletion's cut-off (iat may be up to a minute
	// ahead), so only the subject check can refuse them.
	later := time.Now().Add(5 * time.Second)
	fresh := func(c map[string]any) {
		c["iat"], c["iat_ms"], c["exp"] = later.Unix(), later.UnixMilli(), later.Add(10*time.Minute).Unix()
	}
	tests := map[string]map[string]any{
		"the deleted user, minted later": edited(t, member, fresh),
		"a subject that never existed": edited(t, owner.Token, func(c map[string]any) {
			fresh(c)
			c["sub"] = "0190a000-0000-7000-8000-00000000dead"
		}),
		// A real owner's token claiming a platform role the user does not have.
		"an owner claiming super_admin": edited(t, owner.Token, func(c map[string]any) {
			fresh(c)
			c["platform_role"] = "super_admin"
		}),
		// A member's token claiming a role the membership does not have.
		"a member claiming owner": edited(t, owner.Token, func(c map[string]any) {
			fresh(c)
			c["sub"] = claims(t, joinAsMember(t, s, s.SignUp("deleted-other@example.com"), owner.OrgID))["sub"]
		}),
	}
	for name, c := range tests {
		t.Run(name, func(t *testing.T) {
			requireProblem(t, s.Do("GET", "/v1/vaults", h.sign(c), nil), http.StatusUnauthorized, "invalid_token")
		})
	}
	require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", owner.Token, nil).Status, "the owner's token still works")
}
