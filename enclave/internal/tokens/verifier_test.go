package tokens

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
	"github.com/opencustody/ocv/keyvault"
	"github.com/opencustody/ocv/keyvault/memstore"
	"github.com/opencustody/ocv/policy"
)

func TestVerifyAccepts(t *testing.T) {
	f := newFixture(t)
	c, err := f.v.Verify(t.Context(), f.mint(t, header("ocv-jwt-v1"), claims()), now)
	require.NoError(t, err)
	require.Equal(t, Claims{
		Issuer: "https://ocv.test", Subject: "user-1", OrgID: "org-1", PrincipalType: policy.PrincipalUser,
		Role: policy.RoleOwner, JTI: "jti-1", IssuedAt: time.Unix(now.Unix()-10, 0), ExpiresAt: time.Unix(now.Unix()+900, 0),
		IssuedAtMs: (now.Unix() - 10) * 1000,
	}, c)

	agent := with(func(m map[string]any) {
		m["principal_type"], m["sub"], m["environment"], m["scopes"] = "agent", "agent-1", "prod", []string{"prod/*"}
		delete(m, "role")
	})
	c, err = f.v.Verify(t.Context(), f.mint(t, header("ocv-jwt-v1"), agent), now)
	require.NoError(t, err)
	require.Equal(t, policy.PrincipalAgent, c.PrincipalType)
	require.Equal(t, policy.Role(""), c.Role)
	require.Equal(t, "prod", c.Environment)
	require.True(t, c.HasScopes)
	require.Equal(t, []string{"prod/*"}, c.Scopes)

	noScopes := with(func(m map[string]any) { m["principal_type"], m["scopes"] = "agent", []string{} })
	c, err = f.v.Verify(t.Context(), f.mint(t, header("ocv-jwt-v1"), noScopes), now)
	require.NoError(t, err)
	require.True(t, c.HasScopes, "an empty scopes claim is present: no path is in scope")
	require.Empty(t, c.Scopes)

	cases := map[string]map[string]any{
		"aud array":      with(func(m map[string]any) { m["aud"] = []string{"other", "ocv"} }),
		"fractional exp": with(func(m map[string]any) { m["exp"] = float64(now.Unix()) + 0.5 }),
		"past nbf":       with(func(m map[string]any) { m["nbf"] = now.Unix() }),
		"member role":    with(func(m map[string]any) { m["role"] = "member" }),
		"extra claims":   with(func(m map[string]any) { m["intents_api_enabled"] = true }),
	}
	for name, payload := range cases {
		t.Run("ok "+name, func(t *testing.T) {
			_, err := f.v.Verify(t.Context(), f.mint(t, header("ocv-jwt-v1"), payload), now)
			require.NoError(t, err)
		})
	}
	t.Run("ok second key version", func(t *testing.T) {
		_, err := f.ks.CreateKey(t.Context(), keyvault.CreateKeyRequest{Ref: keyvault.KeyRef{ID: "jwt", Version: 2}, Algorithm: keyvault.P256})
		require.NoError(t, err)
		sg, err := f.ks.Signer(t.Context(), keyvault.KeyRef{ID: "jwt", Version: 2})
		require.NoError(t, err)
		f2 := *f
		f2.sg = sg
		_, err = f.v.Verify(t.Context(), f2.mint(t, header("ocv-jwt-v2"), claims()), now)
		require.NoError(t, err)
		// The same key under the other kid does not verify.
		_, err = f.v.Verify(t.Context(), f2.mint(t, header("ocv-jwt-v1"), claims()), now)
		require.ErrorIs(t, err, ErrInvalidToken)
	})
}

