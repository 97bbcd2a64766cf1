package tokens

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/opencustody/ocv/enclave/wire"
)

// TestVerifyTokenRules checks the rules the enclave applies to a token it
// signed itself: a compromised proxy can have any claims signed, so the
// signature alone proves nothing about the lifetime or the issuer.
func TestVerifyTokenRules(t *testing.T) {
	f := newFixture(t)
	user := wire.DefaultUserTokenTTL + wire.TokenClockSkew
	agent := wire.DefaultAgentTokenTTL + wire.TokenClockSkew
	lifetime := func(ptype string, d time.Duration) map[string]any {
		return with(func(m map[string]any) {
			m["principal_type"], m["iat"], m["exp"] = ptype, now.Unix()-10, now.Add(-10*time.Second+d).Unix()
		})
	}
	tests := map[string]struct {
		claims  map[string]any
		wantErr error
	}{
		"ok user exactly at the bound":  {lifetime("user", user), nil},
		"ok agent exactly at the bound": {lifetime("agent", agent), nil},
		"ok legacy issuer":              {with(func(m map[string]any) { m["iss"] = "https://legacy.ocv.test" }), nil},
		// The attack of issue 11: an owner token signed for ten years.
		"fail ten-year lifetime":           {lifetime("user", 10*365*24*time.Hour), ErrInvalidToken},
		"fail ten-year agent lifetime":     {lifetime("agent", 10*365*24*time.Hour), ErrInvalidToken},
		"fail user just above the bound":   {lifetime("user", user+time.Second), ErrInvalidToken},
		"fail agent just above the bound":  {lifetime("agent", agent+time.Second), ErrInvalidToken},
		"fail user with an agent lifetime": {lifetime("user", wire.DefaultAgentTokenTTL), ErrInvalidToken},
		// Without iat the lifetime cannot be bounded.
		"fail missing iat": {with(func(m map[string]any) { delete(m, "iat") }), ErrInvalidToken},
		"fail null iat":    {with(func(m map[string]any) { m["iat"] = nil }), ErrInvalidToken},
		"fail string iat":  {with(func(m map[string]any) { m["iat"] = "1800000000" }), ErrInvalidToken},
		// Dated years ahead with a short lifetime, it would be valid for years.
		"fail iat ten years ahead": {with(func(m map[string]any) {
			m["iat"], m["exp"] = now.AddDate(10, 0, 0).Unix(), now.AddDate(10, 0, 0).Unix()+900
		}), ErrInvalidToken},
		"fail iat past the skew": {with(func(m map[string]any) {
			m["iat"], m["exp"] = now.Unix()+61, now.Unix()+600
		}), ErrInvalidToken},
		"fail exp before iat": {with(func(m map[string]any) { m["iat"], m["exp"] = now.Unix()+30, now.Unix()+20 }), ErrInvalidToken},
		"fail wrong iss":      {with(func(m map[string]any) { m["iss"] = "https://evil.example" }), ErrInvalidToken},
		// Exact match: no prefix, case or trailing-slash folding.
		"fail iss with a trailing slash": {with(func(m map[string]any) { m["iss"] = "https://ocv.test/" }), ErrInvalidToken},
		"fail iss in upper case":         {with(func(m map[string]any) { m["iss"] = "https://OCV.test" }), ErrInvalidToken},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := f.v.Verify(t.Context(), f.mint(t, header("ocv-jwt-v1"), tc.claims), now)
			require.ErrorIs(t, err, tc.wantErr)
		})
	}
}

// TestVerifyTokenRulesOnCachedTokens: a token refused once is not cached,
// and is refused again.
func TestVerifyTokenRulesOnCachedTokens(t *testing.T) {
	f := newFixture(t)
	long := f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["exp"] = now.AddDate(10, 0, 0).Unix() }))
	for range 2 {
		_, err := f.v.Verify(t.Context(), long, now)
		require.ErrorIs(t, err, ErrInvalidToken)
	}
	require.Zero(t, f.v.cache.len())
}

// TestVerifyConfiguredLifetimes: the bound is the configured lifetime, not
// the default one.
func TestVerifyConfiguredLifetimes(t *testing.T) {
	f := newFixture(t)
	cfg := testConfig(f.ks, 0)
	cfg.Lifetimes = wire.TokenLifetimes{User: 5 * time.Minute, Agent: 10 * time.Minute}
	v, err := New(cfg)
	require.NoError(t, err)
	at := func(d time.Duration) string {
		return f.mint(t, header("ocv-jwt-v1"), with(func(m map[string]any) { m["iat"], m["exp"] = now.Unix(), now.Add(d).Unix() }))
	}
	_, err = v.Verify(t.Context(), at(6*time.Minute), now)
	require.NoError(t, err)
	_, err = v.Verify(t.Context(), at(6*time.Minute+time.Second), now)
	require.ErrorIs(t, err, ErrInvalidToken)
	// The default verifier (15 min) accepts what this one refuses.
	_, err = f.v.Verify(t.Context(), at(6*time.Minute+time.Second), now)
	require.NoError(t, err)
}
