package test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/policy"
	"github.com/opencustody/ocv/proxy"
	"github.com/opencustody/ocv/proxy/handlers"
	"github.com/opencustody/ocv/test/stack"
)

// routeURL fills a route pattern with placeholder values.
func routeURL(pattern string) string {
	segs := strings.Split(pattern, "/")
	for i, s := range segs {
		switch {
		case strings.HasSuffix(s, "...}"):
			segs[i] = "some/path"
		case strings.HasPrefix(s, "{"):
			segs[i] = "01a20000-0000-7000-8000-000000000000"
		}
	}
	return strings.Join(segs, "/")
}

func TestAccessLevelsOfEveryRoute(t *testing.T) {
	s := stack.Start(t)
	owner := s.SignUp("routes-owner@example.com")
	id, key := registerAgent(t, s, owner.Token, map[string]any{"name": "routes-agent"})
	agent := agentJWT(t, s, id, key)

	for _, r := range proxy.Routes(handlers.New(handlers.Deps{})) {
		var want string
		switch r.Access {
		case proxy.UserOnly:
			want = "human_only"
		case proxy.AdminOnly:
			want = "forbidden"
		default:
			continue
		}
		t.Run(r.Method+" "+r.Pattern, func(t *testing.T) {
			resp := s.Do(r.Method, routeURL(r.Pattern), agent, map[string]any{})
			requireProblem(t, resp, http.StatusForbidden, want)
		})
		if r.Access == proxy.AdminOnly {
			t.Run("user "+r.Method+" "+r.Pattern, func(t *testing.T) {
				requireProblem(t, s.Do(r.Method, routeURL(r.Pattern), owner.Token, map[string]any{}), http.StatusForbidden, "forbidden")
			})
		}
	}
}

func TestForgedTokensAreRefused(t *testing.T) {
	s := stack.Start(t)
	me := s.SignUp("forger@example.com")
	other := s.SignUp("victim@example.com")
	parts := strings.Split(me.Token, ".")
	require.Len(t, parts, 3)
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	require.NoError(t, err)
	var claims map[string]any
	require.NoError(t, json.Unmarshal(payload, &claims))

	seg := func(v any) string {
		b, _ := json.Marshal(v)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	var header map[string]any
	h, _ := base64.RawURLEncoding.DecodeString(parts[0])
	require.NoError(t, json.Unmarshal(h, &header))

	// Claims that move the token into another organization.
	stolen := map[string]any{}
	for k, v := range claims {
		stolen[k] = v
	}
	stolen["org_id"] = other.OrgID

	// Key confusion: an HS256 MAC keyed with the public JWKS document.
	jwks := s.Do("GET", "/.well-known/jwks.json", "", nil).Body
	hs := seg(map[string]any{"alg": "HS256", "typ": "JWT", "kid": header["kid"]}) + "." + seg(stolen)
	mac := hmac.New(sha256.New, jwks)
	mac.Write([]byte(hs))
	hs256 := hs + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))

	tests := map[string]string{
		"alg none":                  seg(map[string]any{"alg": "none", "typ": "JWT"}) + "." + seg(stolen) + ".",
		"alg none, no sig":          seg(map[string]any{"alg": "none"}) + "." + seg(stolen),
		"HS256 with the public key": hs256,
		// The original signature over edited claims.
		"tampered payload":   parts[0] + "." + seg(stolen) + "." + parts[2],
		"tampered signature": parts[0] + "." + parts[1] + "." + flipMiddle(parts[2]),
		"truncated":          parts[0] + "." + parts[1],
		"empty":              "",
	}
	for name, tok := range tests {
		t.Run(name, func(t *testing.T) {
			r := s.Do("GET", "/v1/vaults", tok, nil)
			if tok == "" { // no token on a paid route: 402 (spec Errors rule 2)
				requireProblem(t, r, http.StatusPaymentRequired, "payment_required")
				return
			}
			requireProblem(t, r, http.StatusUnauthorized, "invalid_token")
		})
	}
	require.Equal(t, http.StatusOK, s.Do("GET", "/v1/vaults", me.Token, nil).Status, "the genuine token still works")
}

// flipMiddle changes one character in the middle of a base64url string (the
// last character may carry only padding bits, which decoders ignore).
func flipMiddle(s string) string {
	b := []byte(s)
	i := len(b) / 2
	if b[i] == 'A' {
		b[i] = 'B'
	} else {
		b[i] = 'A'
	}
	return string(b)
}

// TestCompromisedProxyGetsNoPlaintext plays a proxy that skips its own
// checks and talks to the enclave directly: without the caller's valid
// token, or with a forged policy set, the enclave opens nothing.
func TestCompromisedProxyGetsNoPlaintext(t *testing.T) {
	s := stack.Start(t)
	s.WaitAttested()
	owner := s.SignUp("bypass-owner@example.com")
	vault := s.CreateVault(owner.Token, "v")
	r := s.Do("PUT", "/v1/vaults/"+vault+"/secrets/prod/db", owner.Token, map[string]any{"type": "password", "value": "e2e-bypass-canary"})
	require.Equal(t, http.StatusCreated, r.Status, string(r.Body))
	mem := s.SignUp("bypass-member@example.com")
	member := joinAsMember(t, s, mem, owner.OrgID)
	outsider := s.SignUp("bypass-outsider@example.com")

	// What a proxy holds: the sealed value from storage.
	row := readSealed(t, s, owner.OrgID, "prod/db")
	sess := enclaveSession(t, s)

	open := func(token string, set, mac []byte) (wire.Code, []byte) {
		req := wire.OpenRequest{OrgID: owner.OrgID, VaultID: vault, Path: "prod/db", SecretVersion: row.version,
			WrappedDEK: row.wrapped, Ciphertext: row.ct, Token: token, PolicySet: set, PolicyMAC: mac, ClientIP: "127.0.0.1"}
		body, err := req.Append(nil)
		require.NoError(t, err)
		code, resp, err := sess.Call(wire.OpOpen, body)
		require.NoError(t, err)
		return code, resp
	}
	forged := policy.EncodeSet(vault, 1_000_000, []policy.Policy{{ID: "forged", Pattern: "**", PrincipalType: "user",
		PrincipalID: mem.UserID, Permissions: []policy.Permission{policy.PermissionRead}, Effect: policy.EffectAllow}})

	tests := map[string]struct {
		token    string
		set, mac []byte
	}{
		"no token":                           {},
		"a made-up token":                    {token: "eyJhbGciOiJFUzI1NiJ9.e30.AAAA"},
		"another organization's owner":       {token: outsider.Token},
		"member without a policy set":        {token: member},
		"member with a forged allow-all set": {token: member, set: forged, mac: make([]byte, 32)},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			code, resp := open(tc.token, tc.set, tc.mac)
			require.Equal(t, wire.Forbidden, code)
			require.NotContains(t, string(resp), "e2e-bypass-canary")
		})
	}
	t.Run("the owner's own token opens it (control)", func(t *testing.T) {
		code, resp := open(owner.Token, nil, nil)
		require.Equal(t, wire.OK, code)
		var out wire.OpenResponse
		require.NoError(t, out.Decode(resp))
		require.Equal(t, "e2e-bypass-canary", string(out.Plaintext))
	})
}