func TestVerifyRefuses(t *testing.T) {
	f := newFixture(t)
	good := f.mint(t, header("ocv-jwt-v1"), claims())
	parts := strings.Split(good, ".")
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	require.NoError(t, err)
	tests := map[string]struct {
		token   string
		wantErr error
	}{
		"fail expired":        {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["exp"] = now.Unix() - 1 })), ErrExpired},
		"fail expires at now": {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["exp"] = now.Unix() })), ErrExpired},
		"fail not yet valid":  {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["nbf"] = now.Unix() + 60 })), ErrInvalidToken},
		// Signed by a key that is not the enclave's, under the enclave's kid.
		"fail forged":            {f.forge(t, header("ocv-jwt-v1"), claims()), ErrInvalidToken},
		"fail unknown kid":       {f.mint(t, header("ocv-jwt-v9"), claims()), ErrInvalidToken},
		"fail non-canonical kid": {f.mint(t, header("ocv-jwt-v01"), claims()), ErrInvalidToken},
		"fail foreign kid":       {f.mint(t, header("other-v1"), claims()), ErrInvalidToken},
		"fail no kid":            {f.mint(t, map[string]any{"alg": "ES256"}, claims()), ErrInvalidToken},
		"fail alg none":          {enc(t, map[string]any{"alg": "none", "kid": "ocv-jwt-v1"}) + "." + parts[1] + ".", ErrInvalidToken},
		// Key confusion: an HMAC "signed" with the public key must not pass.
		"fail alg hs256":     {f.mint(t, map[string]any{"alg": "HS256", "kid": "ocv-jwt-v1"}, claims()), ErrInvalidToken},
		"fail typ":           {f.mint(t, map[string]any{"alg": "ES256", "kid": "ocv-jwt-v1", "typ": "at+jwt"}, claims()), ErrInvalidToken},
		"fail crit":          {f.mint(t, map[string]any{"alg": "ES256", "kid": "ocv-jwt-v1", "crit": []string{"x"}}, claims()), ErrInvalidToken},
		"fail high s":        {parts[0] + "." + parts[1] + "." + base64.RawURLEncoding.EncodeToString(highS(sig)), ErrInvalidToken},
		"fail edited claims": {parts[0] + "." + enc(t, with(func(m map[string]any) { m["org_id"] = "org-2" })) + "." + parts[2], ErrInvalidToken},
		"fail padded sig":    {good + "=", ErrInvalidToken},
		"fail four parts":    {good + ".x", ErrInvalidToken},
		"fail two parts":     {parts[0] + "." + parts[1], ErrInvalidToken},
		"fail empty":         {"", ErrInvalidToken},
		"fail too long":      {strings.Repeat("a", MaxTokenLen+1), ErrInvalidToken},
		"fail other aud":     {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["aud"] = "not-ocv" })), ErrInvalidToken},
		"fail aud list":      {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["aud"] = []string{"a", "b"} })), ErrInvalidToken},
		"fail no exp":        {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { delete(m, "exp") })), ErrInvalidToken},
		"fail exp string":    {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["exp"] = "4102444800" })), ErrInvalidToken},
		"fail no org":        {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { delete(m, "org_id") })), ErrInvalidToken},
		"fail empty sub":     {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["sub"] = "" })), ErrInvalidToken},
		"fail no jti":        {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { delete(m, "jti") })), ErrInvalidToken},
		"fail no iss":        {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { delete(m, "iss") })), ErrInvalidToken},
		"fail principal":     {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["principal_type"] = "robot" })), ErrInvalidToken},
		"fail role":          {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["role"] = "Owner" })), ErrInvalidToken},
		"fail scopes":        {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["scopes"] = "prod/*" })), ErrInvalidToken},
		"fail environment":   {f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["environment"] = 3 })), ErrInvalidToken},
		// A strict reader sees one org_id; encoding/json alone would take the last.
		"fail repeated claim": {f.mint(t, header("ocv-jwt-v1"), `{"iss":"i","sub":"u","aud":"ocv","exp":4102444800,"jti":"j","org_id":"org-1","org_id":"org-2","principal_type":"user"}`), ErrInvalidToken},
		// Case folding must not turn ORG_ID into org_id.
		"fail folded claim name": {f.mint(t, header("ocv-jwt-v1"), `{"iss":"i","sub":"u","aud":"ocv","exp":4102444800,"jti":"j","ORG_ID":"org-1","principal_type":"user"}`), ErrInvalidToken},
		"fail payload array":     {f.mint(t, header("ocv-jwt-v1"), `[1]`), ErrInvalidToken},
		"fail trailing json":     {f.mint(t, header("ocv-jwt-v1"), `{"exp":1}{}`), ErrInvalidToken},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := f.v.Verify(t.Context(), tc.token, now)
			require.ErrorIs(t, err, tc.wantErr)
			require.ErrorIs(t, err, ErrInvalidToken)
		})
	}
}

func TestVerifyCache(t *testing.T) {
	f := newFixture(t)
	tok := f.mint(t, header("ocv-jwt-v1"), claims())
	other := f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["jti"] = "jti-2" }))
	fresh, err := New(testConfig(f.ks, 0))
	require.NoError(t, err)

	c1, err := f.v.Verify(t.Context(), tok, now)
	require.NoError(t, err)
	require.Equal(t, 1, f.v.cache.len())
	// Served from the cache: the key store is not needed any more.
	require.NoError(t, f.ks.Close())
	c2, err := f.v.Verify(t.Context(), tok, now)
	require.NoError(t, err)
	require.Equal(t, c1, c2)
	// A cached token still expires.
	_, err = f.v.Verify(t.Context(), tok, now.Add(901*time.Second))
	require.ErrorIs(t, err, ErrExpired)
	// A verifier that never looked up the key needs the (now closed) key
	// store: an outage, not a bad token.
	_, err = fresh.Verify(t.Context(), other, now)
	require.ErrorIs(t, err, keyvault.ErrClosed)
	require.NotErrorIs(t, err, ErrInvalidToken)
}

func TestCacheBounded(t *testing.T) {
	c := newCache(3)
	for i := range 10 {
		c.put([32]byte{byte(i)}, Claims{JTI: "j"})
		require.LessOrEqual(t, c.len(), 3)
	}
	_, ok := c.get([32]byte{9})
	require.True(t, ok, "the newest stays")
	_, ok = c.get([32]byte{0})
	require.False(t, ok, "the oldest went")
	off := newCache(0)
	off.put([32]byte{1}, Claims{})
	_, ok = off.get([32]byte{1})
	require.False(t, ok)
}

func TestNewRefuses(t *testing.T) {
	ks, err := memstore.New()
	require.NoError(t, err)
	t.Cleanup(func() { _ = ks.Close() })
	tests := map[string]struct {
		edit    func(*Config)
		wantErr error
	}{
		"ok":                  {func(*Config) {}, nil},
		"fail no key store":   {func(c *Config) { c.Keys = nil }, ErrInvalidConfig},
		"fail no issuer":      {func(c *Config) { c.Issuer = "" }, ErrInvalidConfig},
		"fail empty legacy":   {func(c *Config) { c.LegacyIssuers = []string{""} }, ErrInvalidConfig},
		"fail no lifetimes":   {func(c *Config) { c.Lifetimes = wire.TokenLifetimes{} }, ErrInvalidConfig},
		"fail 25 h for users": {func(c *Config) { c.Lifetimes.User = 25 * time.Hour }, ErrInvalidConfig},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg := testConfig(ks, 0)
			tc.edit(&cfg)
			_, err := New(cfg)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

func FuzzVerify(f *testing.F) {
	fx := newFixture(f)
	f.Add(fx.mint(f, header("ocv-jwt-v1"), claims()))
	f.Add("a.b.c")
	f.Add("")
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := fx.v.Verify(context.Background(), tok, now)
		if err == nil && (c.OrgID == "" || c.Subject == "") {
			t.Fatal("a verified token without org or subject")
		}
	})
}

// FuzzClaims feeds payloads to the claims parser, as if the enclave had
// signed them: whatever parses has every required claim.
func FuzzClaims(f *testing.F) {
	f.Add([]byte(`{"iss":"i","sub":"u","aud":"ocv","iat":4102444000,"exp":4102444800,"jti":"j","org_id":"o","principal_type":"agent","scopes":["a/*"],"nbf":1.5}`))
	f.Add([]byte(`{"aud":["ocv"],"exp":1e9}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, payload []byte) {
		c, _, err := parseClaims(payload, "ocv")
		if err != nil {
			return
		}
		if c.Issuer == "" || c.Subject == "" || c.JTI == "" || c.OrgID == "" || c.ExpiresAt.IsZero() || c.IssuedAt.IsZero() ||
			(c.PrincipalType != policy.PrincipalUser && c.PrincipalType != policy.PrincipalAgent) {
			t.Fatal("claims parsed without a required claim")
		}
	})
}
